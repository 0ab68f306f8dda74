"""Every example runs end to end: validate, run with recording, replay from the records alone."""

from __future__ import annotations

import hashlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from record_text import file_text

from autobench.abp import SpanRecord
from autobench.cli import cli
from autobench.records import (
    Observation,
    ObservationKind,
    ObservationQuery,
    ObservationRole,
    ObservationSource,
    RunRecord,
    RunStatus,
    load_extraction_record,
    pairwise_records,
    replay_experiment,
    run_observations,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run_example(name: str, record: Path, *, concurrency: int = 4) -> None:
    runner = CliRunner()
    spec = str(EXAMPLES / name / "autobench.yaml")
    validated = runner.invoke(cli, ["validate", spec])
    assert validated.exit_code == 0, validated.output
    ran = runner.invoke(
        cli,
        ["run", spec, "--record", str(record), "--no-progress", "--concurrency", str(concurrency)],
    )
    assert ran.exit_code == 0, ran.output
    replayed = runner.invoke(cli, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    reported = runner.invoke(cli, ["report", str(record)])
    assert reported.exit_code == 0, reported.output
    for fmt in ("yaml", "csv", "markdown", "junit"):
        exported = runner.invoke(
            cli, ["export", str(record), "--format", fmt, "--path", f"{record}.{fmt}"]
        )
        assert exported.exit_code == 0, exported.output


def test_minimal_example(tmp_path: Path) -> None:
    _run_example("minimal", tmp_path / "minimal")
    result = replay_experiment(tmp_path / "minimal")
    assert len(result.runs) == 10
    failed = sorted(
        (run.case_id, run.variant_id) for run in result.runs if run.status is RunStatus.FAILED
    )
    assert (
        failed == []
    )  # exact scores are objectives: a wrong answer lowers the score, it does not fail the run
    naive = {run.case_id: run.score("correct").value for run in result.runs_for(variant_id="naive")}
    assert naive["multiply-negative"] == 0.0
    assert sum(naive.values()) == 4.0
    assert all(run.score("correct").value == 1.0 for run in result.runs_for(variant_id="builtin"))


def test_basic_example_v2_fixes_the_enterprise_outages(tmp_path: Path) -> None:
    _run_example("basic", tmp_path / "basic")
    result = replay_experiment(tmp_path / "basic")
    assert len(result.experiment.plan) == 64 and result.complete
    v1_failed = {
        run.case_id
        for run in result.runs_for(variant_id="rules_v1")
        if run.status is RunStatus.FAILED
    }
    assert v1_failed == {
        "enterprise-outage-production",
        "enterprise-outage-api",
        "enterprise-outage-503",
        "enterprise-outage-sync",
        "enterprise-outage-billing-page",
    }
    assert all(run.status is RunStatus.PASSED for run in result.runs_for(variant_id="rules_v2"))
    run = result.runs_for(case_id="enterprise-outage-api", variant_id="rules_v1")[0]
    assert [span.operation for span in run.spans] == [
        "benchmark.run",
        "route_ticket",
        "extract_features",
        "choose_queue",
    ]
    check = next(
        observation for observation in run.observations if observation.name == "queue_matches"
    )
    assert check.value is False and "routed to technical" in (check.reason or "")
    markdown = (tmp_path / "basic.markdown").read_text()
    assert "| rules_v1 |" in markdown and "enterprise-outage-api" in markdown
    (artifact,) = run.artifacts
    assert artifact.path is not None and (tmp_path / "basic" / artifact.path).is_file()
    assert run.case.metadata["locale"] == "en-US" and "support" in run.case.tags


def test_console_script_is_installed() -> None:
    completed = subprocess.run(
        [str(Path(sys.executable).parent / "autobench"), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0
    assert "validate" in completed.stdout and "replay" in completed.stdout


def _observation(run: RunRecord, name: str) -> Observation:
    return next(observation for observation in run.observations if observation.name == name)


def test_advanced_example_measures_repeatedly_and_derives_speedups(tmp_path: Path) -> None:
    _run_example("advanced", tmp_path / "advanced")
    result = replay_experiment(tmp_path / "advanced")
    assert len(result.runs) == 24 and result.complete
    # correctness is a constraint: only the O(n) shortcut fails, and only where documents moved
    # further than one place
    failed = {
        (run.case_id, run.variant_id) for run in result.runs if run.status is not RunStatus.PASSED
    }
    assert failed == {
        (case, "adjacent_only")
        for case in ("small-shuffled", "medium-shuffled", "large-shuffled", "large-reversed")
    }
    baseline = {run.case_id: run for run in result.runs_for(variant_id="pairwise")}
    for run in result.runs:
        median = _observation(run, "distance_runtime.median")
        assert (median.semantic_type, median.unit, median.role) == (
            "time.latency",
            "ms",
            ObservationRole.OBJECTIVE,
        )
        repetitions = _observation(run, "distance_runtime.repetitions").value
        assert 3 <= repetitions <= 7  # min_repetitions..repetitions of the case budget
        (samples,) = (a for a in run.artifacts if a.name == "distance_runtime.samples")
        assert samples.path is not None
        payload = (tmp_path / "advanced" / samples.path).read_text()
        assert "samples:" in payload and "warmup: 1" in payload
        # the speedup is baseline median / this run's median, paired by case
        speedup = _observation(run, "speedup")
        assert speedup.semantic_type == "performance.speedup"
        assert speedup.source is ObservationSource.DERIVED
        base_median = _observation(baseline[run.case_id], "distance_runtime.median").value
        assert speedup.value == pytest.approx(base_median / median.value)
    assert all(_observation(run, "speedup").value == 1.0 for run in baseline.values())
    markdown = (tmp_path / "advanced.markdown").read_text()
    assert "performance.speedup" in markdown and "| merge_sort |" in markdown


def test_mid_example_prices_replies_and_gates_them_with_policies(tmp_path: Path) -> None:
    _run_example("mid", tmp_path / "mid")
    result = replay_experiment(tmp_path / "mid")
    assert len(result.runs) == 18 and result.complete
    passed = {
        variant: sorted(
            run.case_id
            for run in result.runs_for(variant_id=variant)
            if run.status is RunStatus.PASSED
        )
        for variant in ("mini", "standard", "large")
    }
    # mini uses one knowledge snippet, standard two, large every one but busts the cost cap
    assert passed == {
        "mini": ["cancel-subscription", "password-reset"],
        "standard": ["cancel-subscription", "duplicate-charge", "late-delivery", "password-reset"],
        "large": [
            "cancel-subscription",
            "duplicate-charge",
            "late-delivery",
            "password-reset",
            "vat-invoice",
        ],
    }
    outage = result.runs_for(case_id="enterprise-outage", variant_id="large")[0]
    assert _observation(outage, "input_tokens").value == 145
    assert _observation(outage, "output_tokens").value == 117
    assert _observation(outage, "total_tokens").value == 262
    assert _observation(outage, "model_name").value == "demo/large"
    cost = _observation(outage, "request_cost")
    assert (cost.semantic_type, cost.unit, cost.source) == (
        "money.cost",
        "usd",
        ObservationSource.DERIVED,
    )
    assert cost.value == pytest.approx((145 * 5.0 + 117 * 20.0) / 1_000_000)
    cap = _observation(outage, "cost-cap")
    assert cap.value is False and cap.semantic_type == "policy.result"
    assert _observation(outage, "reply-must-be-complete").value is True
    incomplete = result.runs_for(case_id="vat-invoice", variant_id="standard")[0]
    assert _observation(incomplete, "reply-must-be-complete").value is False
    assert _observation(incomplete, "cost-cap").value is True
    assert incomplete.output is not None
    assert incomplete.output["missing_phrases"] == ["original number"]
    markdown = (tmp_path / "mid.markdown").read_text()
    assert "money.cost" in markdown and "| large |" in markdown


def _span(run: RunRecord, operation: str) -> SpanRecord:
    (span,) = (span for span in run.spans if span.operation == operation)
    return span


def test_abp_manual_example_nests_the_method_span_under_the_workflow_span(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _run_example("abp_manual", tmp_path / "abp_manual")
    result = replay_experiment(tmp_path / "abp_manual")
    assert len(result.runs) == 8 and result.complete
    for run in result.runs:
        assert [span.operation for span in run.spans] == [
            "benchmark.run",
            "triage_ticket",
            "ticket_router.route",
        ]
        root, workflow, method = run.spans
        assert (root.parent, workflow.parent, method.parent) == (None, root.id, workflow.id)
        assert (workflow.kind, method.kind, method.scope) == (
            "workflow",
            "tool",
            "triage.ticket_router",
        )
        tokens = _observation(run, "router_input_tokens")
        model = _observation(run, "router_model")
        assert tokens.span_id == method.id and model.span_id == method.id
        assert (tokens.kind, tokens.semantic_type, tokens.unit) == (
            ObservationKind.METRIC,
            "llm.tokens.input",
            "tokens",
        )
        assert run.output is not None and tokens.value == run.output["input_tokens"]
        assert model.kind is ObservationKind.FACTOR and model.semantic_type == "llm.model.name"
        assert model.value == run.variant.factor("model")
    correct = {
        variant: sorted(
            run.case_id
            for run in result.runs_for(variant_id=variant)
            if run.score("queue").value == 1.0
        )
        for variant in ("small", "large")
    }
    assert correct == {
        "small": ["double-charge"],
        "large": ["api-outage", "double-charge", "locked-out", "vat-invoice"],
    }

    # the method keeps its signature and its result, instrumented or not
    monkeypatch.syspath_prepend(str(EXAMPLES / "abp_manual"))
    from triage_app.router import Ticket, TicketRouter
    from triage_benchmark import router_instrumentation

    original = TicketRouter.__dict__["route"]
    signature = inspect.signature(TicketRouter.route)
    outage = result.runs_for(case_id="api-outage", variant_id="large")[0]
    ticket = Ticket(**outage.case.input)
    plain = TicketRouter("triage-large").route(ticket)
    with router_instrumentation():
        assert TicketRouter.__dict__["route"] is not original
        assert inspect.signature(TicketRouter.route) == signature
        assert TicketRouter("triage-large").route(ticket) == plain
    assert TicketRouter.__dict__["route"] is original
    assert outage.output == {
        "queue": plain.queue,
        "priority": plain.priority,
        "matched": list(plain.matched),
        "input_tokens": plain.usage.input_tokens,
    }


def test_abp_concurrent_example_keeps_worker_spans_under_their_own_run(tmp_path: Path) -> None:
    _run_example("abp_concurrent", tmp_path / "abp_concurrent", concurrency=2)
    result = replay_experiment(tmp_path / "abp_concurrent")
    assert len(result.runs) == 8 and result.complete
    seen: set[str] = set()
    for run in result.runs:
        ids = {span.id for span in run.spans}
        assert len(ids) == len(run.spans) and not ids & seen  # no run shares a span
        seen |= ids
        root = _span(run, "benchmark.run")
        workflow = _span(run, "check_availability")
        assert root.parent is None and workflow.parent == root.id
        workers = [span for span in run.spans if span.operation == "warehouse.stock_level"]
        assert len(workers) == _observation(run, "warehouses_queried").value
        assert all(worker.parent == workflow.id for worker in workers)
        assert run.output is not None
        assert sorted(worker.attributes["warehouse"] for worker in workers) == sorted(
            run.output["stock"]
        )
    fanout = {
        variant: [len(run.output["stock"]) for run in result.runs_for(variant_id=variant)]
        for variant in ("regional", "global")
    }
    assert fanout == {"regional": [3, 3, 2, 3], "global": [5, 5, 5, 5]}
    fillable = {
        run.case_id for run in result.runs_for(variant_id="regional") if run.output["fillable"]
    }
    assert fillable == {"lamps-eu", "desks-us"}


# provider SDKs, and the benchmark's own task modules: replay imports none of them
_NOT_IMPORTED = (
    "openai",
    "anthropic",
    "google.genai",
    "pydantic_ai",
    "agents",
    "availability_benchmark",
    "inventory_app",
)


def _sha256s(root: Path) -> dict[Path, str]:
    return {
        path: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_abp_replay_example_writes_derived_records_and_keeps_the_originals(
    tmp_path: Path,
) -> None:
    record = tmp_path / "abp_concurrent"
    _run_example("abp_concurrent", record, concurrency=2)
    before = _sha256s(record)
    script = EXAMPLES / "abp_replay" / "replay_and_extract.py"
    # run the script as `python replay_and_extract.py DIR`, then list what it must not import
    probe = (
        "import runpy, sys\n"
        f"sys.argv = [{str(script)!r}, {str(record)!r}]\n"
        "try:\n"
        f"    runpy.run_path({str(script)!r}, run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        f"print('IMPORTED', [name for name in {_NOT_IMPORTED!r} if name in sys.modules])\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert "IMPORTED []" in completed.stdout
    assert "8 derived records" in completed.stdout
    after = _sha256s(record)
    assert {path: after[path] for path in before} == before  # originals unchanged
    derived = sorted(path for path in after if path.name == "extraction.yaml")
    assert len(derived) == 8 and all("derived" in path.parts for path in derived)
    result = replay_experiment(record)
    runs = {run.run_id: run for run in result.runs}
    for path in derived:
        extraction = load_extraction_record(path, root=record)
        run = runs[extraction.run_id]
        assert extraction.lineage.run_sha256 == before[record / extraction.lineage.run_record]
        assert [part.name for part in extraction.lineage.components] == ["signal", "span", "usage"]
        derived_run = extraction.apply(run)
        values = {
            observation.semantic_type: observation.value
            for observation in derived_run.observations
            if observation.source is ObservationSource.DERIVED
        }
        assert values["operation.count"] == len(run.spans)
        assert values["operation.fanout.max"] == len(run.output["stock"])


def test_llm_native_example_measures_the_openai_client_without_task_telemetry(
    tmp_path: Path,
) -> None:
    _run_example("llm_native", tmp_path / "llm_native")
    result = replay_experiment(tmp_path / "llm_native")
    assert len(result.runs) == 6 and result.complete
    code = (EXAMPLES / "llm_native" / "assistant_benchmark.py").read_text().split('"""')[-1]
    assert "ctx.span(" not in code and "ctx.metric(" not in code
    refund = next(r for r in result.runs_for(variant_id="mini") if r.case_id == "refund")
    spans = {span.operation: span for span in refund.spans}
    client, http = spans["openai.chat.completions"], spans["HTTP POST"]
    assert http.parent == client.id  # the transport span sits under the client span
    assert refund.trace is not None and refund.trace.scopes[client.scope or ""].layer == "client"
    metrics = {
        o.semantic_type: o.value for o in refund.observations if o.kind is ObservationKind.METRIC
    }
    assert metrics["llm.tokens.input"] == 536 and metrics["llm.tokens.cache_read"] == 512
    assert metrics["llm.tokens.output"] == 20 and metrics["llm.request.count"] == 1
    # 24 uncached prompt tokens at 0.2, 512 cached at 0.02, 20 output at 0.8 USD per Mtok
    assert metrics["money.cost"] == pytest.approx((24 * 0.2 + 512 * 0.02 + 20 * 0.8) / 1e6)
    factors = {
        o.semantic_type: o.value for o in refund.observations if o.kind is ObservationKind.FACTOR
    }
    assert factors == {
        "llm.model.requested": "acme-mini",
        "llm.model.response": "acme-mini-2026-01-15",
        "llm.provider": "openai",
        "server.address": "api.openai.com",
    }
    assert not [o for o in refund.observations if o.kind is ObservationKind.DIAGNOSTIC]
    for path in (tmp_path / "llm_native").rglob("*"):  # the API key never reaches a record
        if path.is_file():
            assert "offline-demo-key" not in file_text(path), path


def test_pydantic_ai_example_measures_the_agent_through_every_layer(tmp_path: Path) -> None:
    _run_example("pydantic_ai", tmp_path / "pydantic_ai")
    result = replay_experiment(tmp_path / "pydantic_ai")
    assert len(result.runs) == 6 and result.complete
    assert all(run.status.value == "passed" for run in result.runs)
    code = (EXAMPLES / "pydantic_ai" / "shop_benchmark.py").read_text().split('"""')[-1]
    assert "ctx.span(" not in code and "ctx.metric(" not in code
    lamp = next(r for r in result.runs_for(variant_id="mini") if r.case_id == "lamp")
    by_id = {span.id: span for span in lamp.spans}

    def chain(span: SpanRecord) -> list[str]:
        kinds = [span.kind]
        while span.parent is not None:
            span = by_id[span.parent]
            kinds.append(span.kind)
        return kinds[::-1]

    http = [span for span in lamp.spans if span.kind == "http"]
    assert len(http) == 2  # one HTTP request per model request
    assert all(chain(span) == ["task", "agent", "llm", "llm", "http"] for span in http)
    tool = next(span for span in lamp.spans if span.kind == "tool")
    assert tool.operation == "search_catalog" and tool.input == {"query": "lamp"}
    query = ObservationQuery(observations=run_observations(lamp))
    # two requests of 256 cached + 12 per message prompt tokens (2 and 4 messages)
    assert query.values("llm.tokens.input") == [(256 + 24) + (256 + 48)]
    assert query.values("llm.tokens.cache_read") == [512]
    assert query.values("llm.tokens.output") == [40] and query.values("llm.request.count") == [2]
    uncached = 584 - 512
    assert query.values("money.cost") == [
        pytest.approx((uncached * 0.2 + 512 * 0.02 + 40 * 0.8) / 1e6)
    ]
    scores = {score.name: score.value for score in lamp.scores}
    assert scores["tool_selection"] == 1.0 and scores["tool_arguments"] == 1.0
    assert "shop_instructions" in " ".join(lamp.asset_versions)
    retry = next(r for r in result.runs_for(variant_id="mini") if r.case_id == "kettle-retry")
    validations = [s for s in retry.spans if s.operation == "pydantic_ai.output.validate"]
    assert [s.status.value for s in validations] == ["error", "ok"]  # asked again, then valid
    streamed = next(r for r in result.runs_for(variant_id="large-streamed") if r.case_id == "lamp")
    assert {
        s.attributes.get("llm.stream")
        for s in streamed.spans
        if s.scope == "pydantic_ai" and s.kind == "llm"
    } == {True}
    for path in (tmp_path / "pydantic_ai").rglob("*"):  # the API key never reaches a record
        if path.is_file():
            assert "offline-demo-key" not in file_text(path), path
    # replay, report and the trace view of these records import no SDK and no task
    script = (
        "import json, sys\n"
        "from click.testing import CliRunner\n"
        "from autobench.cli import cli\n"
        f"record = {str(tmp_path / 'pydantic_ai')!r}\n"
        "codes = [CliRunner().invoke(cli, args).exit_code for args in (\n"
        "    ['replay', record], ['report', record], ['instrumentation', 'trace', record])]\n"
        "forbidden = ('shop_benchmark', 'shop_app', 'openai', 'pydantic_ai', 'agents', 'httpx',\n"
        "             'httpx2')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in forbidden)\n"
        "print(json.dumps({'codes': codes, 'loaded': loaded}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.strip().splitlines()[-1] == '{"codes": [0, 0, 0], "loaded": []}'


def test_the_live_openrouter_example_skips_without_a_key_and_runs_offline() -> None:
    script = str(EXAMPLES / "pydantic_ai" / "openrouter_instrument_all.py")
    env = dict(os.environ)
    env.pop("OPENROUTER_API_KEY", None)
    skipped = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, env=env, check=False
    )
    assert skipped.returncode == 0, skipped.stderr
    assert "skipped: OPENROUTER_API_KEY is not set" in skipped.stdout
    offline = subprocess.run(
        [sys.executable, script, "--offline"], capture_output=True, text=True, env=env, check=False
    )
    assert offline.returncode == 0, offline.stderr
    assert "passed 2" in offline.stdout and "runs that did not pass" not in offline.stdout


def test_judges_example_grades_calibrates_rescores_and_compares_pairwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SUPPORT_JUDGE_MODEL", raising=False)  # the offline judge
    record = tmp_path / "judges"
    _run_example("judges", record)
    result = replay_experiment(record)
    verdicts = {(run.case_id, run.variant_id): run.score("policy").value for run in result.runs}
    assert [case for (case, variant), ok in verdicts.items() if variant == "canned" and ok] == [
        "exchange",
        "shipping",
        "password",
    ]
    assert all(ok for (_, variant), ok in verdicts.items() if variant == "grounded")
    for run in result.runs:  # the judge's spend is its own, priced by judge_pricing.yaml
        query = ObservationQuery(observations=run_observations(run))
        assert query.values("judge.request.count") == [1]
        assert query.values("judge.cost")[0] > 0 and query.values("money.cost") == []
    runner = CliRunner()
    example = EXAMPLES / "judges"
    calibrated = runner.invoke(
        cli,
        ["judge", "calibrate", str(record), "--labels", str(example / "labels.yaml"), "--store"],
    )
    assert calibrated.exit_code == 0, calibrated.output
    flat = " ".join(calibrated.output.split())
    assert "accuracy │ 0.750" in flat and "Cohen's kappa │ 0.400" in flat
    assert (record / "labels.yaml").is_file()
    rescored = runner.invoke(
        cli,
        ["rescore", str(record), "--score", "policy", "--spec", str(example / "autobench.v2.yaml")],
    )
    assert rescored.exit_code == 0, rescored.output
    assert "16 runs scored, mean 0.5625, judge cost $" in rescored.output
    again = runner.invoke(cli, ["judge", "calibrate", str(record), "--rescored", "policy"])
    assert again.exit_code == 0, again.output
    flat = " ".join(again.output.split())
    assert "accuracy │ 0.917" in flat and "Cohen's kappa │ 0.824" in flat
    report = runner.invoke(cli, ["report", str(record), "--rescored", "policy"])
    assert report.exit_code == 0, report.output
    assert "judge cost $" in report.stdout and "16 requests" in report.stdout
    # pairwise: the `prefer` judge of autobench.pairwise.yaml compares the recorded answers
    pair = ["--judge", "prefer", "--baseline", "canned", "--candidate", "grounded"]
    spec = ["--spec", str(example / "autobench.pairwise.yaml")]
    judged = runner.invoke(cli, ["judge", "pairwise", str(record), *pair, *spec])
    assert judged.exit_code == 0, judged.output
    flat = " ".join(judged.output.split())
    assert "canned -> grounded, judged pairwise by prefer (8 cases, both orders)" in flat
    assert "wins 7 (88%, 95% Wilson [53%, 98%]); ties 1 (12%," in flat
    assert "losses 0 (0%, 95% Wilson [0%, 32%])" in flat
    assert "improved (sign test, wins vs losses without ties: p = 0.0156)" in flat
    assert "flips with the order on 0 of 8 cases (0%)" in flat
    assert "first shown wins 50% of 14 decided answers" in flat
    assert "judge spend (apart from the application's): 16 requests" in flat
    (stored,) = pairwise_records(record)
    outcomes = {case.case: case.outcome for case in stored.cases}
    assert outcomes.pop("password") == "tie"  # both state both facts, neither promises
    assert set(outcomes.values()) == {"win"}
    headline = runner.invoke(cli, ["report", str(record)])
    assert headline.exit_code == 0, headline.output
    top = " ".join(headline.stdout.split("Experiment")[0].split())
    assert "canned -> grounded (8 paired cases, 95% intervals)" in top
    assert "prefer (pairwise) wins 88% [53%, 98%] improved (ties 12%, losses 0% of 8" in top
    assert "the order flips the verdict on 0%)" in top
    again = runner.invoke(cli, ["judge", "pairwise", str(record), *pair, *spec])
    assert again.exit_code == 0 and "already judged, kept" in again.output


def test_judges_live_script_says_it_skipped_without_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "judges" / "live_judge.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "OPENAI_API_KEY is not set; nothing was run" in completed.stdout


def test_judges_live_script_runs_every_step_with_a_stand_in_model(tmp_path: Path) -> None:
    # Pydantic AI's TestModel in place of gpt-4o-mini: the script's own steps, no network.
    # TestModel always answers `first`, so the pairwise step shows a judge biased by order.
    env = {**os.environ, "OPENAI_API_KEY": "not-used", "SUPPORT_JUDGE_MODEL": "test"}
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "judges" / "live_judge.py"), str(tmp_path / "live")],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert len(replay_experiment(tmp_path / "live").runs) == 16
    assert "Calibration of policy (pass/fail) against 12 human label(s)" in completed.stdout
    flat = " ".join(completed.stdout.split())
    assert "canned -> grounded, judged pairwise by prefer (8 cases, both orders)" in flat
    assert "wins 0 (0%, 95% Wilson [0%, 32%]); ties 8 (100%," in flat
    assert "the verdict flips with the order on 8 of 8 cases (100%)" in flat
    assert "prefer (pairwise) wins 0% [0%, 32%] no detectable difference" in flat
    (pairwise,) = pairwise_records(tmp_path / "live")
    assert {order.winner for case in pairwise.cases for order in case.orders} == {"first"}


@pytest.mark.skipif("OPENAI_API_KEY" not in os.environ, reason="live: needs OPENAI_API_KEY")
def test_judges_live_script_grades_with_a_real_openai_judge(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(EXAMPLES / "judges" / "live_judge.py"), str(tmp_path / "live")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = replay_experiment(tmp_path / "live")
    assert len(result.runs) == 16
    assert all(run.score("policy").value in (True, False) for run in result.runs)
    (pairwise,) = pairwise_records(tmp_path / "live")
    assert (pairwise.lineage.baseline, pairwise.lineage.candidate) == ("canned", "grounded")
    assert len(pairwise.cases) == 8
    assert "judged pairwise by prefer (8 cases, both orders)" in completed.stdout
    assert "prefer (pairwise)" in completed.stdout
