"""Load a benchmark spec from YAML, in the authoring DSL or the structured form."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from autobench.abp import gc_paused, settle_long_lived
from autobench.core.plugins import AutobenchPlugins, default_plugins
from autobench.core.postderive import PostDeriverSpec
from autobench.core.spec._checks import expect_keys, expect_mapping, validate_model
from autobench.core.spec._datasets import load_dataset
from autobench.core.spec._derive import load_derivers
from autobench.core.spec._dsl import report_from_dsl, scorers_from_dsl, task_from_run
from autobench.core.spec._errors import Location, SpecError, one_of
from autobench.core.spec._evaluation_sections import (
    check_policies,
    load_policies,
    load_post_derivers,
)
from autobench.core.spec._execution import load_limits
from autobench.core.spec._files import SpecFiles
from autobench.core.spec._instrumentation import load_instrumentation
from autobench.core.spec._models import BenchmarkInfo, BenchmarkSpec
from autobench.core.spec._redaction import load_redaction
from autobench.core.spec._sections import (
    check_report_variants,
    load_executor,
    load_repeat,
    load_semantic_registry,
    load_structured_reports,
    load_structured_scorers,
    load_task,
    load_variants,
)
from autobench.core.spec._yaml import (
    Located,
    YamlDocument,
    collecting_notes,
    kind_of,
    read_yaml,
)
from autobench.core.spec._yaml_stream import SPEC_CASE_PATHS, deferring

STRUCTURED_KEYS = frozenset(
    {
        "benchmark",
        "dataset",
        "task",
        "variants",
        "scoring",
        "reports",
        "semantic_registry",
        "policies",
        "post_derive",
        "derive",
        "instrumentation",
        "strict_scalars",
        "executor",
        "repeat",
        "limits",
        "redaction",
    }
)
DSL_KEYS = frozenset(
    {
        "description",
        "dataset",
        "cases",
        "run",
        "task",
        "variants",
        "score",
        "report",
        "reports",
        "semantic_registry",
        "policies",
        "post_derive",
        "derive",
        "instrumentation",
        "strict_scalars",
        "executor",
        "repeat",
        "limits",
        "redaction",
    }
)
_SHAPES = (
    "benchmark: {<id>: {...}} (authoring DSL) or benchmark: {id, description} (structured form)"
)


def load_benchmark_spec(
    path: Path | str, *, strict_scalars: bool = False, plugins: AutobenchPlugins | None = None
) -> BenchmarkSpec:
    """Load the benchmark spec at ``path`` and the dataset files it references.

    Two YAML forms are accepted. The **authoring DSL** names the benchmark
    once and keeps every section under that name::

        benchmark:
          <id>:
            description: ...
            dataset: {id, version, metadata, source, defaults, cases}   # or
            cases: [...] | datasets/cases.yaml
            run: {python: module:function}          # or task: {kind: python, target: ...}
            variants: {<id>: {label, description, factors}} | [{id, label, factors}]
            score: {<name>: {<keyword>: <action>, semantic, role, goal, unit, optional}}
            report: {leaderboard: {show: {...}}, matrix: {metric}, compare: {"a -> b": {show}}, distributions: [...]}
            semantic_registry: {version, types: {<type>: {parent, unit, shape, description}}, aliases}
            policies: [{name, metric, unit, <one requirement>}]     # see autobench.core.policies
            post_derive: [{kind: paired_baseline, ...}]             # see autobench.core.postderive
            derive: [{kind: token_cost, pricing: file://pricing.yaml, output, inputs}]  # autobench.core.derive
            instrumentation: {all: {exclude, strict}, openai: {}, httpx: {capture}, ...}  # ._instrumentation
            strict_scalars: true       # a number whose written text YAML loses is an error
            executor: local            # or {name: <executor>, <option>: <value>}
            repeat: 3                  # run every case x variant 3 times (default 1)
            limits: {<factor>: {max_concurrency, requests_per_minute, tokens_per_minute}}
            redaction: {keys: [...], patterns: [...], query_params: [...]}  # see ._redaction

    ``run`` (and ``task``) also take ``timeout: <seconds>`` and ``retries: {attempts,
    backoff, initial, max, on: [<exception class>, ...]}`` (see :mod:`._execution`).

    The **structured form** is the shape of ``BenchmarkSpec.model_dump()``::

        benchmark: {id, description}
        dataset: {id, version, source, metadata, defaults, cases}
        task: {kind: python, target: module:function}
        variants: [{id, label, description, factors}]
        scoring: [{kind, name, ...}]
        reports: {leaderboard: {metrics: [...]}, matrix, comparisons: [...], distributions: [...]}
        semantic_registry: {version, types, aliases}
        policies: [...]                               # same shape as in the DSL
        post_derive: [...]
        instrumentation: {...}                        # same shape as in the DSL
        executor: local                               # same shape as in the DSL
        repeat: 3                                     # same as in the DSL
        limits: {...}                                 # same as in the DSL
        redaction: {...}                              # same as in the DSL

    Detection rule: a document is in the structured form when it has a
    top-level key besides ``benchmark``, or when ``benchmark.id`` holds
    something other than a mapping; otherwise it is the authoring DSL, whose
    ``benchmark`` mapping must hold exactly one entry (id -> sections).

    Dataset references, case defaults and file rules are described in
    :mod:`autobench.core.spec._datasets`; every referenced file must stay inside
    the spec's directory and remote URLs are refused. The task target is kept
    as written (it is imported at run time, relative to ``base_dir``, the
    spec's resolved directory). ``source_files`` lists every file read.

    Raises :class:`SpecError` (a ``ValueError``) naming the file, line and
    column and what was expected, for: a missing or empty file, YAML syntax
    errors and duplicate keys, a spec that is not a mapping, unknown keys at
    any level, values of the wrong type, duplicate case, variant or scorer
    ids, a scorer with no or several action keywords, remote or escaping
    paths, missing dataset files, globs that match nothing and task targets
    not of the form ``module:function``.

    Values are read as people type them (:mod:`autobench.records._yaml_input`): an
    unquoted ``2024-02-01`` is a string, keys and ids are the text written, and a factor
    or case value YAML 1.2 reads as a number whose text it loses (``2.10``, ``007``,
    ``1e3``) is kept as that number with a note in ``scalar_notes`` (a factor also keeps
    its written ``text``). With ``strict_scalars`` (or ``strict_scalars: true`` in the
    spec) the first such value is a :class:`SpecError` at its location instead.

    Scorer, deriver and post-deriver kinds, semantic types and executor names are those
    of ``plugins`` (default: :func:`~autobench.core.plugins.default_plugins`); the spec
    keeps them (``spec.plugins``) for its run. ``executor`` must name one of their
    executors (a :class:`SpecError` at the name lists them).
    """
    spec_path = Path(path)
    with _loading():
        document = read_yaml(spec_path, spec_path, parse=deferring(SPEC_CASE_PATHS))
        files = SpecFiles(spec_path.parent)
        files.add(spec_path.resolve(), document)
        return _compile(document, files, strict_scalars, plugins or default_plugins())


def load_benchmark_spec_text(
    text: str,
    *,
    path: Path | str = "autobench.yaml",
    strict_scalars: bool = False,
    plugins: AutobenchPlugins | None = None,
) -> BenchmarkSpec:
    """Load a spec from ``text`` as if it were the file ``path``.

    ``path`` names the spec in error messages and its directory is where
    relative dataset references resolve (the file itself need not exist).
    Same forms, rules, ``plugins`` and :class:`SpecError` as :func:`load_benchmark_spec`.
    """
    spec_path = Path(path)
    with _loading():
        return _compile(
            deferring(SPEC_CASE_PATHS)(text, spec_path),
            SpecFiles(spec_path.parent),
            strict_scalars,
            plugins or default_plugins(),
        )


@contextmanager
def _loading() -> Iterator[None]:
    """Cyclic collection paused while a spec loads: a dataset of thousands of cases is tens
    of thousands of YAML nodes and models, none of them garbage, which every collection
    meanwhile would walk (2,000 cases: 0.12-0.21 s with collection on, 0.06 s paused). What
    the load kept is then settled in the oldest generation, so the next young collection
    does not walk it either (:func:`~autobench.abp.settle_long_lived`)."""
    with gc_paused():
        yield
    settle_long_lived()


def is_structured(document: Mapping[Any, Any]) -> bool:
    """Whether a spec mapping is in the structured form (see :func:`load_benchmark_spec`).
    ``strict_scalars`` may stand beside ``benchmark`` in either form."""
    if set(document) - {"benchmark", "strict_scalars"}:
        return True
    benchmark = document.get("benchmark")
    return (
        isinstance(benchmark, dict) and "id" in benchmark and not isinstance(benchmark["id"], dict)
    )


def _compile(
    document: YamlDocument, files: SpecFiles, strict_scalars: bool, plugins: AutobenchPlugins
) -> BenchmarkSpec:
    top = document.located
    if document.root is None:
        raise SpecError(Location(document.path, 1, 1), "the spec file is empty", expected=_SHAPES)
    if not isinstance(top.value, dict):
        raise SpecError(
            top.location,
            f"a benchmark spec must be a mapping, not {kind_of(top.value)}",
            expected=_SHAPES,
        )
    if "benchmark" not in top.value:
        expect_keys(top, STRUCTURED_KEYS, "the spec")
        raise SpecError(top.location, "the spec has no 'benchmark' key", expected=_SHAPES)
    with collecting_notes() as found:
        sections = (
            _structured(top, files, plugins)
            if is_structured(top.value)
            else _authoring(top, files, plugins)
        )
    notes = sorted(
        {
            (str(note.location.path), note.location.line or 0, note.location.column or 0): note
            for note in found
        }.items()
    )
    if notes and (strict_scalars or sections.get("strict_scalars") is True):
        first = notes[0][1]
        more = f" ({len(notes) - 1} more such value(s))" if len(notes) > 1 else ""
        raise SpecError(
            first.location,
            f"`{first.text}` is read as the number {first.value!r}, which loses the text "
            f"written, and strict_scalars is on{more}",
            expected=f'the text quoted ("{first.text}") or the number as {first.value!r}',
        )
    sections["scalar_notes"] = tuple(str(note) for _, note in notes)
    sections["base_dir"] = files.root
    sections["source_files"] = files.read_paths
    return validate_model(BenchmarkSpec, sections, top, "the spec", context={"plugins": plugins})


def _present(item: Located | None) -> Located | None:
    return None if item is None or item.value is None else item


def _authoring(top: Located, files: SpecFiles, plugins: AutobenchPlugins) -> dict[str, Any]:
    container = top.get("benchmark")
    assert container is not None
    expect_mapping(container, "benchmark")
    entries = container.items()
    if not entries:
        raise SpecError(container.location, "'benchmark' names no benchmark", expected=_SHAPES)
    if len(entries) > 1:
        raise SpecError(
            entries[1][1].key_location,
            "a spec file holds one benchmark",
            expected="a single <id> under 'benchmark'",
        )
    benchmark_id, body = entries[0]
    if not isinstance(benchmark_id, str) or not benchmark_id:
        raise SpecError(
            body.key_location,
            f"benchmark id {benchmark_id!r} must be a non-empty string",
            expected="a string",
        )
    what = f"benchmark '{benchmark_id}'"
    fields = expect_mapping(body, what)
    expect_keys(body, DSL_KEYS, what)
    for first, second in (("run", "task"), ("report", "reports")):
        if fields.get(first) is not None and (duplicate := _present(body.get(second))) is not None:
            raise SpecError(
                duplicate.key_location,
                f"{what} has both '{first}' and '{second}'",
                expected=f"one of: {first}, {second}",
            )
    info = validate_model(
        BenchmarkInfo, {"id": benchmark_id, "description": fields.get("description")}, body, what
    )
    sections: dict[str, Any] = {
        "benchmark": info,
        "dataset": load_dataset(_present(body.get("dataset")), _present(body.get("cases")), files),
    }
    if (run := _present(body.get("run"))) is not None:
        sections["task"] = task_from_run(run, files.root)
    elif (task := _present(body.get("task"))) is not None:
        sections["task"] = load_task(task, files.root)
    variants = load_variants(item) if (item := _present(body.get("variants"))) is not None else ()
    sections["variants"] = variants
    if (score := _present(body.get("score"))) is not None:
        sections["scoring"] = scorers_from_dsl(score, plugins.scorers)
    variant_ids = frozenset(variant.id for variant in variants)
    if (report := _present(body.get("report"))) is not None:
        sections["reports"] = report_from_dsl(report, variant_ids)
    elif (reports := _present(body.get("reports"))) is not None:
        sections["reports"] = load_structured_reports(reports)
        check_report_variants(sections["reports"], reports, variant_ids)
    if (registry := _present(body.get("semantic_registry"))) is not None:
        sections["semantic_registry"] = load_semantic_registry(registry)
    if (derive := _present(body.get("derive"))) is not None:
        sections["derive"] = load_derivers(derive, files, plugins.derivers)
    _evaluation(body, sections, variant_ids, plugins)
    _strict(top, sections)  # beside `benchmark:`, or
    _strict(body, sections)  # in the benchmark's own sections
    return sections


def _structured(top: Located, files: SpecFiles, plugins: AutobenchPlugins) -> dict[str, Any]:
    expect_keys(top, STRUCTURED_KEYS, "the spec")
    benchmark = top.get("benchmark")
    assert benchmark is not None
    fields = expect_mapping(benchmark, "benchmark")
    expect_keys(benchmark, {"id", "description"}, "benchmark")
    if "id" not in fields:
        raise SpecError(
            benchmark.location, "benchmark needs an 'id'", expected=one_of({"id", "description"})
        )
    sections: dict[str, Any] = {
        "benchmark": validate_model(BenchmarkInfo, fields, benchmark, "benchmark"),
        "dataset": load_dataset(_present(top.get("dataset")), None, files),
    }
    if (task := _present(top.get("task"))) is not None:
        sections["task"] = load_task(task, files.root)
    variants = load_variants(item) if (item := _present(top.get("variants"))) is not None else ()
    sections["variants"] = variants
    if (scoring := _present(top.get("scoring"))) is not None:
        sections["scoring"] = load_structured_scorers(scoring, plugins.scorers)
    if (reports := _present(top.get("reports"))) is not None:
        sections["reports"] = load_structured_reports(reports)
        check_report_variants(
            sections["reports"], reports, frozenset(variant.id for variant in variants)
        )
    if (registry := _present(top.get("semantic_registry"))) is not None:
        sections["semantic_registry"] = load_semantic_registry(registry)
    if (derive := _present(top.get("derive"))) is not None:
        sections["derive"] = load_derivers(derive, files, plugins.derivers)
    _evaluation(top, sections, frozenset(variant.id for variant in variants), plugins)
    _strict(top, sections)
    return sections


def _strict(container: Located, sections: dict[str, Any]) -> None:
    """``strict_scalars: true | false`` of ``container`` into ``sections`` (a later
    container's value wins; ``true`` anywhere turns the check on)."""
    item = _present(container.get("strict_scalars"))
    if item is not None:
        if not isinstance(item.value, bool):
            raise SpecError(
                item.location,
                f"strict_scalars must be true or false, not {kind_of(item.value)}",
                expected="true or false",
            )
        sections["strict_scalars"] = sections.get("strict_scalars") is True or item.value


def _evaluation(
    container: Located,
    sections: dict[str, Any],
    variant_ids: frozenset[str],
    plugins: AutobenchPlugins,
) -> None:
    """The ``post_derive``, ``policies``, ``instrumentation``, ``executor``, ``repeat``,
    ``limits`` and ``redaction`` sections of ``container`` into ``sections``."""
    if (item := _present(container.get("repeat"))) is not None:
        sections["repeat"] = load_repeat(item)
    if (item := _present(container.get("instrumentation"))) is not None:
        sections["instrumentation"] = load_instrumentation(item)
    if (item := _present(container.get("executor"))) is not None:
        sections["executor"] = load_executor(item, plugins.executors)
    if (item := _present(container.get("limits"))) is not None:
        sections["limits"] = load_limits(item, sections.get("variants", ()))
    if (item := _present(container.get("redaction"))) is not None:
        sections["redaction"] = load_redaction(item)
    post_derive: tuple[PostDeriverSpec, ...] = ()
    if (item := _present(container.get("post_derive"))) is not None:
        post_derive = sections["post_derive"] = load_post_derivers(item, variant_ids, plugins)
    if (item := _present(container.get("policies"))) is not None:
        policies = sections["policies"] = load_policies(item)
        registry = plugins.semantic_registry.merged(sections.get("semantic_registry"))
        check_policies(policies, item, post_derive, registry)
