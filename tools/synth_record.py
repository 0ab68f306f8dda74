"""Write a large record of tools/bench.py's trivial benchmark without running it, then its index.

    uv run python tools/synth_record.py /dev/shm/rec1m --cases 500000     # 1,000,000 runs
    uv run python tools/synth_record.py /dev/shm/rec100k --cases 50000 --failed-every 7

Recording 1,000,000 trivial runs with ``autobench run`` takes about ten minutes and several
GB; this writes the record those runs would leave, in about a tenth of the time, for
measuring the commands that read records (``report``, ``compare``, ``export``, ``query``).

How: the trivial benchmark (``bench.trivial_spec``, 2 cases x variants ``a`` and ``b``) is
recorded for real into ``DIR/.template/`` by ``autobench run``; its ``experiment.yaml`` is
read back and given the plan of ``--cases`` cases x 2 variants (ids, paths and input hashes
as planning makes them, the dataset hash of those cases), and written as ``DIR/record``'s;
each run file is the text the recording writes for such a run (``n`` = the case's number,
the output ``2n``, the exact and pass scores, the ``size`` metric, two spans; started
times and durations spread as a recording's are), checked for a sample of runs against the
records' own writer (:func:`~autobench.records.run_text` of the run read back must give
the same bytes); ``summary.yaml`` follows. With ``--failed-every K`` every K-th run's
output is wrong by one (its ``correct`` score 0, the run ``failed``). The index is then
written by :class:`~autobench.index._live.LiveIndex`, the code the index worker runs while
an experiment records (each run file read back from disk, parsed, hashed and stamped; row
groups of 2,048 runs), so ``autobench index --check DIR/record`` calls it fresh and the read
commands use it. (``autobench index`` would build the same index, but it replays the whole
record in memory first: about 11 KB a run.)

Prints the record's path, its run count and the seconds each phase took.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import trivial_spec

BIN = Path(sys.executable).parent

RUN = """\
# yaml-language-server: $schema=../../../schemas/0.1.0/run.schema.json
record:
  type: run
  version: 2

run:
  id: {run_id}
  experiment: {experiment}
  benchmark: trivial
  case: {case}
  variant: {variant}
  index: {index}
  status: {status}
  outcome:
    task: passed
    evaluation: {status}
  started_at: {started}
  duration: {duration!r}
  accounting: 1

case:
  id: {case}
  input:
    'n': {n}
  expected:
    value: {expected}

variant:
  id: {variant}
  factors:
    mode: {variant}

output:
  value: {value}
  ok: true

scores:
- name: correct
  value: {correct}
  semantic: quality.correctness
  role: objective
  actual: {value}
  expected: {expected}
- name: ok
  value: true
  semantic: result.success
  role: constraint

observations:
- id: obs_1
  name: size
  value: {n}
  semantic: workload.size
  span: {task_span}

trace:
  id: {trace_id}
  protocol: abp
  protocol_version: 1
  scopes:
    autobench.manual:
      version: 0.1.0
      package_version: 0.1.0
  spans:
  - id: {task_span}
    operation: benchmark.run
    kind: task
    started_at: {task_started}
    offset: {task_offset!r}
    duration: {task_duration!r}
  - id: {tool_span}
    operation: work
    kind: tool
    parent: {task_span}
    started_at: {tool_started}
    offset: {tool_offset!r}
    duration: {tool_duration!r}
"""
"""A trivial run's ``run.yaml`` as the recording writes it (checked against ``run_text``)."""

VARIANTS = ("a", "b")


def _template(directory: Path) -> Path:
    """Record the trivial benchmark of 2 cases for real; returns its record directory."""
    directory.mkdir(parents=True)
    spec = trivial_spec(directory, 2)
    record = directory / "rec"
    subprocess.run(
        [BIN / "autobench", "run", spec, "--record", record, "--no-progress", "--no-index"],
        check=True,
        capture_output=True,
        env={**os.environ, "AUTOBENCH_NO_INDEX": "1"},
    )
    return record


def _experiment(template: Path, cases: int, started: datetime) -> object:
    from autobench.core.planning import dataset_hash, new_experiment_id, run_id_for
    from autobench.records import (
        Case,
        PlannedRun,
        case_input_hash,
        experiment_record_from_yaml,
        run_record_path,
    )

    path = template / "experiment.yaml"
    base = experiment_record_from_yaml(path.read_text(encoding="utf-8"), source=path)
    runs = cases * len(VARIANTS)
    width = max(4, len(str(runs)))
    plan = []
    for number in range(cases):
        case = f"case-{number}"
        digest = case_input_hash({"n": number})
        for variant in VARIANTS:
            plan.append(
                PlannedRun(
                    id=run_id_for(len(plan), case, variant, width),
                    case=case,
                    variant=variant,
                    path=run_record_path(case, variant),
                    input=digest,
                )
            )
    dataset = dataset_hash(
        [
            Case(id=f"case-{number}", input={"n": number}, expected={"value": 2 * number})
            for number in range(cases)
        ]
    )
    benchmark = base.benchmark
    return base.model_copy(
        update={
            "experiment": base.experiment.model_copy(
                update={"id": new_experiment_id("trivial", started), "started_at": started}
            ),
            "benchmark": benchmark.model_copy(
                update={
                    "cases": cases,
                    "runs": runs,
                    "dataset": benchmark.dataset.model_copy(update={"hash": dataset}),
                }
            ),
            "plan": tuple(plan),
        }
    )


def _stamp(moment: datetime) -> str:
    return str(moment)  # what the writer renders: 2026-12-07 12:48:16.234698+00:00


def _write_runs(
    record: Path, experiment: object, failed_every: int, started: datetime, seed: int
) -> dict[str, dict[str, int]]:
    """Write every planned run's file; returns the status counts per variant."""
    rng = random.Random(seed)
    counts: dict[str, dict[str, int]] = {variant: {} for variant in VARIANTS}
    made: set[str] = set()
    clock = started
    experiment_id = experiment.experiment.id  # type: ignore[attr-defined]
    for index, planned in enumerate(experiment.plan):  # type: ignore[attr-defined]
        number = int(planned.case.removeprefix("case-"))
        failed = failed_every > 0 and index % failed_every == failed_every - 1
        status = "failed" if failed else "passed"
        counts[planned.variant][status] = counts[planned.variant].get(status, 0) + 1
        duration = round(rng.uniform(4e-5, 9e-5) * (1.3 if planned.variant == "b" else 1.0), 9)
        task_offset = round(rng.uniform(5e-6, 1.5e-5), 9)
        task_duration = round(duration * 0.15, 9)
        clock += timedelta(microseconds=int(duration * 1e6) + rng.randint(5, 40))
        text = RUN.format(
            run_id=planned.id,
            experiment=experiment_id,
            case=planned.case,
            variant=planned.variant,
            index=index,
            status=status,
            started=_stamp(clock),
            duration=duration,
            n=number,
            expected=2 * number,
            value=2 * number + (1 if failed else 0),
            correct=0.0 if failed else 1.0,
            task_span=_hex(rng, 16),
            tool_span=_hex(rng, 16),
            trace_id=_hex(rng, 32),
            task_started=_stamp(clock + timedelta(microseconds=int(task_offset * 1e6))),
            task_offset=task_offset,
            task_duration=task_duration,
            tool_started=_stamp(clock + timedelta(microseconds=int(task_offset * 1e6) + 3)),
            tool_offset=round(task_offset + 3e-6, 9),
            tool_duration=round(task_duration * 0.2, 9),
        )
        folder = record / planned.path.rsplit("/", 1)[0]
        case_folder = folder.parent
        if planned.case not in made:
            case_folder.mkdir(parents=True, exist_ok=True)
            made.add(planned.case)
        folder.mkdir()
        (folder / "run.yaml").write_text(text, encoding="utf-8")
        if index < 4 or index % 99_991 == 0:
            _check(folder / "run.yaml", text)
    return counts


def _hex(rng: random.Random, digits: int) -> str:
    """Random hex digits starting with a letter: the text of the template stays unquoted
    (an id of digits alone, or like ``1e5``, reads as a number and is quoted by the writer)."""
    return f"{rng.randrange(10, 16):x}{rng.getrandbits(4 * digits - 4):0{digits - 1}x}"


def _check(path: Path, text: str) -> None:
    """The file must be what the records' writer makes of the run it holds (but for the
    schema comment, which the writer makes relative to the file)."""
    from autobench.records import run_record_from_yaml, run_record_to_yaml

    again = run_record_to_yaml(run_record_from_yaml(text, source=str(path)))
    if again.partition("\n")[2] != text.partition("\n")[2]:  # the schema line names a path
        raise SystemExit(f"{path}: the records' writer renders this run differently:\n{again}")


def _summary(record: Path, experiment_id: str, counts: dict[str, dict[str, int]]) -> None:
    from autobench.records import ExperimentSummary, StatusCounts, experiment_summary_to_yaml

    variants = {variant: StatusCounts(**count) for variant, count in counts.items()}
    total = StatusCounts(
        passed=sum(count.passed for count in variants.values()),
        failed=sum(count.failed for count in variants.values()),
    )
    summary = ExperimentSummary(
        experiment=experiment_id,
        benchmark="trivial",
        finished_at=datetime.now(UTC),
        duration=60.0,
        complete=True,
        runs=total.total,
        status=total,
        variants=variants,
    )
    (record / "summary.yaml").write_text(experiment_summary_to_yaml(summary), encoding="utf-8")


def _index(record: Path) -> None:
    from autobench.index import build_index  # a plain record: read a group of runs at a time

    built = build_index(record)
    if not built.reportable:
        raise SystemExit(f"{record}: the index is not reportable: {built.reason}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="made; the record is DIR/record")
    parser.add_argument("--cases", type=int, default=0, help="cases (x 2 variants = runs)")
    parser.add_argument("--failed-every", type=int, default=0, metavar="K")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--no-index", action="store_true", help="leave the index out")
    parser.add_argument(
        "--index-only", action="store_true", help="(re)write the index of DIR/record only"
    )
    args = parser.parse_args(argv)
    root: Path = args.directory
    record = root / "record"
    if args.index_only:
        began = time.perf_counter()
        _index(record)
        print(f"index: {time.perf_counter() - began:.1f} s")
        return 0
    if record.exists():
        raise SystemExit(f"{record} exists")
    began = time.perf_counter()
    template = _template(root / ".template")
    started = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
    from autobench.records import experiment_record_to_yaml

    experiment = _experiment(template, args.cases, started)
    record.mkdir(parents=True)
    shutil.copytree(template / "schemas", record / "schemas")
    (record / "experiment.yaml").write_text(
        experiment_record_to_yaml(experiment),  # type: ignore[arg-type]
        encoding="utf-8",
    )
    planned = time.perf_counter()
    print(f"experiment.yaml: {planned - began:.1f} s", flush=True)
    counts = _write_runs(record, experiment, args.failed_every, started, args.seed)
    experiment_id = experiment.experiment.id  # type: ignore[attr-defined]
    del experiment  # the plan's models: about 1 KB a run
    _summary(record, experiment_id, counts)
    written = time.perf_counter()
    print(f"run files: {written - planned:.1f} s", flush=True)
    shutil.rmtree(root / ".template")
    if not args.no_index:
        _index(record)
        print(f"index: {time.perf_counter() - written:.1f} s", flush=True)
    print(f"{record}: {args.cases * len(VARIANTS)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
