"""Retries, timeouts and rate limits of a run's task calls, through real spec files.

The OpenAI client talks to an ``httpx.MockTransport`` (its own retries off), so the
exceptions retried are the client's real ones; the rate-limit tests read the limit off
the transport's request timestamps."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from autobench.cli import cli
from autobench.core.runtime import run_benchmark_spec
from autobench.core.runtime._limits import LocalLimits, limit_keys
from autobench.core.spec import SpecError, dump_benchmark_spec, load_benchmark_spec
from autobench.core.spec._models import LimitSpec
from autobench.records import (
    ExperimentResult,
    RecordDirectoryWriter,
    RunRecord,
    Variant,
    replay_experiment,
)

OPENAI_TASK = """\
import httpx
import openai

calls = []


def handler(request):
    calls.append(request.url.path)
    if len(calls) == 1:
        return httpx.Response(429, json={"error": {"message": "slow down", "type": "rate_limit"}})
    return httpx.Response(
        200,
        json={
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "hello"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        },
    )


def run_case(ctx, case):
    ctx.metric("calls_so_far", len(calls) + 1, semantic_type="workload.size")
    client = openai.OpenAI(
        api_key="x",
        base_url="http://test/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        max_retries=0,
    )
    reply = client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "hi"}]
    )
    return reply.choices[0].message.content


async def run_case_async(ctx, case):
    ctx.metric("calls_so_far", len(calls) + 1, semantic_type="workload.size")
    client = openai.AsyncOpenAI(
        api_key="x",
        base_url="http://test/v1",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        max_retries=0,
    )
    reply = await client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "hi"}]
    )
    return reply.choices[0].message.content
"""


def _spec(root: Path, body: str, module: str, source: str) -> Path:
    (root / f"{module}.py").write_text(source, encoding="utf-8")
    path = root / "autobench.yaml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def _run(path: Path, out: Path | None = None, concurrency: int = 1) -> ExperimentResult:
    spec = load_benchmark_spec(path)
    sink = RecordDirectoryWriter(out) if out is not None else None
    return asyncio.run(run_benchmark_spec(spec, sink=sink, concurrency_limit=concurrency))


@pytest.mark.parametrize("target", ["run_case", "run_case_async"])
def test_openai_429_then_200_is_retried_and_both_attempts_recorded(
    tmp_path: Path, target: str
) -> None:
    module = f"oai_{target}"
    path = _spec(
        tmp_path,
        f"""
        benchmark:
          retry-openai:
            cases: [{{id: hello, input: hi}}]
            run:
              python: {module}:{target}
              timeout: 10
              retries:
                attempts: 3
                backoff: exponential
                initial: 0.01
                max: 0.05
                on: [openai.RateLimitError, TimeoutError]
            variants: {{base: {{}}}}
        """,
        module,
        OPENAI_TASK,
    )
    out = tmp_path / "out"
    result = _run(path, out)
    (run,) = result.runs
    assert run.status.value == "passed" and run.output == "hello"
    assert [attempt.number for attempt in run.attempts] == [1, 2]
    first, second = run.attempts
    assert first.error is not None and first.error.type == "openai.RateLimitError"
    assert first.error.stage == "task" and "slow down" in first.error.message
    assert second.error is None and first.duration >= 0 and second.duration >= 0
    # The evidence is the final attempt's: one metric, recorded by the second call.
    (calls,) = [o for o in run.observations if o.name == "calls_so_far"]
    assert calls.value == 2
    assert not run.errors
    assert sys.modules[module].calls == ["/v1/chat/completions"] * 2
    # Recorded and replayed with its attempts.
    text = (out / "cases/hello/base/run.yaml").read_text(encoding="utf-8")
    assert "attempts:" in text and "openai.RateLimitError" in text
    (replayed,) = replay_experiment(out).runs
    assert replayed.attempts == run.attempts


ERRORS_TASK = """\
import flaky_errors

seen = []


def run_case(ctx, case):
    seen.append(case.id)
    if len(seen) < 3:
        raise flaky_errors.Flaky(f"flake {len(seen)}")
    return len(seen)


def wrong(ctx, case):
    seen.append(case.id)
    raise ValueError("not retried")
"""


def test_a_users_own_exception_type_is_retried(tmp_path: Path) -> None:
    (tmp_path / "flaky_errors.py").write_text(
        "class Flaky(Exception):\n    pass\n", encoding="utf-8"
    )
    body = """
        benchmark:
          retry-own:
            cases: [{id: c, input: 1}]
            run:
              python: own_errors:run_case
              retries: {attempts: 4, backoff: fixed, initial: 0, on: [flaky_errors.Flaky]}
            variants: {base: {}}
        """
    result = _run(_spec(tmp_path, body, "own_errors", ERRORS_TASK))
    (run,) = result.runs
    assert run.status.value == "passed" and run.output == 3
    assert [a.error.type if a.error else None for a in run.attempts] == [
        "flaky_errors.Flaky",
        "flaky_errors.Flaky",
        None,
    ]


def test_an_exception_not_listed_is_not_retried(tmp_path: Path) -> None:
    (tmp_path / "flaky_errors.py").write_text(
        "class Flaky(Exception):\n    pass\n", encoding="utf-8"
    )
    body = """
        benchmark:
          retry-other:
            cases: [{id: c, input: 1}]
            run:
              python: other_errors:wrong
              retries: {attempts: 4, initial: 0, on: [flaky_errors.Flaky]}
            variants: {base: {}}
        """
    (run,) = _run(_spec(tmp_path, body, "other_errors", ERRORS_TASK)).runs
    assert run.status.value == "errored" and run.errors[0].type == "ValueError"
    assert run.attempts == ()  # one attempt: nothing written
    assert sys.modules["other_errors"].seen == ["c"]


TIMEOUT_TASK = """\
import asyncio
import threading

release = threading.Event()
finished = []
calls = []


async def slow_async(ctx, case):
    calls.append(1)
    if len(calls) == 1 or case.input == "always":
        await asyncio.sleep(30)
    return "fast"


def slow_sync(ctx, case):
    calls.append(1)
    if len(calls) == 1 or case.input == "always":
        release.wait(30)
        finished.append("late")
        return "late"
    return "fast"
"""


@pytest.mark.parametrize("target", ["slow_async", "slow_sync"])
def test_a_call_past_its_timeout_errors_with_stage_timeout(tmp_path: Path, target: str) -> None:
    module = f"timeout_{target}"
    body = f"""
        benchmark:
          timeouts:
            cases: [{{id: c, input: always}}]
            run: {{python: "{module}:{target}", timeout: 0.2}}
            variants: {{base: {{}}}}
        """
    (run,) = _run(_spec(tmp_path, body, module, TIMEOUT_TASK)).runs
    assert run.status.value == "errored" and run.output is None
    (error,) = run.errors
    assert error.stage == "timeout" and error.type == "TimeoutError"
    assert "timeout of 0.2 s" in error.message
    if target == "slow_sync":
        # The sync call could not be interrupted: it ends later and its result is discarded.
        task = sys.modules[module]
        task.release.set()
        for _ in range(200):
            if task.finished:
                break
            asyncio.run(asyncio.sleep(0.01))
        assert task.finished == ["late"] and run.output is None


@pytest.mark.parametrize("target", ["slow_async", "slow_sync"])
def test_a_timed_out_call_is_retried_on_timeout_error(tmp_path: Path, target: str) -> None:
    module = f"retimeout_{target}"
    body = f"""
        benchmark:
          timeouts:
            cases: [{{id: c, input: once}}]
            run:
              python: "{module}:{target}"
              timeout: 0.2
              retries: {{attempts: 2, initial: 0, on: [TimeoutError]}}
            variants: {{base: {{}}}}
        """
    (run,) = _run(_spec(tmp_path, body, module, TIMEOUT_TASK)).runs
    sys.modules[module].release.set()
    assert run.status.value == "passed" and run.output == "fast"
    first, second = run.attempts
    assert first.error is not None and first.error.stage == "timeout"
    assert first.error.type == "TimeoutError" and "timeout of 0.2 s" in first.error.message
    assert second.error is None


RATE_TASK = """\
import threading
import time

import httpx
import openai

stamps = []
in_flight = [0, 0]  # now, most seen
lock = threading.Lock()


def handler(request):
    with lock:
        stamps.append(time.monotonic())
        in_flight[0] += 1
        in_flight[1] = max(in_flight)
    time.sleep(0.05)
    with lock:
        in_flight[0] -= 1
    return httpx.Response(
        200,
        json={
            "id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                         "finish_reason": "stop"}],
        },
    )


client = openai.OpenAI(
    api_key="x",
    base_url="http://test/v1",
    http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    max_retries=0,
)


def run_case(ctx, case):
    return client.chat.completions.create(
        model=ctx.factor("model"), messages=[{"role": "user", "content": "hi"}]
    ).choices[0].message.content


async def async_handler(request):
    import asyncio

    stamps.append(time.monotonic())
    in_flight[0] += 1
    in_flight[1] = max(in_flight)
    await asyncio.sleep(0.05)
    in_flight[0] -= 1
    return httpx.Response(200, json=REPLY)


REPLY = {
    "id": "c", "object": "chat.completion", "created": 0, "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                 "finish_reason": "stop"}],
}


async def run_case_async(ctx, case):
    client = openai.AsyncOpenAI(
        api_key="x",
        base_url="http://test/v1",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(async_handler)),
        max_retries=0,
    )
    reply = await client.chat.completions.create(
        model=ctx.factor("model"), messages=[{"role": "user", "content": "hi"}]
    )
    return reply.choices[0].message.content
"""


@pytest.mark.parametrize("target", ["run_case", "run_case_async"])
def test_requests_per_minute_and_concurrency_hold_across_concurrent_runs(
    tmp_path: Path, target: str
) -> None:
    # 600 requests per minute: starts at least 0.1 s apart; at most 2 calls at once.
    module = f"rate_{target}"
    cases = ", ".join(f"{{id: c{index}, input: {index}}}" for index in range(8))
    body = f"""
        benchmark:
          limited:
            cases: [{cases}]
            run: {{python: "{module}:{target}"}}
            variants:
              small: {{factors: {{model: gpt-small}}}}
            limits:
              model: {{requests_per_minute: 600, max_concurrency: 2}}
        """
    result = _run(_spec(tmp_path, body, module, RATE_TASK), concurrency=8)
    assert all(run.status.value == "passed" for run in result.runs)
    task = sys.modules[module]
    stamps = sorted(task.stamps)
    assert len(stamps) == 8
    # No more than 2 requests in any window of 0.1 s (the limit allows one per 0.1 s: a
    # window of that length can hold the requests at both of its ends, never a third).
    assert all(later - earlier > 0.1 for earlier, later in zip(stamps, stamps[2:], strict=False))
    assert task.in_flight[1] <= 2
    queues = [_queue(run) for run in result.runs]
    assert all(queue is not None and queue >= 0 for queue in queues)
    # The 8th start is at least 0.7 s after the first: some run waited for most of it,
    # and that wait is in time.queue, not in the run's duration.
    waited = max(result.runs, key=_queue)
    assert _queue(waited) >= 0.5
    assert waited.run.duration is not None and waited.run.duration < _queue(waited)


def _queue(run: RunRecord) -> float:
    (queue,) = [o.value for o in run.observations if o.semantic_type == "time.queue"]
    return float(queue)


def test_runs_of_other_factor_values_do_not_share_a_budget(tmp_path: Path) -> None:
    body = """
        benchmark:
          split:
            cases: [{id: a, input: 1}]
            run: {python: split_task:run_case}
            variants:
              one: {factors: {model: m1}}
              two: {factors: {model: m2}}
              same: {factors: {model: m1}, label: m1 again}
              none: {}
            limits:
              model: {requests_per_minute: 6}
        """
    source = "def run_case(ctx, case):\n    return ctx.variant.id\n"
    path = _spec(tmp_path, body, "split_task", source)
    spec = load_benchmark_spec(path)
    assert [limit_keys(spec.limits, variant) for variant in spec.variants] == [
        (("model", "m1"),),
        (("model", "m2"),),
        (("model", "m1"),),
        (),
    ]
    # At 6 per minute a shared budget holds its second run for 10 s: m1 and m2 each start
    # at once, and the run without the factor records no queue. (The second m1 run is
    # not executed here: it would wait those 10 s; test_requests_per_minute... shows it.)
    spec = spec.model_copy(update={"variants": spec.variants[:2] + spec.variants[3:]})
    result = asyncio.run(run_benchmark_spec(spec, concurrency_limit=3))
    queued = {
        run.variant_id: [o.value for o in run.observations if o.semantic_type == "time.queue"]
        for run in result.runs
    }
    assert queued["none"] == []
    assert queued["one"][0] < 5 and queued["two"][0] < 5


class _FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)
        await asyncio.sleep(0)


def test_local_limits_space_requests_and_charge_tokens_after_the_call() -> None:
    async def scenario() -> tuple[list[float], list[float]]:
        clock = _FakeClock()
        limits = LocalLimits(
            {"model": LimitSpec(requests_per_minute=120, tokens_per_minute=600)},
            clock=clock,
            sleep=clock.sleep,
        )
        key = ("model", "m")
        starts: list[float] = []
        waits: list[float] = []
        for tokens in (0, 0, 900, 0):
            waits.append(await limits.acquire(key))
            starts.append(clock.now)
            await limits.release(key)
            await limits.charge(key, tokens)
        return starts, waits

    starts, waits = asyncio.run(scenario())
    # 120/min: 0.5 s apart. The third call used 900 of 600 tokens: the bucket is 300
    # below zero after it, and refills at 10 tokens/s, so the next call waits 30 s.
    assert starts[:3] == [0.0, 0.5, 1.0]
    assert starts[3] == pytest.approx(31.0, abs=0.01)
    assert waits[0] == 0.0 and waits[3] == pytest.approx(30.0, abs=0.01)


def test_local_limits_hold_max_concurrency_first_come_first_served() -> None:
    async def scenario() -> list[str]:
        limits = LocalLimits({"model": LimitSpec(max_concurrency=1)})
        key = ("model", "m")
        order: list[str] = []

        async def call(name: str) -> None:
            await limits.acquire(key)
            order.append(f"{name}+")
            await asyncio.sleep(0.01)
            order.append(f"{name}-")
            await limits.release(key)

        await asyncio.gather(call("a"), call("b"), call("c"))
        return order

    assert asyncio.run(scenario()) == ["a+", "a-", "b+", "b-", "c+", "c-"]


def test_unknown_keys_are_unlimited() -> None:
    limits = LocalLimits({"model": LimitSpec(max_concurrency=1)})
    assert asyncio.run(limits.acquire(("other", "x"))) == 0.0
    assert limit_keys({"model": LimitSpec(max_concurrency=1)}, Variant(id="v")) == ()


BASE = """\
benchmark:
  bad:
    cases: [{id: c, input: 1}]
    run:
      python: tasks:run
      RUN
    variants:
      v: {factors: {model: m}}
LIMITS"""


@pytest.mark.parametrize(
    ("run", "limits", "where", "message"),
    [
        ("retries: {on: [openai.NoSuchError]}", "", "6:22", "has no attribute 'NoSuchError'"),
        ("retries: {on: [NotABuiltin]}", "", "6:22", "'NotABuiltin' is not a builtin"),
        ("retries: {on: [no_such_module.Error]}", "", "6:22", "no module named 'no_such_module'"),
        ("retries: {on: [os.path]}", "", "6:22", "'os.path' is not an exception class"),
        ("retries: {attempts: x}", "", "6:27", "'attempts' of retries"),
        ("retries: {attempts: 0}", "", "6:27", "'attempts' of retries"),
        ("retries: {backoff: linear}", "", "6:26", "'backoff' of retries"),
        ("retries: {tries: 3}", "", "6:17", "unknown key 'tries' in retries"),
        ("retries: {initial: 5, max: 1}", "", "6:34", "below retries.initial"),
        ("timeout: -1", "", "6:16", "timeout must be a positive number"),
        ("timeout: soon", "", "6:16", "timeout must be a positive number"),
        ("retry: {}", "", "6:7", "unknown key 'retry' in run"),
        ("timeout: 1", "    limits: {modle: {max_concurrency: 1}}", "9:14", "factor 'modle'"),
        ("timeout: 1", "    limits: {model: {max_concurrency: 0}}", "9:39", "max_concurrency"),
        ("timeout: 1", "    limits: {model: {rpm: 5}}", "9:22", "unknown key 'rpm'"),
        ("timeout: 1", "    limits: {model: {}}", "9:21", "a limit needs"),
        ("timeout: 1", "    limits: [model]", "9:13", "limits must be a mapping"),
    ],
)
def test_bad_settings_are_located(
    tmp_path: Path, run: str, limits: str, where: str, message: str
) -> None:
    path = tmp_path / "autobench.yaml"
    path.write_text(BASE.replace("RUN", run).replace("LIMITS", limits), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_benchmark_spec(path)
    assert str(caught.value).startswith(f"{path}:{where}: "), str(caught.value)
    assert message in str(caught.value)


def test_settings_dump_and_load_back_in_both_forms(tmp_path: Path) -> None:
    (tmp_path / "flaky_errors.py").write_text("class Flaky(Exception):\n    pass\n")
    text = BASE.replace(
        "RUN",
        "timeout: 30\n      retries: {attempts: 5, backoff: jitter, on: [flaky_errors.Flaky]}",
    ).replace("LIMITS", "    limits: {model: {requests_per_minute: 500, tokens_per_minute: 30000}}")
    path = tmp_path / "autobench.yaml"
    path.write_text(text, encoding="utf-8")
    spec = load_benchmark_spec(path)
    assert spec.task is not None and spec.task.timeout == 30
    assert spec.task.retries is not None and spec.task.retries.on == ("flaky_errors.Flaky",)
    dumped = dump_benchmark_spec(spec)
    (tmp_path / "again.yaml").write_text(dumped, encoding="utf-8")
    assert load_benchmark_spec(tmp_path / "again.yaml").model_dump() == spec.model_dump()
    structured = tmp_path / "structured.yaml"
    structured.write_text(
        textwrap.dedent(
            """
            benchmark: {id: bad}
            dataset: {cases: [{id: c, input: 1}]}
            task:
              target: tasks:run
              timeout: 30
              retries: {attempts: 5, backoff: jitter, on: [flaky_errors.Flaky]}
            variants: [{id: v, factors: {model: m}}]
            limits: {model: {requests_per_minute: 500, tokens_per_minute: 30000}}
            """
        ),
        encoding="utf-8",
    )
    assert load_benchmark_spec(structured).model_dump() == spec.model_dump()


def test_the_cli_runs_a_retried_spec(tmp_path: Path) -> None:
    (tmp_path / "flaky_errors.py").write_text("class Flaky(Exception):\n    pass\n")
    body = """
        benchmark:
          retry-cli:
            cases: [{id: c, input: 1}]
            run:
              python: cli_errors:run_case
              retries: {attempts: 3, initial: 0, on: [flaky_errors.Flaky]}
            variants: {base: {}}
        """
    path = _spec(tmp_path, body, "cli_errors", ERRORS_TASK)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(path), "--record", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    (run,) = replay_experiment(out).runs
    assert run.status.value == "passed" and len(run.attempts) == 3


def test_the_builder_sets_timeout_retries_and_limits(tmp_path: Path) -> None:
    import openai

    from autobench.core.builder import Benchmark

    builder = (
        Benchmark("built")
        .dataset([{"id": "c", "input": 1}])
        .variants([{"id": "v", "factors": {"model": "m"}}])
        .task(
            "tasks:run",
            timeout=5,
            retries={"attempts": 2, "on": [openai.RateLimitError, TimeoutError, "os.error"]},
        )
        .limit("model", requests_per_minute=100)
        .limit("model", max_concurrency=2)
    )
    spec = builder.to_spec()
    assert spec.task is not None and spec.task.timeout == 5
    assert spec.task.retries is not None
    assert spec.task.retries.on == ("openai.RateLimitError", "TimeoutError", "os.error")
    assert spec.limits == {"model": LimitSpec(max_concurrency=2)}
    dumped = dump_benchmark_spec(spec)
    assert "timeout: 5" in dumped and "max_concurrency: 2" in dumped
    with pytest.raises(ValueError, match="no variant has"):
        builder.limit("provider", max_concurrency=1).to_spec()
    with pytest.raises(ValueError, match="a limit needs"):
        builder.limit("model")
    local = type("Local", (Exception,), {})
    with pytest.raises(ValueError, match="does not import back"):
        builder.task("tasks:run", retries={"on": [local]})


TOKEN_TASK = """\
import time

import httpx
import openai

stamps = []


def handler(request):
    stamps.append(time.monotonic())
    return httpx.Response(
        200,
        json={
            "id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 6000, "completion_tokens": 20, "total_tokens": 6020},
        },
    )


client = openai.OpenAI(
    api_key="x",
    base_url="http://test/v1",
    http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    max_retries=0,
)


def run_case(ctx, case):
    return client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}]
    ).choices[0].message.content
"""


def test_tokens_an_instrumented_call_used_count_against_the_budget(tmp_path: Path) -> None:
    # 6,000 tokens a minute (100 a second): the first call finds the bucket full and uses
    # 6,020 of it (known only after the call, from the usage the OpenAI instrumentor
    # records); the bucket is then 20 below zero, so the next call waits 0.2 s for it.
    body = """
        benchmark:
          tokens:
            cases: [{id: a, input: 1}, {id: b, input: 2}]
            run: {python: token_task:run_case}
            variants: {v: {factors: {model: m}}}
            instrumentation: {openai: {}}
            limits: {model: {tokens_per_minute: 6000}}
        """
    result = _run(_spec(tmp_path, body, "token_task", TOKEN_TASK))
    first, second = result.runs
    used = {o.semantic_type: o.value for o in first.observations}
    assert (used["llm.tokens.input"], used["llm.tokens.output"]) == (6000, 20)
    assert _queue(second) >= 0.15 and _queue(first) < _queue(second)
    stamps = sys.modules["token_task"].stamps
    assert stamps[1] - stamps[0] >= 0.15


def test_cancelled_during_a_backoff_the_run_is_left_for_resume(tmp_path: Path) -> None:
    (tmp_path / "flaky_errors.py").write_text("class Flaky(Exception):\n    pass\n")
    source = (
        "import flaky_errors\n\n\nasync def run_case(ctx, case):\n"
        "    raise flaky_errors.Flaky('again')\n"
    )
    body = """
        benchmark:
          backoff:
            cases: [{id: c, input: 1}]
            run:
              python: backoff_task:run_case
              retries: {attempts: 3, backoff: fixed, initial: 30, on: [flaky_errors.Flaky]}
            variants: {base: {}}
        """
    spec = load_benchmark_spec(_spec(tmp_path, body, "backoff_task", source))
    out = tmp_path / "out"

    async def cancel_soon() -> None:
        running = asyncio.ensure_future(run_benchmark_spec(spec, sink=RecordDirectoryWriter(out)))
        await asyncio.sleep(0.3)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    asyncio.run(cancel_soon())
    assert not (out / "cases/c/base/run.yaml").exists()
    assert "complete: false" in (out / "summary.yaml").read_text(encoding="utf-8")


def test_tokens_used_counts_each_call_once() -> None:
    from types import SimpleNamespace

    from autobench.core.runtime._run import tokens_used

    def span(usage: dict[str, object], **attributes: object) -> SimpleNamespace:
        return SimpleNamespace(usage=usage, attributes=attributes)

    trace = SimpleNamespace(
        spans=[
            span({"input_tokens": 6000, "output_tokens": 20}),
            span({"total_tokens": 7, "input_tokens": 5}),
            span({"prompt_tokens": "n/a", "completion_tokens": 3}),
            span({"total_tokens": 100, "aggregate": True}),  # a sum of the others
            span({"total_tokens": 100}, accounting="aggregate"),
            span({}),
        ]
    )
    assert tokens_used(trace) == 6000 + 20 + 7 + 3  # type: ignore[arg-type]
    assert tokens_used(None) == 0


@pytest.mark.parametrize(
    ("backoff", "expected"),
    [("fixed", [1.5, 1.5, 1.5, 1.5]), ("exponential", [1.5, 3.0, 6.0, 10.0])],
)
def test_retry_delay_after_each_attempt_follows_the_backoff(
    backoff: str, expected: list[float]
) -> None:
    from autobench.core.runtime._retry import RetryPolicy
    from autobench.core.spec._models import RetrySpec

    policy = RetryPolicy.of(
        RetrySpec(attempts=5, backoff=backoff, initial=1.5, max=10.0), base_dir=None
    )
    assert [policy.delay(attempt) for attempt in range(1, 5)] == expected
    jitter = RetryPolicy.of(
        RetrySpec(attempts=5, backoff="jitter", initial=1.5, max=10.0), base_dir=None
    )
    assert all(
        0 <= jitter.delay(attempt) <= min(10.0, 1.5 * 2 ** (attempt - 1)) for attempt in range(1, 5)
    )
