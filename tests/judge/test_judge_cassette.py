"""Judge calls under cassettes: a judge on an OpenAI-compatible endpoint (the real OpenAI
client over HTTP to a local server) recorded with ``autobench run --cassette record``, then
replayed (run and rescore) with the server stopped: same scores, reasons and ``judge.*``
evidence, and no request reaches the server."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from judge_support import send_json, tool_call_reply

from autobench.abp._cassette import CASSETTE_MEDIA_TYPE, load_cassette
from autobench.cli import cli
from autobench.records import (
    RunRecord,
    pairwise_records,
    replay_experiment,
    rescorings,
    run_record_path,
)
from autobench.report import build_report

TASK = """
def run(ctx, case):
    answer = case.input["answer"]
    if ctx.factor("style") == "long":
        answer = answer + " Ask for it in the app."
    return {"answer": answer}
"""


class _Endpoint(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint grading an answer by whether it cites the policy."""

    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).requests.append(body)
        prompt = body["messages"][-1]["content"]
        ok = "refund within 30 days" in prompt
        answer = {
            "reason": "cites the policy" if ok else "no policy",
            "verdict": "pass" if ok else "fail",
        }
        tool = body["tools"][0]["function"]["name"]
        if "winner" in json.dumps(body["tools"][0]["function"]["parameters"]):
            # Pairwise: the longer answer wins, wherever it is shown.
            second = prompt.index("<second_")
            winner = "first" if second > len(prompt) - second else "second"
            answer = {"reason": "the longer one", "winner": winner}
        send_json(self, tool_call_reply(body["model"], tool, answer, 100 + len(prompt)))

    def log_message(self, *args: Any) -> None:
        pass


class _Server:
    def __init__(self) -> None:
        _Endpoint.requests = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.running = True

    def stop(self) -> None:
        if self.running:
            self.server.shutdown()
            self.server.server_close()
            self.running = False


@pytest.fixture
def server() -> Iterator[_Server]:
    running = _Server()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def project(tmp_path: Path, server: _Server, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("JUDGE_TEST_KEY", "sk-judge-key")
    (tmp_path / "cassette_task.py").write_text(TASK)
    (tmp_path / "pricing.yaml").write_text(
        "pricing:\n  models:\n    local-judge:\n"
        "      input: {unit: mtok, price: 1.0}\n      output: {unit: mtok, price: 4.0}\n"
    )
    (tmp_path / "autobench.yaml").write_text(
        textwrap.dedent(
            f"""
            benchmark:
              support:
                dataset:
                  cases:
                    - id: good
                      input: {{answer: "Yes: refund within 30 days."}}
                    - id: bad
                      input: {{answer: "no."}}
                run: {{python: cassette_task:run}}
                variants:
                  v1: {{factors: {{style: short}}}}
                  v2: {{factors: {{style: long}}}}
                score:
                  policy_ok:
                    judge:
                      model: {{name: local-judge, base_url: "{server.url}", api_key_env: JUDGE_TEST_KEY}}
                      rubric: Pass an answer that cites the refund policy.
                      inputs: [output.answer]
                      pricing: file://pricing.yaml
            """
        )
    )
    yield tmp_path
    sys.modules.pop("cassette_task", None)


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def _runs(record: Path) -> dict[tuple[str, str], RunRecord]:
    return {(run.case_id, run.variant_id): run for run in replay_experiment(record).runs}


def _spend(observations: Any) -> tuple[tuple[str, Any], ...]:
    """The ``judge.*`` evidence (tokens, requests, cost) by semantic type."""
    return tuple(
        sorted(
            (o.semantic_type, o.value)
            for o in observations
            if o.semantic_type and o.semantic_type.startswith("judge.")
        )
    )


def _judged(run: RunRecord) -> tuple[Any, ...]:
    """The judge's score, reason, error and ``judge.*`` evidence of a run."""
    score = next(score for score in run.scores if score.name == "policy_ok")
    return score.value, score.reason, score.error, _spend(run.observations)


def _metric_types(report: Any) -> set[str]:
    return {
        kind for row in report.run_rows for kind, value in row.metrics.items() if value is not None
    }


def _replayed(observations: Any) -> list[Any]:
    return [o.value for o in observations if o.name == "judge.policy_ok.cassette.replayed"]


def test_a_recorded_judge_replays_offline_with_the_same_scores_and_spend(
    project: Path, server: _Server
) -> None:
    _cli("run", "autobench.yaml", "--no-progress", "--record", "rec", "--cassette", "record")
    assert len(_Endpoint.requests) == 4
    recorded = _runs(project / "rec")
    for run in recorded.values():
        kept = [a for a in run.artifacts if a.name == "judge.policy_ok.cassette"]
        assert len(kept) == 1 and kept[0].media_type == CASSETTE_MEDIA_TYPE
        assert kept[0].path is not None
        exchanges = load_cassette((project / "rec" / kept[0].path).read_bytes())
        assert [e.url for e in exchanges] == [f"{server.url}/chat/completions"]
        assert "sk-judge-key" not in (project / "rec" / kept[0].path).read_text()
        # The application made no HTTP call: its own cassette holds nothing.
        assert not [a for a in run.artifacts if a.name == "cassette"]
    assert _judged(recorded["good", "v1"])[:2] == (True, "cites the policy")
    assert _judged(recorded["bad", "v2"])[:2] == (False, "no policy")

    server.stop()
    _cli("run", "autobench.yaml", "--no-progress", "--record", "rep", "--cassette", "replay", "rec")
    assert len(_Endpoint.requests) == 4  # nothing more reached the endpoint
    replayed = _runs(project / "rep")
    for case, live in recorded.items():
        again = replayed[case]
        assert _judged(again) == _judged(live)
        assert any(kind == "judge.cost" for kind, _ in _judged(live)[3])
        assert _replayed(again.observations) == [1]
        assert not [a for a in again.artifacts if a.media_type == CASSETTE_MEDIA_TYPE]

    # The report says the judge's spend was replayed, and can leave it out.
    use = build_report(replay_experiment(project / "rep")).cassette
    assert use is not None and (use.judge_replayed_requests, use.judge_sent_requests) == (4, 0)
    shown = _cli("report", "rep")
    assert "4 judge requests replayed, their judge tokens and cost" in shown
    left_out = build_report(replay_experiment(project / "rep"), leave_out_replayed=True)
    kept = build_report(replay_experiment(project / "rep"))
    assert "judge.cost" in _metric_types(kept) and "judge.cost" not in _metric_types(left_out)

    # A re-scoring of the replayed record, replayed from the first one: offline too.
    _cli("rescore", "rep", "--score", "policy_ok", "--cassette", "replay", "--cassette-from", "rec")
    assert len(_Endpoint.requests) == 4
    (rescoring,) = rescorings(project / "rep")
    for record in rescoring.records.values():
        live = recorded[record.lineage.case, record.lineage.variant]
        score = record.score
        assert (score.value, score.reason, score.error, _spend(record.observations)) == (
            _judged(live)
        )
        assert _replayed(record.observations) == [1]

    # Re-scoring the recorded experiment itself replays from its own judge cassettes.
    _cli("rescore", "rec", "--score", "policy_ok", "--no-progress", "--cassette", "replay")
    assert len(_Endpoint.requests) == 4
    (own,) = rescorings(project / "rec")
    assert len(own.records) == 4
    for record in own.records.values():
        live = recorded[record.lineage.case, record.lineage.variant]
        assert (record.score.value, record.score.reason, record.score.error) == _judged(live)[:3]


def test_a_rescore_records_the_judge_and_another_rescore_replays_it_offline(
    project: Path, server: _Server
) -> None:
    _cli("run", "autobench.yaml", "--no-progress", "--record", "live")
    shutil.copytree(project / "live", project / "copy")
    assert len(_Endpoint.requests) == 4
    _cli("rescore", "live", "--score", "policy_ok", "--no-progress", "--cassette", "record")
    assert len(_Endpoint.requests) == 8
    (recorded,) = rescorings(project / "live")
    for record in recorded.records.values():
        assert [a.name for a in record.artifacts if a.media_type == CASSETTE_MEDIA_TYPE] == [
            "judge.policy_ok.cassette"
        ]
    server.stop()
    said = _cli(
        "rescore", "copy", "--score", "policy_ok", "--no-progress",
        "--cassette", "replay", "--cassette-from", "live",
    )  # fmt: skip
    assert "4 requests replayed from a cassette: recorded spend, not paid again" in said
    assert len(_Endpoint.requests) == 8
    (replayed,) = rescorings(project / "copy")
    assert replayed.records.keys() == recorded.records.keys()
    for path, record in replayed.records.items():
        live = recorded.records[path]
        assert record.score.error is None
        assert (record.score.value, record.score.reason) == (live.score.value, live.score.reason)
        assert _spend(record.observations) == _spend(live.observations)
        assert _replayed(record.observations) == [1]


def test_a_replay_from_a_record_without_judge_cassettes_is_refused(
    project: Path, server: _Server
) -> None:
    _cli("run", "autobench.yaml", "--no-progress", "--record", "live")
    server.stop()
    result = CliRunner().invoke(
        cli, ["rescore", "live", "--score", "policy_ok", "--no-progress", "--cassette", "replay"]
    )
    assert result.exit_code != 0
    assert "holds no cassette" in result.output
    assert len(_Endpoint.requests) == 4 and not rescorings(project / "live")


def test_a_judge_request_is_never_answered_from_the_application_cassette(
    project: Path, server: _Server
) -> None:
    _cli("run", "autobench.yaml", "--no-progress", "--record", "rec", "--cassette", "record")
    # Move the judge's recorded exchanges into the application's cassette name: a replay
    # must not answer the judge from it.
    for run in replay_experiment(project / "rec").runs:
        (kept,) = [a for a in run.artifacts if a.name == "judge.policy_ok.cassette"]
        assert kept.path is not None
        run_yaml = project / "rec" / run_record_path(run.case_id, run.variant_id)
        text = run_yaml.read_text()
        assert "name: judge.policy_ok.cassette" in text
        run_yaml.write_text(text.replace("name: judge.policy_ok.cassette", "name: cassette"))
    server.stop()
    _cli("run", "autobench.yaml", "--no-progress", "--record", "rep", "--cassette", "replay", "rec")
    assert len(_Endpoint.requests) == 4
    for run in _runs(project / "rep").values():
        value, _, error, _ = _judged(run)
        assert value is None and error is not None
        assert "cassette has no reply" in error and "judge.policy_ok.cassette" in error


def test_pairwise_judging_records_its_calls_and_replays_them_offline(
    project: Path, server: _Server
) -> None:
    _cli("run", "autobench.yaml", "--no-progress", "--record", "live")
    shutil.copytree(project / "live", project / "copy")
    pair = ["--judge", "policy_ok", "--baseline", "v1", "--candidate", "v2"]
    _cli("judge", "pairwise", "live", *pair, "--cassette", "record")
    assert len(_Endpoint.requests) == 8  # 2 cases, both orders
    (judged,) = pairwise_records(project / "live")
    assert judged.path is not None
    stored = project / "live" / judged.path.replace(".yaml", ".cassette.json")
    assert len(load_cassette(stored.read_bytes())) == 4
    server.stop()
    shown = _cli(
        "judge", "pairwise", "copy", *pair, "--cassette", "replay", "--cassette-from", "live"
    )
    assert len(_Endpoint.requests) == 8
    assert "wins 2" in shown
    (again,) = pairwise_records(project / "copy")
    assert [c.orders for c in again.cases] == [c.orders for c in judged.cases]
    assert all(order.winner is not None for c in again.cases for order in c.orders)
    assert [c.outcome for c in again.cases] == [c.outcome for c in judged.cases]
    for live, replayed in zip(judged.cases, again.cases, strict=True):
        assert _spend(replayed.observations) == _spend(live.observations)
        counts = [o.value for o in replayed.observations if o.tags.get("cassette") == "replayed"]
        assert counts == [2]


def test_pairwise_replay_from_a_record_without_its_cassette_is_refused(
    project: Path, server: _Server
) -> None:
    _cli("run", "autobench.yaml", "--no-progress", "--record", "live")
    server.stop()
    result = CliRunner().invoke(
        cli,
        ["judge", "pairwise", "live", "--judge", "policy_ok", "--baseline", "v1",
         "--candidate", "v2", "--cassette", "replay"],
    )  # fmt: skip
    assert result.exit_code != 0 and "holds no cassette of judge 'policy_ok'" in result.output
    assert len(_Endpoint.requests) == 4 and not pairwise_records(project / "live")
