"""The same inputs give the same record files, whatever writes them (issue 36: group commit).

Two benchmarks (an async task and a sync one: spans, a metric, text and YAML artifacts; the
async one also has a case whose 1,100 spans are stored as ``trace.yaml``) are recorded by ``autobench run
--concurrency 4`` with a fixed experiment id. Every file under ``cases/`` and ``artifacts/``
is compared with the file the writer produced before group commit (``fixtures/record_contents``,
recorded at commit 2ac9d74 with one flush per file), once timings and ids are set aside:
timestamps, durations and offsets are replaced by placeholders, span and trace ids are
renumbered in order of appearance, the Autobench version becomes ``<version>``. The size and
digest of an artifact holding span ids are set aside with them (its text is compared).

``AUTOBENCH_UPDATE_RECORD_CONTENTS=1`` rewrites the fixture (review the diff).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autobench.records._schemas import autobench_version

AUTOBENCH = str(Path(sys.executable).parent / "autobench")
FIXTURE = Path(__file__).parent / "fixtures" / "record_contents"

pytestmark = pytest.mark.usefixtures("record_writer")  # thread and process

TASK = textwrap.dedent(
    """
    import asyncio

    def _work(ctx, case):
        n = case.input["n"]
        with ctx.span("work", kind="tool", input={"n": n}) as span:
            span.set_output({"double": 2 * n})
        if n == 100:
            for index in range(1100):
                with ctx.span("step", attributes={"i": index}):
                    pass
        ctx.metric("n", n, unit="items")
        if n % 3 == 0:
            ctx.artifact("note", f"note {n}", media_type="text/plain")
            ctx.artifact("data", {"n": n, "items": list(range(n % 4))})
        return {"value": 2 * n}


    async def run(ctx, case):
        await asyncio.sleep((case.input["n"] * 7 % 5) / 1000)
        return _work(ctx, case)


    def run_sync(ctx, case):
        return _work(ctx, case)
    """
)

SPEC = """\
benchmark:
  {name}:
    cases:
      - {{id: a, input: {{n: 1}}, expected: {{value: 2}}}}
      - {{id: b, input: {{n: 3}}, expected: {{value: 6}}}}
      - {{id: c, input: {{n: 6}}, expected: {{value: 12}}}}
{big}    run: {{python: "contents_task:{task}"}}
    variants: {{x: {{factors: {{m: x}}}}, y: {{factors: {{m: y}}}}}}
    score:
      correct:
        exact: {{actual: output.value, expected: case.expected.value}}
"""

_TIME = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)?")
_TIMING = re.compile(r"^(\s*-?\s*(?:duration|offset|started_at|ended_at)): .*$", re.MULTILINE)
_ID = re.compile(r"'?\b([0-9a-f]{32}|[0-9a-f]{16})\b'?")  # quoted when all digits
_DIGEST = re.compile(r"^(\s*(?:size|sha256)): .*$", re.MULTILINE)


def normalized(text: str) -> str:
    """``text`` with timings, span/trace ids and the Autobench version set aside."""
    text = _TIMING.sub(r"\1: <timing>", text)
    text = _TIME.sub("<time>", text)
    names: dict[str, str] = {}
    text = _ID.sub(lambda match: names.setdefault(match.group(1), f"<id{len(names) + 1}>"), text)
    text = text.replace(autobench_version(), "<version>")
    if "trace.yaml" in text:  # a run whose trace is stored apart: the trace file's size
        text = _DIGEST.sub(r"\1: <digest>", text)  # and digest follow its ids and timings
    return text


def _record(tmp_path: Path, name: str, task: str) -> dict[str, str]:
    directory = tmp_path / name
    directory.mkdir()
    (directory / "contents_task.py").write_text(TASK)
    big = "      - {id: big, input: {n: 100}, expected: {value: 200}}\n" if task == "run" else ""
    (directory / "autobench.yaml").write_text(SPEC.format(name=name, task=task, big=big))
    done = subprocess.run(
        [
            AUTOBENCH,
            "run",
            "autobench.yaml",
            "--record",
            "rec",
            "--experiment-id",
            f"exp_{name}",
            "--concurrency",
            "4",
            "--no-progress",
        ],
        cwd=directory,
        env={key: value for key, value in os.environ.items() if not key.startswith("PYTEST")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    record = directory / "rec"
    return {
        path.relative_to(record).as_posix(): normalized(path.read_text(encoding="utf-8"))
        for folder in ("cases", "artifacts")
        for path in sorted((record / folder).rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("task", ["run", "run_sync"])
def test_record_files_are_those_of_one_flush_per_file(tmp_path: Path, task: str) -> None:
    files = _record(tmp_path, "contents", task)
    expected_root = FIXTURE / task
    if os.environ.get("AUTOBENCH_UPDATE_RECORD_CONTENTS") == "1":
        for relative, text in files.items():
            target = expected_root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    expected = {
        path.relative_to(expected_root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(expected_root.rglob("*"))
        if path.is_file()
    }
    assert sorted(files) == sorted(expected)
    if task == "run":  # the large trace is stored apart
        assert "artifacts/run_0006_big_x/trace.yaml" in files
    for relative, text in files.items():
        assert text == expected[relative], relative
