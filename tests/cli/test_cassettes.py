"""``autobench run --cassette``: record every HTTPX exchange of each run, then run the task
again offline with every request answered from the record."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from cassette_support import by_run, copy_example, evidence, forget, kill_network, run_cli
from click.testing import CliRunner

from autobench.abp._cassette import load_cassette
from autobench.cli import cli
from autobench.records import replay_experiment
from autobench.report import build_report

MODULES = ("assistant_benchmark", "assistant_app")
"""The modules of ``examples/llm_native``."""


@pytest.fixture
def assistant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of ``examples/llm_native`` (OpenAI client over httpx2, instrumented), recorded
    once with ``--cassette record`` into ``rec``; the working directory."""
    target = copy_example("llm_native", tmp_path, monkeypatch, MODULES)
    run_cli("--record", "rec", "--cassette", "record")
    yield target
    forget(*MODULES)


def _kill_network(directory: Path) -> None:
    kill_network(directory / "assistant_app" / "offline_api.py", MODULES)


def test_a_replay_runs_the_task_offline_with_the_same_outputs_and_scores(assistant: Path) -> None:
    _kill_network(assistant)
    run_cli("--record", "rep", "--cassette", "replay", "rec")
    recorded, replayed = by_run(assistant / "rec"), by_run(assistant / "rep")
    assert recorded.keys() == replayed.keys() and len(recorded) == 6
    for key, live in recorded.items():
        again = replayed[key]
        assert again.status == live.status
        assert again.output == live.output
        assert [(s.name, s.value) for s in again.scores] == [(s.name, s.value) for s in live.scores]
        assert evidence(again) == evidence(live) and evidence(live)
        assert [o.value for o in again.observations if o.name == "cassette.replayed"] == [1]
        # The instrumentors' spans of a replayed call are those of the live one.
        assert again.trace is not None and live.trace is not None
        shape = [(span.name, span.kind) for span in live.trace.spans]
        assert [(span.name, span.kind) for span in again.trace.spans] == shape
        assert ("HTTP POST", "http") in shape and ("openai.chat.completions", "llm") in shape
    source = replay_experiment(assistant / "rep").experiment.cassette
    assert source is not None and source.mode == "replay"
    assert source.record_dir == "rec"
    assert source.experiment_id == replay_experiment(assistant / "rec").experiment.experiment.id
    assert source.sha256 and len(source.sha256) == 64
    use = build_report(replay_experiment(assistant / "rep")).cassette
    assert use is not None and (use.replayed_runs, use.replayed_requests) == (6, 6)
    assert build_report(replay_experiment(assistant / "rec")).cassette.mode == "record"  # type: ignore[union-attr]
    shown = CliRunner().invoke(cli, ["report", "rep"], env={"COLUMNS": "200"})
    assert "replay: 6 of 6 runs replayed (6 requests" in shown.output
    # What this experiment spent: the replayed runs' tokens and cost can be left out.
    shown_units = build_report(replay_experiment(assistant / "rep")).metric_units
    assert {"llm.tokens.input", "money.cost"} <= set(shown_units)
    spent = build_report(replay_experiment(assistant / "rep"), leave_out_replayed=True)
    assert not [s for s in spent.metric_units if s.startswith(("llm.", "money."))]
    assert "result.success" in spent.metric_units
    shown = CliRunner().invoke(
        cli, ["report", "rep", "--leave-out-replayed"], env={"COLUMNS": "200"}
    )
    assert shown.exit_code == 0 and "their tokens and cost are left out" in shown.output


def test_each_run_has_one_cassette_file_without_secrets(assistant: Path) -> None:
    files = sorted((assistant / "rec").rglob("cassette.json"))
    assert len(files) == 6
    for path in files:
        text = path.read_text()
        assert "offline-demo-key" not in text and "Bearer" not in text
        assert "authorization" not in text.lower()
    for run in by_run(assistant / "rec").values():
        (artifact,) = [a for a in run.artifacts if a.name == "cassette"]
        assert artifact.media_type == "application/vnd.autobench.cassette+json"


def test_a_changed_prompt_errors_its_runs_naming_the_request(assistant: Path) -> None:
    _kill_network(assistant)
    app = assistant / "assistant_app" / "assistant.py"
    app.write_text(app.read_text().replace("one or two sentences", "two sentences"))
    run_cli("--record", "rep", "--cassette", "replay", "rec")
    for run in by_run(assistant / "rep").values():
        assert run.status.value == "errored"
        (miss,) = [error for error in run.errors if error.stage == "cassette"]
        assert miss.type == "CassetteMiss"
        assert "POST https://api.openai.com/v1/chat/completions" in miss.message
        assert "one or two sentences" in miss.message and "Answer in two sentences" in miss.message


def test_replay_or_record_sends_and_records_what_the_cassette_lacks(assistant: Path) -> None:
    app = assistant / "assistant_app" / "assistant.py"
    app.write_text(app.read_text().replace("one or two sentences", "two sentences"))
    forget(*MODULES)
    run_cli("--record", "rep", "--cassette", "replay-or-record", "rec")
    for run in by_run(assistant / "rep").values():
        assert run.status.value in ("passed", "failed") and not run.errors
        assert [o.value for o in run.observations if o.name == "cassette.replayed"] == [0]
        assert [a.tags for a in run.artifacts if a.name == "cassette"] == [
            {"mode": "replay-or-record"}
        ]


def test_replay_needs_a_record_to_replay(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "x.yaml", "--cassette", "replay"])
    assert result.exit_code == 2
    assert "--cassette replay needs the record to replay: FROM_DIR" in result.output


STREAMING_TASK = """
import json
import httpx
import openai

WORDS = ["Refunds ", "take ", "14 ", "days."]


class Chunks(httpx.AsyncByteStream):
    def __init__(self, chunks):
        self.chunks = chunks

    async def __aiter__(self):
        for chunk in self.chunks:
            yield chunk


def _sse(request):
    events = [
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}]}
        for word in WORDS
    ]
    body = "".join(f"data: {json.dumps(event)}\\n\\n" for event in events) + "data: [DONE]\\n\\n"
    chunks = [part.encode() + b"\\n\\n" for part in body.split("\\n\\n") if part]
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Chunks(chunks))


def _dead(request):
    raise RuntimeError("the network was used during a cassette replay")


async def run(ctx, case):
    handler = _dead if case.input.get("offline") else _sse
    client = openai.AsyncOpenAI(
        api_key="sk-test-secret", http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    )
    stream = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": case.input["q"]}], stream=True
    )
    parts = [chunk.choices[0].delta.content async for chunk in stream if chunk.choices[0].delta.content]
    return {"parts": parts}
"""


def test_a_streamed_response_replays_with_its_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "streaming_task.py").write_text(STREAMING_TASK)

    def spec(offline: bool) -> None:
        flag = ", offline: true" if offline else ""
        (tmp_path / "autobench.yaml").write_text(
            textwrap.dedent(
                f"""
                benchmark:
                  streams:
                    cases: [{{id: a, input: {{q: refund{flag}}}}}, {{id: b, input: {{q: refund{flag}}}}}]
                    run: {{python: streaming_task:run}}
                    variants: {{v: {{}}}}
                """
            )
        )

    spec(offline=False)
    run_cli("--record", "rec", "--cassette", "record", "--concurrency", "2")
    spec(offline=True)  # another spec: replay is keyed by case and variant, not by spec hash
    run_cli("--record", "rep", "--cassette", "replay", "rec", "--concurrency", "2")
    for run in by_run(tmp_path / "rep").values():
        assert run.status.value == "passed", run.errors
        assert run.output == {"parts": ["Refunds ", "take ", "14 ", "days."]}
    for path in (tmp_path / "rec").rglob("cassette.json"):
        assert "sk-test-secret" not in path.read_text()
        (exchange,) = load_cassette(path.read_bytes())
        assert len(exchange.chunks) == 5  # four events and [DONE], as the server sent them
        assert exchange.chunks[-1] == b"data: [DONE]\n\n"


def test_replay_or_record_keeps_the_replayed_exchanges_in_the_new_cassette(
    assistant: Path,
) -> None:
    _kill_network(assistant)
    run_cli("--record", "again", "--cassette", "replay-or-record", "rec")
    for run in by_run(assistant / "again").values():
        counts = {o.name: o.value for o in run.observations if o.name.startswith("cassette.")}
        assert counts == {"cassette.replayed": 1, "cassette.sent": 0}
        (artifact,) = [a for a in run.artifacts if a.name == "cassette"]
        assert artifact.path is not None
        (exchange,) = load_cassette((assistant / "again" / artifact.path).read_bytes())
        assert exchange.url == "https://api.openai.com/v1/chat/completions"
    spent = build_report(replay_experiment(assistant / "again"), leave_out_replayed=True)
    assert not [s for s in spent.metric_units if s.startswith(("llm.", "money."))]


def _fails(*args: str) -> str:
    result = CliRunner().invoke(cli, ["run", "autobench.yaml", "--no-progress", *args])
    assert result.exit_code != 0, result.output
    return " ".join(result.output.replace("│", " ").split())


def test_a_resume_must_use_the_cassette_the_experiment_began_with(assistant: Path) -> None:
    _kill_network(assistant)
    run_cli("--record", "rep", "--cassette", "replay", "rec")
    shutil.rmtree(assistant / "rep" / "cases" / "refund" / "mini")
    forgot = _fails("--resume", "rep")
    assert "was recorded with --cassette replay rec" in forgot
    assert "cannot be resumed without --cassette" in forgot
    assert "cannot be resumed with --cassette record" in _fails(
        "--resume", "rep", "--cassette", "record"
    )
    run_cli("--record", "other", "--cassette", "replay-or-record", "rec")
    assert "cannot be resumed with --cassette replay other" in _fails(
        "--resume", "rep", "--cassette", "replay", "other"
    )
    run_cli("--resume", "rep", "--cassette", "replay", "rec")
    assert not replay_experiment(assistant / "rep").missing_runs


def test_a_source_without_cassettes_or_with_a_changed_one_is_refused(assistant: Path) -> None:
    run_cli("--record", "plain")
    assert "plain holds no cassette: record it with --cassette record" in _fails(
        "--record", "x", "--cassette", "replay", "plain"
    )
    (cassette,) = (assistant / "rec" / "artifacts" / "run_0000_refund_mini").glob("*.json")
    cassette.write_text(cassette.read_text().replace("14 days", "99 days"))
    assert "changed since it was recorded" in _fails("--record", "y", "--cassette", "replay", "rec")
    assert not (assistant / "x").exists() and not (assistant / "y").exists()


def test_cassette_options_that_contradict_each_other_are_usage_errors(assistant: Path) -> None:
    result = CliRunner().invoke(
        cli, ["run", "autobench.yaml", "--no-record", "--cassette", "record"]
    )
    assert result.exit_code == 2 and "drop --no-record" in result.output
    both = ["--cassette", "replay", "rec", "--cassette-from", "rec"]
    result = CliRunner().invoke(cli, ["run", "autobench.yaml", *both])
    assert result.exit_code == 2 and "give the record to replay once" in result.output


def test_a_run_without_its_cassette_names_its_case_variant_and_repeat(assistant: Path) -> None:
    _kill_network(assistant)
    run_cli("--record", "rep", "--cassette", "replay", "rec", "--repeat", "2")
    for run in replay_experiment(assistant / "rep").runs:
        if run.run.repeat == 2:
            (miss,) = [error for error in run.errors if error.stage == "cassette"]
            assert f"rec has no cassette for case {run.case_id!r}" in miss.message
            assert "repeat 2" in miss.message
        else:
            assert not [error for error in run.errors if error.stage == "cassette"]
