"""OpenAI instrumentation budget: extra time per chat completion over ``httpx2.MockTransport``.

    uv run python tools/bench_openai.py [--calls 1000] [--repeat 7] [--block 50]

A sample makes ``--calls`` calls with the real ``openai.OpenAI`` client in each
configuration: plain (nothing installed), the OpenAI instrumentor installed but
called outside a run, the OpenAI instrumentor inside the run, and the OpenAI and
HTTPX instrumentors together when ``autobench.instrument.httpx`` is importable.
Each configuration's calls go into one trace (its own collector and root span,
kept open for the whole sample). The configurations take turns in blocks of
``--block`` calls (installing and uninstalling between blocks, outside the
timed calls), so a slow spell of a shared machine hits all of them alike.
Every call is timed (``time.perf_counter_ns``); a sample's figure is its median
call, and ``extra`` is that minus plain's in the same sample. Both a
non-streamed call and a streamed one (``stream=True``, five chunks read to the
end) are measured, and a call whose ``client.post`` answers at once (the
instrumentation's own cost, with little SDK work around it to evict it from the
CPU caches).

Budget: under 60 us extra per call with the OpenAI instrumentor (median of the
samples). The figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextvars
import gc
import json
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import httpx2
import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from autobench.abp import InstrumentationManager, TraceCollector, bind_collector, start_span
from autobench.instrument.openai import create as openai_instrumentor

try:
    from autobench.instrument.httpx import create as httpx_instrumentor
except ImportError:
    httpx_instrumentor = None

BUDGET_US = 60.0
MESSAGES: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hello"}]
_COMPLETION = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-bench",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }
).encode()
_CHUNKS = [
    b"data: "
    + json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "gpt-bench",
            "choices": [{"index": 0, "delta": {"content": f"w{index}"}, "finish_reason": None}],
        }
    ).encode()
    + b"\n\n"
    for index in range(5)
] + [b"data: [DONE]\n\n"]


def _body() -> Iterator[bytes]:
    yield from _CHUNKS


def _handler(request: httpx2.Request) -> httpx2.Response:
    if b'"stream":true' in request.content.replace(b" ", b""):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=_body())
    return httpx2.Response(200, headers={"content-type": "application/json"}, content=_COMPLETION)


def _client() -> openai.OpenAI:
    transport = httpx2.MockTransport(_handler)
    return openai.OpenAI(
        api_key="bench", max_retries=0, http_client=httpx2.Client(transport=transport)
    )


class _AnsweringClient(openai.OpenAI):
    """The real client whose ``post`` returns a prepared ``ChatCompletion`` at once: what is
    left is the SDK's request building and the instrumentation, without HTTP or parsing."""

    answer = ChatCompletion.model_validate_json(_COMPLETION)

    def post(self, *args: Any, **kwargs: Any) -> Any:
        return self.answer


def _answering() -> openai.OpenAI:
    return _AnsweringClient(api_key="bench", max_retries=0)


def _call(client: openai.OpenAI) -> None:
    client.chat.completions.create(model="gpt-bench", messages=MESSAGES)


def _stream(client: openai.OpenAI) -> None:
    for _ in client.chat.completions.create(model="gpt-bench", messages=MESSAGES, stream=True):
        pass


class _Configuration:
    """One configuration: which instrumentors are installed and the trace its calls go to."""

    def __init__(self, name: str, *, with_openai: bool, with_httpx: bool, in_run: bool) -> None:
        self.name = name
        self.with_openai = with_openai
        self.with_httpx = with_httpx
        self.context = contextvars.copy_context()
        self.trace = ExitStack()
        if in_run:
            self.context.run(self._open_run)

    def _open_run(self) -> None:
        self.trace.enter_context(bind_collector(TraceCollector()))
        self.trace.enter_context(start_span("benchmark.run"))

    def block(
        self, manager: InstrumentationManager, work: Callable[[], None], calls: int
    ) -> list[int]:
        """Install this configuration's instrumentors, time ``calls`` calls, uninstall."""
        handles = []
        if self.with_openai:
            handles.append(manager.install(openai_instrumentor(None)))
        if self.with_httpx and httpx_instrumentor is not None:
            handles.append(manager.install(httpx_instrumentor(None)))
        try:
            return self.context.run(_timed, work, calls)
        finally:
            for handle in reversed(handles):
                handle.close()

    def close(self) -> None:
        self.context.run(self.trace.close)


def _timed(work: Callable[[], None], calls: int) -> list[int]:
    clock = time.perf_counter_ns
    durations = []
    for _ in range(calls):
        started = clock()
        work()
        durations.append(clock() - started)
    return durations


def _configurations() -> list[_Configuration]:
    found = [
        _Configuration("plain", with_openai=False, with_httpx=False, in_run=True),
        _Configuration("openai, no run", with_openai=True, with_httpx=False, in_run=False),
        _Configuration("openai", with_openai=True, with_httpx=False, in_run=True),
    ]
    if httpx_instrumentor is not None:
        found.append(
            _Configuration("openai + httpx", with_openai=True, with_httpx=True, in_run=True)
        )
    return found


def sample(
    work: Callable[[openai.OpenAI], None],
    calls: int,
    block: int,
    make_client: Callable[[], openai.OpenAI] = _client,
) -> dict[str, float]:
    """Median microseconds per call of every configuration, in one interleaved sample."""
    client = make_client()
    configurations = _configurations()
    durations: dict[str, list[int]] = {item.name: [] for item in configurations}
    with InstrumentationManager() as manager:
        for item in configurations:  # warm up every path
            item.block(manager, lambda: work(client), 5)
        gc.collect()
        done = 0
        while done < calls:
            size = min(block, calls - done)
            for item in configurations:
                durations[item.name] += item.block(manager, lambda: work(client), size)
            done += size
    for item in configurations:
        item.close()
    return {name: statistics.median(values) / 1e3 for name, values in durations.items()}


def report(title: str, samples: list[dict[str, float]]) -> float:
    """Print the figures of one workload; return the OpenAI instrumentor's median extra (us)."""
    print(title)
    heading = f"{'median':>9} {'min':>9} {'max':>9} {'extra':>8} {'extra min':>9} {'extra max':>9}"
    print(f"  {'configuration':<16} {heading} {'ratio':>6}")
    extras: dict[str, float] = {}
    plain = [figures["plain"] for figures in samples]
    for name in samples[0]:
        values = [figures[name] for figures in samples]
        extra = [figures[name] - figures["plain"] for figures in samples]
        extras[name] = statistics.median(extra)
        print(
            f"  {name:<16} {statistics.median(values):9.1f} {min(values):9.1f} "
            f"{max(values):9.1f} {extras[name]:8.1f} {min(extra):9.1f} {max(extra):9.1f} "
            f"{statistics.median(values) / statistics.median(plain):5.2f}x"
        )
    verdict = "within" if extras["openai"] < BUDGET_US else "OVER"
    print(
        f"  OpenAI instrumentor: {extras['openai']:.1f} us extra per call ({verdict} {BUDGET_US:.0f} us)"
    )
    return extras["openai"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=1_000, help="calls per configuration")
    parser.add_argument("--repeat", type=int, default=7, help="samples (default 7)")
    parser.add_argument("--block", type=int, default=50, help="calls per turn (default 50)")
    options = parser.parse_args()
    print(
        f"openai {openai.__version__}: {options.calls:,} calls per configuration and sample, "
        f"{options.repeat} samples, turns of {options.block} calls; microseconds per call"
    )
    workloads = (
        ("chat completion", _call, _client),
        ("streamed chat completion (5 chunks)", _stream, _client),
        ("chat completion answered by client.post (no HTTP, no parsing)", _call, _answering),
    )
    for title, work, make_client in workloads:
        samples = [
            sample(work, options.calls, options.block, make_client) for _ in range(options.repeat)
        ]
        report(title, samples)


if __name__ == "__main__":
    main()
