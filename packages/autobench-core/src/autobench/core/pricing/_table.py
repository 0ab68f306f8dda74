"""The pricing table: model prices by provider, aliases, and model-id normalisation.

Shape (the ``pricing:`` section of a pricing file)::

    version: 1
    provider: openai            # provider of `models` (omit: they match any provider)
    source: manual              # where the prices came from (free text)
    updated_at: "2026-05-07"
    models:
      <model id>: {name, aliases: [...], input, output, cache_read, cache_write}
    providers:                  # more providers in the same file
      <provider>: {models: {<model id>: {...}}}

Model-id normalisation (:meth:`PricingTable.resolve`). Names are compared
case-insensitively after trimming spaces. A call's model string ``m`` and
optional provider ``p`` are tried in this order; the first step that finds
entries decides (one entry: resolved; several: ambiguous):

1. ``m`` as written, among the models of provider ``p`` (any provider when
   ``p`` is absent), by model id or alias;
2. when ``m`` reads ``x:y`` (split at the first ``:``), else ``x/y`` (first
   ``/``), and ``x`` equals ``p`` or ``p`` is absent: ``y`` among the models
   of provider ``x``.

A call has up to two provider names: its provider system (``llm.provider``, the
OpenTelemetry GenAI name such as ``openai``) and the host it was sent to
(``server.address``). "Provider ``p``" above is either: a table provider matches
when it equals one of them, so a file naming ``openai`` and one naming the host
``llm.example.com`` both price a call to an OpenAI-compatible server there. The
address is the more specific name: before step 1, ``m`` is looked up among the
models listed under the address alone, and a match there decides.

Models listed without a provider match any provider. A model id or alias
naming two models of one provider is refused when the table is built.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import Field, PrivateAttr, field_validator, model_validator

from autobench.abp import AutobenchError
from autobench.core.pricing._rates import PricingModel, TokenRate

RATE_NAMES = ("input", "output", "cache_read", "cache_write")
"""The rates a model may have, in the order they are written."""


class ModelPrice(PricingModel):
    """The prices of one model: a display ``name``, ``aliases`` and up to four rates.

    ``input`` prices uncached input tokens, ``cache_read`` input tokens read
    from a prompt cache, ``cache_write`` input tokens written to it, ``output``
    completion tokens. Raises ``ValueError`` when no rate is given.
    """

    name: str | None = None
    aliases: tuple[str, ...] = ()
    input: TokenRate | None = None
    output: TokenRate | None = None
    cache_read: TokenRate | None = None
    cache_write: TokenRate | None = None

    @model_validator(mode="after")
    def _some_rate(self) -> ModelPrice:
        if all(getattr(self, rate) is None for rate in RATE_NAMES):
            raise ValueError(f"a model price needs at least one of: {', '.join(RATE_NAMES)}")
        return self

    def rate(self, name: str) -> TokenRate | None:
        """The rate called ``name`` (one of :data:`RATE_NAMES`), or ``None``."""
        rate: TokenRate | None = getattr(self, name)
        return rate


class ProviderPrices(PricingModel):
    """The models of one provider in the ``providers`` map."""

    name: str | None = None
    models: dict[str, ModelPrice] = Field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PricedModel:
    """A table entry: the ``provider`` it belongs to (``None``: any), its id and prices."""

    provider: str | None
    model_id: str
    price: ModelPrice


class AmbiguousModelError(AutobenchError, LookupError):
    """A model string names several entries of a pricing table."""


def _key(name: str) -> str:
    return name.strip().casefold()


class PricingTable(PricingModel):
    """Model prices in USD, keyed by stable model ids (see the module docstring for the shape
    and the normalisation rule). Raises ``ValueError`` when two models of one provider share
    an id or alias."""

    version: int = 1
    provider: str | None = None
    source: str | None = None
    updated_at: str | None = None
    models: dict[str, ModelPrice] = Field(default_factory=dict)
    providers: dict[str, ProviderPrices] = Field(default_factory=dict)

    _index: dict[tuple[str | None, str], list[PricedModel]] = PrivateAttr(default_factory=dict)

    @field_validator("updated_at", mode="before")
    @classmethod
    def _date_text(cls, value: Any) -> Any:
        return value.isoformat() if isinstance(value, date) else value

    @model_validator(mode="after")
    def _build_index(self) -> PricingTable:
        index: dict[tuple[str | None, str], list[PricedModel]] = {}
        for entry in self.entries():
            scope = None if entry.provider is None else _key(entry.provider)
            for name in dict.fromkeys(_key(n) for n in (entry.model_id, *entry.price.aliases)):
                found = index.setdefault((scope, name), [])
                if found:
                    raise ValueError(
                        f"{name!r} names both {found[0].model_id!r} and {entry.model_id!r}"
                        + (f" of provider {entry.provider!r}" if entry.provider else "")
                    )
                found.append(entry)
        self._index = index
        return self

    def entries(self) -> Iterator[PricedModel]:
        """Every model of the table: ``models`` first, then each provider's, in file order."""
        for model_id, price in self.models.items():
            yield PricedModel(self.provider, model_id, price)
        for provider, group in self.providers.items():
            for model_id, price in group.models.items():
                yield PricedModel(provider, model_id, price)

    def __len__(self) -> int:
        return sum(1 for _ in self.entries())

    def _find(
        self, provider: str | None, name: str, *, scoped_only: bool = False
    ) -> list[PricedModel]:
        name = _key(name)
        if provider is None:
            return [e for (_, n), entries in self._index.items() if n == name for e in entries]
        scoped = self._index.get((_key(provider), name), [])
        return list(scoped) if scoped_only else [*scoped, *self._index.get((None, name), ())]

    def resolve(
        self, model: str, provider: str | None = None, *, server_address: str | None = None
    ) -> PricedModel | None:
        """The entry pricing ``model`` (served by ``provider`` at ``server_address``, when
        known), or ``None``.

        Follows the normalisation rule of the module docstring (a table provider matches
        when it equals ``provider`` or ``server_address``; the address is tried first).
        Raises :class:`AmbiguousModelError` when the deciding step finds several entries.
        """
        names = {_key(p) for p in (provider, server_address) if p}
        steps: list[tuple[str | None, str, bool]] = []
        if server_address and (provider is None or _key(server_address) != _key(provider)):
            steps.append((server_address, model, True))
        steps.append((provider, model, False))
        for separator in (":", "/"):
            prefix, found, rest = model.partition(separator)
            if found and prefix.strip() and rest.strip():
                if not names or _key(prefix) in names:
                    steps.append((prefix, rest, False))
                break
        for scope, name, scoped_only in steps:
            matches = list(
                {id(e): e for e in self._find(scope, name, scoped_only=scoped_only)}.values()
            )
            if len(matches) > 1:
                listed = ", ".join(sorted(f"{m.provider or '*'}/{m.model_id}" for m in matches))
                raise AmbiguousModelError(f"model {model!r} matches several prices: {listed}")
            if matches:
                return matches[0]
        return None
