"""Budgets of cassettes (``autobench run --cassette``; docs/cassettes.md quotes the figures).

    uv run python tools/bench_cassette.py
    uv run python tools/bench_cassette.py --requests 200 --messages 20 --chunks 10000

``replay``: inside a run's context, an ``httpx.Client`` sends ``--requests`` chat
completion requests (each body a conversation of ``--messages`` messages, about 4 KB of
JSON at 20, all different), first to an ``httpx.MockTransport`` answering at once (the
live baseline: the transport builds the response), then answered from a cassette of the
same requests. The difference of the two, per request, is what replaying adds to a call
(normalising and matching the request, building the response from the recorded chunks).
Budget: under 100 microseconds. Both loops are timed best of five.

``stream``: a response of ``--chunks`` server-sent-event chunks (about 120 bytes each) is
read through the recording transport; the recorded cassette is written to a file
(``dump_cassette``) and read back (``load_cassette``). Budget: write and read under 1 s.
The time the recording adds to reading the stream is printed beside it.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx

from autobench.abp._cassette import RunCassette, bind_cassette, dump_cassette, load_cassette
from autobench.instrument.httpx._cassette import install_cassettes

URL = "https://api.openai.com/v1/chat/completions"
ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "gpt-test",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "A short answer."}}],
    "usage": {"prompt_tokens": 900, "completion_tokens": 20, "total_tokens": 920},
}


def _bodies(requests: int, messages: int) -> list[dict[str, object]]:
    turn = "Please look up the order and tell me when it ships, with the policy you used. " * 2
    return [
        {
            "model": "gpt-test",
            "temperature": 0,
            "messages": [
                {"role": "system", "content": "You are a support assistant."},
                *({"role": "user", "content": f"{index}:{n} {turn}"} for n in range(messages)),
            ],
        }
        for index in range(requests)
    ]


def _best(loop: Callable[[], None], repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        loop()
        times.append(time.perf_counter() - started)
    return min(times)


def replay(requests: int, messages: int) -> None:
    bodies = _bodies(requests, messages)
    answer = json.dumps(ANSWER).encode()
    live = httpx.Client(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, content=answer))
    )
    recording = RunCassette("record")
    with bind_cassette(recording):
        for body in bodies:
            live.post(URL, json=body, headers={"authorization": "Bearer sk-bench"})
    recorded = load_cassette(dump_cassette(recording.exchanges))

    def send_live() -> None:
        with bind_cassette(None):
            for body in bodies:
                live.post(URL, json=body)

    dead = httpx.Client(transport=httpx.MockTransport(lambda request: 1 / 0))

    def send_replayed() -> None:
        with bind_cassette(RunCassette("replay", recorded)):
            for body in bodies:
                dead.post(URL, json=body)

    baseline, replayed = _best(send_live), _best(send_replayed)
    size = len(json.dumps(bodies[0]))
    added = (replayed - baseline) / requests * 1e6
    print(f"replay: {requests} requests of a {size}-byte JSON body ({messages} messages)")
    print(f"  live over MockTransport: {baseline / requests * 1e6:.1f} us per request")
    print(f"  replayed from the cassette: {replayed / requests * 1e6:.1f} us per request")
    print(f"  replaying adds: {added:.1f} us per request (budget 100 us)")


class _Events(httpx.SyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks


def stream(chunks: int) -> None:
    event = {"object": "chat.completion.chunk", "choices": [{"delta": {"content": "word "}}]}
    data = [f"data: {json.dumps({'id': n, **event})}\n\n".encode() for n in range(chunks)]
    client = httpx.Client(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, stream=_Events(data)))
    )

    def read(cassette: RunCassette | None) -> None:
        with bind_cassette(cassette), client.stream("POST", URL, json={"stream": True}) as response:
            for _ in response.iter_raw():
                pass

    plain = _best(lambda: read(None), 3)
    cassette = RunCassette("record")
    started = time.perf_counter()
    read(cassette)
    recorded_read = time.perf_counter() - started
    assert len(cassette.exchanges[0].chunks) == chunks
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "cassette.json"
        started = time.perf_counter()
        path.write_bytes(dump_cassette(cassette.exchanges))
        written = time.perf_counter() - started
        started = time.perf_counter()
        (back,) = load_cassette(path.read_bytes(), source=str(path))
        loaded = time.perf_counter() - started
        size = path.stat().st_size
    assert back.chunks == data
    print(f"stream: {chunks} chunks, cassette file {size / 1e6:.2f} MB")
    print(
        f"  write {written * 1000:.0f} ms + read {loaded * 1000:.0f} ms = "
        f"{(written + loaded) * 1000:.0f} ms (budget 1000 ms)"
    )
    print(
        f"  reading the stream: {plain * 1000:.0f} ms, recording it: {recorded_read * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=10_000)
    args = parser.parse_args()
    install_cassettes()
    replay(args.requests, args.messages)
    stream(args.chunks)


if __name__ == "__main__":
    main()
