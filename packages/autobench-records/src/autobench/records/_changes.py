"""What changed between two experiment records: spec, dataset and source files."""

from __future__ import annotations

from autobench.records._records import ExperimentRecord


def experiment_changes(before: ExperimentRecord, after: ExperimentRecord) -> tuple[str, ...]:
    """What differs between two experiments' inputs: ``spec`` (its hash), ``dataset``
    (its hash), then each source file path (sorted) whose sha256 changed, that
    appeared or that disappeared. Used to refuse a resume after a change and to say
    what changed between the two experiments of a comparison."""
    changed: list[str] = []
    before_spec, after_spec = before.benchmark.spec, after.benchmark.spec
    if (before_spec and before_spec.hash) != (after_spec and after_spec.hash):
        changed.append("spec")
    if before.benchmark.dataset.hash != after.benchmark.dataset.hash:
        changed.append("dataset")
    for path in sorted(set(before.files) | set(after.files)):
        if before.files.get(path) != after.files.get(path):
            changed.append(path)
    return tuple(changed)
