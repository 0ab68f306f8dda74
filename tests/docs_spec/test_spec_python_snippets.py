"""Every Python snippet of the product specification runs as printed.

The fenced ``python`` blocks are read from the spec file at test time (it lives beside the
repository, in ``../shared/spec``; without it, as on CI, which clones only the repository, the
test skips). Each block runs in a fresh working directory, in a fresh namespace:

- as a script, by default;
- inside a real run (``IN_TASK``), for blocks that use the ``ctx`` and ``case`` a task
  receives: they become the body of the task of a one-case benchmark;
- as an asyncio REPL or notebook cell runs it (``AWAITING``), for blocks that ``await`` at
  top level.

A block may get a prelude (``PRELUDES``): stubs for names it calls but never defines (user
functions, user modules, a previous snippet's variables) and the files it reads, listed with
the reason. Blocks that need the network, API keys or a Ray cluster are skipped (``SKIPPED``);
blocks that cannot run alone are listed as fragments (``FRAGMENTS``). Each list entry is keyed by
the sha256 of the block (its first ten hex digits), so an edited snippet runs plainly again and
is looked at afresh; a key that matches no block fails ``test_every_listed_block_exists``.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import textwrap
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import spec_world

SPEC = Path(__file__).resolve().parents[2] / ".." / "shared" / "spec" / "autobench-docs.md"

pytestmark = pytest.mark.skipif(
    not SPEC.is_file(),
    reason=f"the product spec is not beside the repository ({SPEC} is missing; CI clones only "
    "the repository)",
)


@dataclass(frozen=True)
class Block:
    line: int
    heading: str
    code: str

    @property
    def key(self) -> str:
        return hashlib.sha256(self.code.encode()).hexdigest()[:10]

    @property
    def label(self) -> str:
        return f"spec line {self.line} ({self.heading}) [{self.key}]"


def python_blocks(text: str) -> list[Block]:
    """The fenced ``python`` blocks of ``text``, dedented to their fence's indentation."""
    blocks: list[Block] = []
    heading = ""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped.startswith("#") and not line.startswith(" "):
            heading = stripped.lstrip("#").strip()
        if stripped.startswith("```"):
            language = stripped[3:].strip()
            indent = len(line) - len(line.lstrip())
            start = index + 1
            index += 1
            body: list[str] = []
            while index < len(lines) and lines[index].strip() != "```":
                body.append(lines[index][indent:])
                index += 1
            if language == "python":
                blocks.append(Block(start, heading, "\n".join(body) + "\n"))
        index += 1
    return blocks


# fmt: off
IN_TASK = {
    "33e3c2b9cd",  # 1139  ctx.span(..., duration_metric=DurationMetricSpec(...))
    "c5be52c8ff",  # 1284  three ctx.metric calls, one semantic type
    "22b8757531",  # 2910  ctx.span + record_pydantic_ai_usage inside a task
    "deadcad4cb",  # 4466  ctx.metric with direction and role
    "7792a075e8",  # 5135  measure_callable + ctx.record_measurement in a task
    "d65a6a67e5",  # 5717  attach_trace(ctx, TraceEnvelope(...))
    "65b50df638",  # 5781  record_pydantic_ai_usage(ctx, ...)
}

AWAITING = {
    "e70c0b060f",  # 2488  result = await run_benchmark_spec(spec, ...)
    "d93112632a",  # 7120  a validated BenchmarkSpec with a policy, awaited
    "928ba15c5b",  # 7229  await run_benchmark_path(...): see DIVERGES
}

DEMO = "spec_world.write_demo(WORK)\n"
RECORDED = "spec_world.run_demo(WORK, record='runs/demo')\n"
RUN_RECORD = (
    RECORDED + "from autobench import load_run_record\n"
    "run_dir = WORK / 'runs/demo'\n"
    "path = run_dir / 'cases/case_1/variant_1/run.yaml'\n"
)
LLM_CLIENT = '''
class LLMClient:  # the user's client the snippet instruments
    def complete(self, prompt):
        return {"text": "hi", "usage": {"input_tokens": 3, "output_tokens": 2,
                                        "model": "demo", "provider": "local"}}
'''

PRELUDES: dict[str, tuple[str, str]] = {
    # key: (reason, prelude source; WORK is the working directory, spec_world the helpers)
    "a56623769d": ("imports the user's app.router, which the spec never shows",
                   "spec_world.write_module(WORK, 'app.router', "
                   "'def route_ticket(message, prompt_version):\\n"
                   "    return {\"queue\": \"billing\", \"confidence\": 0.9, \"matched\": True}\\n')\n"),
    "111f729735": ("calls the user's call()", "def call():\n    return {'ok': True}\n"),
    "33e3c2b9cd": ("calls the user's call()", "def call():\n    return {'ok': True}\n"),
    "4b3445ee00": ("reads the measurement of the previous snippet",
                   "from autobench import measure_callable\n"
                   "measurement = measure_callable(lambda: sum(range(100)), repetitions=5)\n"),
    "e5cb06d977": ("continues the section: measure_callable, monotonic_ns and fn not imported",
                   "from time import monotonic_ns\nfrom autobench import measure_callable\n"
                   "def fn():\n    return sum(range(100))\n"),
    "c02f68b76a": ("reads the ScoringCall a python scorer receives",
                   "from autobench import Case, ScoringCall, Variant\n"
                   "call = ScoringCall(case=Case(id='c'), variant=Variant(id='v'), "
                   "output={'answer': 'ok'})\n"),
    "f3d91d7dc4": ("reads runs/demo, which the next snippet records", RECORDED),
    "1eb820821d": ("runs autobench.yaml of the working directory", DEMO),
    "397e45b267": ("runs the user's app.benchmarks.support:run_ticket_case",
                   "spec_world.write_module(WORK, 'app.benchmarks.support', "
                   "'def run_ticket_case(ctx, case):\\n"
                   "    return {\"matched\": True, \"queue\": \"billing\"}\\n')\n"),
    "e70c0b060f": ("awaits the spec built in the section", DEMO +
                   "from autobench import load_benchmark_spec, run_benchmark_spec\n"
                   "spec = load_benchmark_spec(WORK / 'autobench.yaml')\n"),
    "3b57fecb9c": ("runs the spec built in the section", DEMO +
                   "from autobench import load_benchmark_spec, run_benchmark_spec\n"
                   "spec = load_benchmark_spec(WORK / 'autobench.yaml')\n"),
    "e9a5d906fa": ("tracks ./prompts/support_router.md",
                   "spec_world.write_file(WORK, 'prompts/support_router.md', 'Route tickets.')\n"),
    "5e8eeda4f0": ("tracks ./prompts/router.md",
                   "spec_world.write_file(WORK, 'prompts/router.md', 'Route tickets.')\n"),
    "bbf34ca439": ("instruments the user's LLMClient", LLM_CLIENT),
    "820c596605": ("closes the handle of the previous snippet", LLM_CLIENT +
                   "from autobench import instrument_method\n"
                   "handle = instrument_method(LLMClient, 'complete')\n"),
    "22b8757531": ("uses the user's Pydantic AI agent (the SDK's offline TestModel here) and a "
                   "usage the snippet never builds",
                   "from pydantic_ai import Agent\nfrom pydantic_ai.models.test import TestModel\n"
                   "from autobench import PydanticAIUsage, record_pydantic_ai_usage\n"
                   "agent = Agent(TestModel())\n"
                   "usage = PydanticAIUsage(requests=1, input_tokens=10, output_tokens=2)\n"),
    "f7c87941b2": ("reads autobench.yaml of the working directory", DEMO),
    "f601a14184": ("uses the bridge of the previous snippet",
                   "from autobench import PydanticEvalsBridge\nbridge = PydanticEvalsBridge()\n"),
    "00ab9050eb": ("samples the production samples of the section",
                   "from datetime import UTC, datetime\n"
                   "from autobench import ProductionSample, SampleReason\n"
                   "samples = [ProductionSample(id=f'p{i}', input={'i': i}, "
                   "reason=SampleReason.FAILURE_ONLY, timestamp=datetime.now(UTC)) "
                   "for i in range(3)]\n"),
    "3f7f0d5c59": ("uses the registry of the previous snippet",
                   "from autobench import builtin_metric_pack_registry\n"
                   "registry = builtin_metric_pack_registry()\n"),
    "f59f30ac20": ("reads pricing/models.yaml (the section's pricing YAML)",
                   "spec_world.write_file(WORK, 'pricing/models.yaml', spec_world.PRICING_YAML)\n"),
    "b59a66b127": ("reads pricing/models.yaml; Path not imported",
                   "from pathlib import Path\n"
                   "spec_world.write_file(WORK, 'pricing/models.yaml', spec_world.PRICING_YAML)\n"),
    "cbd0f28a70": ("reads genai-prices.json and llm-prices.json; Path not imported",
                   "from pathlib import Path\nimport shutil\n"
                   "spec_world.write_file(WORK, 'genai-prices.json', spec_world.GENAI_PRICES)\n"
                   "shutil.copy(spec_world.LLM_PRICES, WORK / 'llm-prices.json')\n"),
    "cfb32d0428": ("reads runs/demo/cases/case_1/variant_1/run.yaml", RECORDED),
    "bdda1202e7": ("imports the user's app.reply, which the spec never shows",
                   "spec_world.write_module(WORK, 'app.reply', spec_world.APP_REPLY)\n"),
    "5aa0f476cb": ("annotates with RunContext and Case without importing them; calls the "
                   "user's call_application",
                   "from autobench import Case, RunContext\n"
                   "async def call_application(payload):\n    return None\n"),
    "d5180a8854": ("runs the user's benchmark_tasks:run_case",
                   "spec_world.write_module(WORK, 'benchmark_tasks', "
                   "'def run_case(ctx, case):\\n    return {\"ok\": True}\\n')\n"),
    "70a7eadf0e": ("queries the observations of a run record (a recorded demo run)",
                   RUN_RECORD + "result = load_run_record(path, root_dir=run_dir)\n"),
    "c234da93cb": ("continues the section: track not imported; reads prompts/support.md",
                   "from autobench import track\n"
                   "spec_world.write_file(WORK, 'prompts/support.md', 'Be kind.')\n"),
    "4c720d24e6": ("continues the section: track not imported", "from autobench import track\n"),
    "7792a075e8": ("calls the user's search()",
                   "def search(items, query):\n    return query in items\n"),
    "64c689f4e2": ("instruments the user's SearchClient and calls the user's run_benchmark()",
                   "class SearchClient:\n"
                   "    def search(self, query):\n        return ['a', 'b']\n"
                   "def run_benchmark():\n    SearchClient().search('q')\n"),
    "d1a7d86191": ("calls the user's client", "class Client:\n"
                   "    def search(self, query):\n        return []\nclient = Client()\n"),
    "d8e66fbd4c": ("uses the ClientInstrumentor of the previous snippet (its elided native "
                   "callback made a no-op) and the user's run_benchmark()",
                   spec_world.CLIENT_INSTRUMENTOR + "def run_benchmark():\n    pass\n"),
    "d65a6a67e5": ("attaches spans the section says were converted elsewhere",
                   "from datetime import UTC, datetime\nfrom autobench import SpanRecord\n"
                   "converted_spans = [SpanRecord(id='s1', name='step', kind='tool', "
                   "started_at=datetime.now(UTC), duration_seconds=0.1)]\n"),
    "ae6611d9e7": ("instruments the benchmark of the section",
                   "spec_world.write_module(WORK, 'benchmark_tasks', "
                   "'def run_case(ctx, case):\\n    return {\"ok\": True}\\n')\n"
                   "from autobench import Benchmark\n"
                   "benchmark = Benchmark('agent').dataset([{'id': 'c'}])"
                   ".task('benchmark_tasks:run_case')\n"),
    "1bd02279ae": ("extracts from a run record loaded with root_dir (a recorded demo run)",
                   RUN_RECORD + "record = load_run_record(path, root_dir=run_dir)\n"),
    "e640d6e980": ("continues the section: Benchmark not imported",
                   "from autobench import Benchmark\n"),
    "a8bcc73aad": ("continues the example: Benchmark, PydanticAI and the tracked INSTRUCTIONS",
                   "from autobench import Benchmark, track\n"
                   "from autobench.instrument.pydantic_ai import PydanticAI\n"
                   "INSTRUCTIONS = track.prompt(name='instructions', text='Be brief.')\n"),
    "a39b33ec2d": ("loads the run of a recorded experiment (a recorded demo run)", RUN_RECORD),
    "f0d07f2882": ("runs the user's my_app.benchmarks:run_case",
                   "spec_world.write_module(WORK, 'my_app.benchmarks', "
                   "'def run_case(ctx, case):\\n"
                   "    return {\"success\": True, \"answer\": \"ok\"}\\n')\n"),
    "d93112632a": ("validates the payload of a spec (the demo's, dumped)", DEMO +
                   "from autobench import load_benchmark_spec\n"
                   "payload = load_benchmark_spec(WORK / 'autobench.yaml').model_dump()\n"),
    "b1bd721de3": ("continues the section: Case not imported", "from autobench import Case\n"),
    "928ba15c5b": ("runs autobench.yaml of the working directory", DEMO),
    "971d008e75": ("records the result of the previous snippet",
                   "result = spec_world.run_demo(WORK)\n"),
    "dfd8810776": ("reports the replayed result of the previous snippet",
                   "from autobench import replay_experiment\n"
                   "replayed = replay_experiment(spec_world.run_demo(WORK, 'runs/x').root_dir)\n"),
}

# What a block must have done, beyond not raising (the points made checkable).
CHECKS: dict[str, str] = {
    "1eb820821d": (  # run_benchmark_path is a plain function returning the result
        "from autobench import ExperimentResult\n"
        "assert isinstance(result, ExperimentResult) and len(result.runs) == 4\n"
        "assert (WORK / 'runs/demo/experiment.yaml').is_file()\n"
    ),
    "1bd02279ae": (  # the derived run record, lineage kept, original untouched
        "from autobench import RunRecord\n"
        "assert isinstance(derived_record, RunRecord) and derived_record != record\n"
        "assert derived_record.lineage.run_record == 'cases/case_1/variant_1/run.yaml'\n"
        "assert derived_record.observations[:len(record.observations)] == record.observations\n"
        "assert len(derived_record.observations) > len(record.observations)\n"
        "assert (run_dir / derived_record.path).is_file()\n"
        "assert load_run_record(path, root_dir=run_dir) == record\n"
    ),
    "a39b33ec2d": (
        "assert derived.lineage.run == record.run_id and (run_dir / derived.path).is_file()\n"
    ),
}

FRAGMENTS = {
    "9c91d442c4": "the hand-written benchmark script the spec shows Autobench replacing: every "
                  "name in it is the reader's own",
    "da86771983": "the hand-written loop the spec shows Autobench replacing: every name in it is "
                  "the reader's own",
    "d19c9480da": "`metrics=[...]` elides the metric list",
    "4de34852bf": "shows only the instrument(...) call: the benchmark has no task or cases to run",
    "772f277d48": "shows only the instrument(...) call: the benchmark has no task or cases to run",
    "2202264d4e": "MyNativeInstrumentor(settings) is the reader's class, described only in prose",
}

SKIPPED: dict[str, str] = {}  # key -> why it needs the network, an API key or a Ray cluster

# The spec disagrees with itself here; the implementation follows its other two snippets.
DIVERGES = {
    "928ba15c5b": (
        "awaits run_benchmark_path, which two other snippets call as a plain function; "
        "the awaitable form is run_benchmark_path_async",
        "run_benchmark_path",
        "run_benchmark_path_async",
    ),
}
# fmt: on

BLOCKS = python_blocks(SPEC.read_text(encoding="utf-8")) if SPEC.is_file() else []


def _run(block: Block, code: str, work: Path) -> str | None:
    """Run ``code`` (the block, or its diverging form) in ``work``; a traceback or ``None``."""
    namespace: dict[str, object] = {"__name__": "__main__", "WORK": work, "spec_world": spec_world}
    filename = f"<spec line {block.line}>"
    try:
        if block.key in PRELUDES:
            exec(compile(PRELUDES[block.key][1], f"<prelude of {block.key}>", "exec"), namespace)
        if block.key in IN_TASK:
            failure = spec_world.run_in_task(compile(code, filename, "exec"), namespace)
            if failure is not None:
                return failure
        elif block.key in AWAITING:
            spec_world.run_awaiting(code, filename, namespace)
        else:
            exec(compile(code, filename, "exec"), namespace)
        if block.key in CHECKS:
            exec(compile(CHECKS[block.key], f"<check of {block.key}>", "exec"), namespace)
    except BaseException:
        return traceback.format_exc()
    return None


@contextlib.contextmanager
def _inside(where: Path) -> Iterator[None]:
    """``where`` as the working directory and first on ``sys.path``; the modules imported from
    it (the user modules a prelude wrote) are forgotten afterwards."""
    before = set(sys.modules)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(where)
        patch.syspath_prepend(str(where))
        yield
    for name in set(sys.modules) - before:
        file = getattr(sys.modules[name], "__file__", None) or ""
        if file.startswith(str(where)):
            del sys.modules[name]


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    with _inside(tmp_path):
        yield tmp_path


def test_every_python_block_of_the_spec_runs(work: Path) -> None:
    assert len(BLOCKS) > 100, "the spec's python blocks were not found"
    failed: list[str] = []
    ran = 0
    for index, block in enumerate(BLOCKS):
        if block.key in FRAGMENTS or block.key in SKIPPED:
            continue
        code = block.code
        if block.key in DIVERGES:
            _, old, new = DIVERGES[block.key]
            code = code.replace(old, new)
        where = work / f"block_{index:03d}"
        where.mkdir()
        with _inside(where):
            failure = _run(block, code, where)
        ran += 1
        if failure is not None:
            failed.append(f"--- {block.label}\n{textwrap.indent(block.code, '    ')}\n{failure}")
    print(f"{ran} of {len(BLOCKS)} python blocks of the spec ran")
    assert not failed, f"{len(failed)} spec snippets fail:\n\n" + "\n\n".join(failed)


def test_the_diverging_snippet_is_refused_clearly_as_written(work: Path) -> None:
    """``await run_benchmark_path(...)`` as printed: the plain function refuses inside the
    running loop and names the awaitable twin."""
    (key,) = DIVERGES
    (block,) = [block for block in BLOCKS if block.key == key]
    failure = _run(block, block.code, work)
    assert failure is not None and "RunningLoopError" in failure
    assert "await run_benchmark_path_async(...)" in failure


def test_every_listed_block_exists() -> None:
    keys = {block.key for block in BLOCKS}
    listed = (
        set(PRELUDES)
        | set(CHECKS)
        | set(FRAGMENTS)
        | set(SKIPPED)
        | set(DIVERGES)
        | IN_TASK
        | AWAITING
    )
    assert listed <= keys, f"listed blocks the spec no longer has: {sorted(listed - keys)}"
    assert not set(FRAGMENTS) & set(PRELUDES), "a fragment has a prelude: run it instead"
