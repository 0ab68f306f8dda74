"""Application classes and tasks for the method-instrumentation tests (written to tmp_path)."""

TASK_SOURCE = """
import asyncio
import contextlib
import gc
import time

from autobench import suppress_instrumentation
from autobench.abp import active_collector

ERROR = LookupError("boom")


class Usage:
    def __init__(self, requests):
        self.requests = requests


class Result:
    def __init__(self, items, requests):
        self.items = items
        self.usage = Usage(requests)

    def count(self):
        return len(self.items)


class BaseClient:
    def __init__(self, name):
        self.name = name

    def search(self, query, *, limit=2):
        time.sleep(0.001)
        return Result([query] * limit, 3)

    @staticmethod
    def normalize(text):
        return text.strip().lower()

    @classmethod
    def create(cls, name):
        return cls(name)

    async def asearch(self, query):
        await asyncio.sleep(0.001)
        return Result([query], 1)

    def fail(self):
        raise ERROR

    async def afail(self):
        raise ERROR

    def stream(self, n):
        for index in range(n):
            time.sleep(0.002)
            received = yield index
            if received is not None:
                yield f"got {received}"

    def tolerant(self):
        while True:
            try:
                yield "ready"
            except ValueError:
                yield "recovered"

    async def astream(self, n):
        for index in range(n):
            await asyncio.sleep(0.002)
            received = yield index
            if received is not None:
                yield f"got {received}"

    @contextlib.contextmanager
    def session(self):
        time.sleep(0.001)
        yield "session"

    @contextlib.asynccontextmanager
    async def asession(self):
        await asyncio.sleep(0.001)
        yield "asession"


class Client(BaseClient):
    pass


def _span(operation):
    spans = [s for s in active_collector().materialize().spans if s.operation == operation]
    return spans[-1]


def calls(ctx, case):
    with ctx.span("outer"):
        client = Client.create("x")
        found = client.search("q", limit=3)
        normal = Client.normalize("  A ")
    return {"count": len(found.items), "normal": normal, "name": client.name}


async def async_calls(ctx, case):
    client = Client("x")
    found = await client.asearch("q")
    try:
        await client.afail()
    except LookupError as exc:
        same = exc is ERROR
    return {"count": len(found.items), "same": same}


def failing(ctx, case):
    client = Client("x")
    try:
        client.fail()
    except LookupError as exc:
        return {"same": exc is ERROR}
    return {"same": False}


def streams(ctx, case):
    client = Client("x")
    gen = client.stream(3)
    before = _span("stream")
    first = next(gen)
    during = _span("stream")
    rest = list(gen)
    after = _span("stream")
    return {
        "items": [first, *rest],
        "before_partial": before.partial,
        "before_duration": before.duration,
        "during_partial": during.partial,
        "after_partial": after.partial,
        "after_duration": after.duration,
    }


def stream_protocol(ctx, case):
    client = Client("x")
    gen = client.stream(3)
    first = next(gen)
    echoed = gen.send("hello")
    tolerant = client.tolerant()
    ready = next(tolerant)
    recovered = tolerant.throw(ValueError("x"))
    tolerant.close()
    gen.close()
    abandoned = client.stream(5)
    next(abandoned)
    del abandoned
    gc.collect()
    return {"first": first, "echoed": echoed, "ready": ready, "recovered": recovered}


async def async_streams(ctx, case):
    client = Client("x")
    agen = client.astream(3)
    first = await agen.__anext__()
    echoed = await agen.asend("hello")
    rest = [item async for item in agen]
    early = client.astream(3)
    await early.__anext__()
    await early.aclose()
    failing = client.astream(3)
    await failing.__anext__()
    try:
        await failing.athrow(ERROR)
    except LookupError as exc:
        same = exc is ERROR
    return {"first": first, "echoed": echoed, "rest": rest, "same": same}


def context_managers(ctx, case):
    client = Client("x")
    with client.session() as value:
        client.search("inner")
    return {"value": value}


async def async_context_managers(ctx, case):
    client = Client("x")
    async with client.asession() as value:
        await client.asearch("inner")
    return {"value": value}


async def suppressed(ctx, case):
    client = Client("x")

    async def quiet():
        with suppress_instrumentation("search"):
            await client.asearch("quiet")
            await asyncio.sleep(0.005)
            await client.asearch("quiet-again")

    async def loud():
        await asyncio.sleep(0.002)
        await client.asearch("loud")

    await asyncio.gather(quiet(), loud())
    with suppress_instrumentation("other.family"):
        with suppress_instrumentation():
            client.search("all-suppressed")
        client.search("only-other-suppressed")
    try:
        with suppress_instrumentation():
            raise ERROR
    except LookupError:
        pass
    client.search("after-raise")
    return {}
"""
