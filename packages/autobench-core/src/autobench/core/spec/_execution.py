"""How runs are called: the task's ``timeout`` and ``retries``, and the ``limits`` section.

- ``run: {python: module:function, timeout: 30, retries: {attempts, backoff, initial, max,
  on: [openai.RateLimitError, TimeoutError]}}`` (DSL), or the same ``timeout`` and
  ``retries`` beside ``target`` under ``task:``. Every name of ``retries.on`` is resolved
  here (relative to the spec's directory first): a name that is not an importable
  exception class is a located error at that name.
- ``limits: {<factor>: {max_concurrency, requests_per_minute, tokens_per_minute}}``: the
  factor must be one some variant has (a located error at the key otherwise).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autobench.core.spec._checks import (
    expect_keys,
    expect_list,
    expect_mapping,
    expect_string,
    model_keys,
    validate_model,
)
from autobench.core.spec._errors import SpecError
from autobench.core.spec._models import LimitSpec, RetrySpec, limit_problem
from autobench.core.spec._yaml import Located, kind_of
from autobench.records import Variant

EXECUTION_KEYS = frozenset({"timeout", "retries"})
"""The keys beside the task's target that say how it is called."""

_RETRY_SHAPE = (
    "retries: {attempts: 3, backoff: exponential | fixed | jitter, initial: 1.0, max: 30, "
    "on: [module.ExceptionClass, ...]}"
)


def load_execution(item: Located, base_dir: Path | None) -> dict[str, Any]:
    """The ``timeout`` and ``retries`` of a ``run:`` or ``task:`` mapping, as TaskSpec fields."""
    fields: dict[str, Any] = {}
    if (timeout := item.get("timeout")) is not None and timeout.value is not None:
        value = timeout.value
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise SpecError(
                timeout.location,
                f"timeout must be a positive number of seconds, not {value!r}",
                expected="timeout: <seconds>, for example timeout: 30",
            )
        fields["timeout"] = float(value)
    if (retries := item.get("retries")) is not None and retries.value is not None:
        fields["retries"] = load_retries(retries, base_dir)
    return fields


def load_retries(item: Located, base_dir: Path | None) -> RetrySpec:
    """``retries: {attempts, backoff, initial, max, on}``; each ``on`` name must resolve."""
    data = dict(expect_mapping(item, "retries"))
    expect_keys(item, model_keys(RetrySpec), "retries")
    on = item.get("on")
    if on is not None and on.value is not None:
        if isinstance(on.value, str):
            names = [(expect_string(on, "an exception name"), on)]
            data["on"] = [on.value]
        else:
            expect_list(on, "retries.on")
            names = [(expect_string(entry, "an exception name"), entry) for entry in on.elements()]
        for name, where in names:
            try:
                RetrySpec(on=(name,)).exception_types(base_dir)
            except ValueError as exc:
                raise SpecError(
                    where.location,
                    f"retries.on: {exc}",
                    expected="an exception class by dotted path: TimeoutError, "
                    "openai.RateLimitError, mymodule.MyError",
                ) from None
    spec = validate_model(RetrySpec, data, item, "retries")
    if spec.max < spec.initial:
        where = item.get("max") or item
        raise SpecError(
            where.location,
            f"retries.max ({spec.max}) is below retries.initial ({spec.initial})",
            expected=_RETRY_SHAPE,
        )
    return spec


def load_limits(item: Located, variants: tuple[Variant, ...]) -> dict[str, LimitSpec]:
    """``limits: {<factor>: {max_concurrency, requests_per_minute, tokens_per_minute}}``."""
    expect_mapping(item, "limits")
    limits: dict[str, LimitSpec] = {}
    for name, entry in item.items():
        if not isinstance(name, str) or not name:
            raise SpecError(
                entry.key_location,
                f"a limit is keyed by a factor name, not {kind_of(name)}",
                expected="limits: {<factor>: {max_concurrency, requests_per_minute, ...}}",
            )
        what = f"limit '{name}'"
        fields = expect_mapping(entry, what)
        expect_keys(entry, model_keys(LimitSpec), what)
        limit = validate_model(LimitSpec, fields, entry, what)
        problem = limit_problem({name: limit}, variants)
        if problem is not None:
            raise SpecError(
                entry.key_location, problem, expected="a factor name of the spec's variants"
            )
        limits[name] = limit
    return limits
