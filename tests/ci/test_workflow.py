"""The GitHub Actions workflow of docs/ci.md (examples/ci/autobench.yml), run locally: every
`run:` step whose `if:` holds, in order, in bash as Actions runs it, over a real benchmark
(examples/llm_native: the OpenAI client over an offline API). The `uses:` steps that move
files are stood in for (the cache saves and restores a directory, an upload checks that its
path exists); `uv run` runs the command in this environment and `gh` writes down its
arguments. First a push to main records the benchmark with cassettes; then a pull request
that breaks the assistant runs with the network gone, from main's restored record."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "examples" / "ci" / "autobench.yml"
DOC = ROOT / "docs" / "ci.md"

EXPRESSIONS = {
    "github.sha": "1111111",
    "github.event.pull_request.base.sha": "1111111",
    "github.server_url": "https://github.com",
    "github.repository": "acme/shop",
    "github.run_id": "42",
    "github.token": "test-token",
    "github.event.pull_request.number": "7",
}
"""The values of the `${{ ... }}` expressions the workflow uses (any other fails the test)."""

DEAD_NETWORK = """

def _dead(request):
    raise RuntimeError("the network was used in a pull request's run")


def transport() -> httpx2.MockTransport:
    return httpx2.MockTransport(_dead)
"""

UV = """#!/bin/sh
# `uv run CMD...` runs CMD; `uv sync` has nothing to do: the test's environment is installed.
if [ "$1" = run ]; then shift; exec "$@"; fi
exit 0
"""

GH = """#!/bin/sh
printf '%s\\n' "$@" > "$GH_CALLS"
"""


def _expand(text: str) -> str:
    return re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda m: EXPRESSIONS[m.group(1)], str(text))


def _holds(condition: str | None, event: str) -> bool:
    if condition is None:
        return True
    match = re.fullmatch(r"github\.event_name == '(\w+)'", condition.strip())
    assert match, f"the test does not evaluate `if: {condition}`"
    return match.group(1) == event


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


class Runner:
    """Runs the workflow's job for one event in one checkout."""

    def __init__(self, tmp: Path) -> None:
        self.workflow: dict[str, Any] = YAML(typ="safe").load(WORKFLOW.read_text())
        self.cache = tmp / "cache"
        self.cache.mkdir()
        shims = tmp / "bin"
        shims.mkdir()
        _executable(shims / "uv", UV)
        _executable(shims / "gh", GH)
        self.path = f"{shims}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"
        self.uploads: dict[str, Path] = {}

    def run(self, event: str, checkout: Path, outputs: Path) -> list[tuple[str, int]]:
        """Run the job's steps for ``event`` in ``checkout``; returns each run step's name
        and exit code. A failing step ends the job, as on GitHub."""
        outputs.mkdir()
        env = {
            **{k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR")},
            "PATH": self.path,
            "GITHUB_STEP_SUMMARY": str(outputs / "step-summary.md"),
            "GH_CALLS": str(outputs / "gh-calls.txt"),
            "AUTOBENCH_HOME": str(outputs / "home"),
            "PYDANTIC_DISABLE_PLUGINS": "logfire-plugin",
            "COLUMNS": "200",
            **{k: _expand(v) for k, v in self.workflow["env"].items()},
        }
        done: list[tuple[str, int]] = []
        (job,) = self.workflow["jobs"].values()
        for step in job["steps"]:
            if not _holds(step.get("if"), event):
                continue
            with_ = {k: _expand(v) for k, v in (step.get("with") or {}).items()}
            uses = step.get("uses", "")
            if uses.startswith("actions/cache/save"):
                shutil.copytree(checkout / with_["path"], self.cache / with_["key"])
            elif uses.startswith("actions/cache/restore"):
                keys = [with_["key"], *sorted(p.name for p in self.cache.iterdir())]
                prefix = with_["restore-keys"]
                found = next((k for k in keys if (self.cache / k).is_dir()), None)
                if found is not None and found.startswith(prefix):
                    shutil.copytree(self.cache / found, checkout / with_["path"])
            elif uses.startswith("actions/upload-artifact"):
                assert (checkout / with_["path"]).exists(), with_
                self.uploads[with_["name"]] = checkout / with_["path"]
            elif "run" in step:
                step_env = {**env, **{k: _expand(v) for k, v in (step.get("env") or {}).items()}}
                code = subprocess.run(
                    ["bash", "-e", "-o", "pipefail", "-c", step["run"]],
                    cwd=checkout,
                    env=step_env,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                (outputs / f"step-{len(done)}.log").write_text(code.stdout + code.stderr)
                done.append((step["name"], code.returncode))
                if code.returncode != 0:
                    break
        return done


TOPICS = ("refund", "shipping", "warranty")


def _checkout(tmp: Path, name: str) -> Path:
    """A copy of examples/llm_native with 12 cases instead of 3 (each question asked four
    times under its own id): three cases are too few for any test to call a change a
    regression, and Autobench says so."""
    target = tmp / name
    shutil.copytree(
        ROOT / "examples" / "llm_native",
        target,
        ignore=shutil.ignore_patterns(".autobench", "__pycache__"),
    )
    spec = target / "autobench.yaml"
    questions = dict(re.findall(r"- id: (\w+)\n\s+input: \{question: ([^}]+)\}", spec.read_text()))
    assert set(questions) == set(TOPICS)
    more = "".join(
        f"        - id: {topic}-{n}\n"
        f"          input: {{question: {questions[topic]}}}\n"
        f"          expected: {{policy: {topic} policy}}\n"
        for n in range(2, 5)
        for topic in TOPICS
    )
    text = spec.read_text()
    spec.write_text(text.replace("    run:\n", more + "    run:\n", 1))
    return target


def test_the_documentation_shows_the_workflow_file_as_it_is() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    assert WORKFLOW.read_text() in blocks


def test_the_workflow_records_main_then_replays_compares_and_posts_for_a_pull_request(
    tmp_path: Path,
) -> None:
    runner = Runner(tmp_path)
    main = _checkout(tmp_path, "main")
    assert runner.run("push", main, tmp_path / "push") == [("Install", 0), ("Record main", 0)]
    assert (runner.cache / "autobench-main-1111111" / "experiment.yaml").is_file()

    # The pull request renames "policy" in every answer (the check wants the policy named)
    # and the network is gone: every request must be answered from main's cassettes.
    pr = _checkout(tmp_path, "pr")
    assistant = pr / "assistant_app" / "assistant.py"
    assistant.write_text(
        assistant.read_text().replace(
            'return completion.choices[0].message.content or ""',
            'return (completion.choices[0].message.content or "").replace("policy", "rule")',
        )
    )
    api = pr / "assistant_app" / "offline_api.py"
    api.write_text(api.read_text() + DEAD_NETWORK)
    outputs = tmp_path / "pull-request"
    steps = runner.run("pull_request", pr, outputs)
    assert steps == [
        ("Install", 0),
        ("Run the benchmark", 0),
        ("Summary", 0),
        ("HTML report", 0),
        ("Comment on the pull request", 0),
        ("Fail on a regression", 3),
    ]
    summary = (outputs / "step-summary.md").read_text()
    assert summary == (pr / ".autobench-ci" / "summary.md").read_text()
    assert summary.startswith("## :x: assistant\n")
    assert "Cassettes: replay; 24 requests replayed, 0 sent." in summary
    assert "### Against the baseline" in summary
    heading = re.search(r"### :warning: \d+ regressions?\n\n", summary)
    assert heading is not None, summary
    found = summary[heading.end() :].split("\n\n")[0].splitlines()
    success = [line for line in found if ": result.success regressed (p=" in line]
    assert [line.split(":")[0] for line in success] == [
        "- baseline/mini -\\> candidate/mini",
        "- baseline/large -\\> candidate/large",
    ]
    # Besides them, only a latency may regress: the pull request's run replays its cassettes on
    # a shared machine, and a loaded one can make it measurably slower than main's run.
    assert all(": latency " in line for line in found if line not in success), found
    assert summary.splitlines()[-1].startswith(
        "Full report: artifact `autobench-report`; record: artifact `autobench-record` of "
        "[this workflow run](<https://github.com/acme/shop/actions/runs/42>)."
    )
    assert set(runner.uploads) == {"autobench-report", "autobench-record"}
    assert (pr / ".autobench-ci" / "report.html").stat().st_size > 10_000
    gh = (outputs / "gh-calls.txt").read_text().splitlines()
    assert gh == [
        "pr",
        "comment",
        "7",
        "--edit-last",
        "--create-if-none",
        "--body-file",
        ".autobench-ci/summary.md",
    ]
    gate = (outputs / "step-5.log").read_text()
    assert "large" in gate and "regressed" in gate
