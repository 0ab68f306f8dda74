"""The ``derive`` section: per-run derivers, validated by kind, with their local files.

``derive: [{kind: <deriver kind>, ...}]`` in both forms. Each entry is
validated through the deriver registry (built-in ``token_cost`` and plugin
kinds). A field a deriver declares in ``file_fields`` (``pricing`` for
``token_cost``) is a path or ``file://`` reference relative to the spec: it is
resolved through :class:`SpecFiles` (remote URLs, paths leaving the spec's
directory, missing files and globs are refused), read once (so it is listed
in ``BenchmarkSpec.source_files``) and checked by the deriver; errors inside
the file point into it. Two derivers writing the same output name are refused.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from autobench.core.derive import DeriverSpec
from autobench.core.plugins import DeriverRegistry
from autobench.core.spec._checks import (
    expect_list,
    expect_mapping,
    kind_error,
    located_validation_error,
    model_keys,
)
from autobench.core.spec._errors import SpecError
from autobench.core.spec._files import SpecFiles
from autobench.core.spec._yaml import Located


def _validate(
    data: dict[str, Any], entry: Located, what: str, registry: DeriverRegistry
) -> DeriverSpec:
    kind = entry.get("kind")
    if kind is None or not isinstance(kind.value, str) or kind.value not in registry.by_kind:
        raise kind_error(entry, what, registry.by_kind)
    model = registry.by_kind[kind.value]
    try:
        return registry.validate(data)
    except ValidationError as exc:
        raise located_validation_error(
            exc, entry, what, model_keys(model, exclude={"files"}), model=model
        ) from None
    except (ValueError, TypeError) as exc:
        raise SpecError(entry.location, f"invalid {what}: {exc}") from None


def _with_files(deriver: DeriverSpec, entry: Located, files: SpecFiles, what: str) -> DeriverSpec:
    resolved = {}
    for field in type(deriver).file_fields:
        ref = entry.get(field)
        if ref is None or ref.value is None:
            continue
        paths = files.resolve(ref, f"the {field} file of {what}")
        if len(paths) != 1:
            raise SpecError(
                ref.location,
                f"the {field} of {what} names {len(paths)} files",
                expected="a single file",
            )
        document = files.read(paths[0], ref.location)
        try:
            deriver.check_file(field, document.located.value)
        except ValidationError as exc:
            raise located_validation_error(
                exc, document.located, f"{field} file", model=deriver.file_model(field)
            ) from None
        except (ValueError, TypeError) as exc:
            raise SpecError(document.located.location, f"invalid {field} file: {exc}") from None
        resolved[field] = paths[0].resolve()
    return deriver.model_copy(update={"files": resolved}) if resolved else deriver


def load_derivers(
    item: Located, files: SpecFiles, registry: DeriverRegistry
) -> tuple[DeriverSpec, ...]:
    """``derive: [{kind, ...}]`` as deriver models (kinds of ``registry``; see the module
    docstring); raises a located :class:`SpecError` for every problem."""
    expect_list(item, "derive")
    derivers: list[DeriverSpec] = []
    outputs: dict[str, Located] = {}
    for index, entry in enumerate(item.elements()):
        what = f"deriver {index + 1} of 'derive'"
        data = expect_mapping(entry, what)
        deriver = _with_files(_validate(dict(data), entry, what, registry), entry, files, what)
        output = getattr(deriver, "output", None)
        name = getattr(output, "name", None)
        if isinstance(name, str):
            where = entry.get("output") or entry
            if name in outputs:
                raise SpecError(
                    where.location,
                    f"{what} writes '{name}' like the deriver at {outputs[name].location}",
                    expected="unique deriver output names",
                )
            outputs[name] = where
        derivers.append(deriver)
    return tuple(derivers)
