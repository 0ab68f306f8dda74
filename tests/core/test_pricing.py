"""Pricing DSL: rates and tiers, model-id normalisation, exact call costs, YAML round trip,
and the llm-prices and genai-prices importers (local data only)."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from autobench.core.pricing import (
    AmbiguousModelError,
    InconsistentUsageError,
    MissingRateError,
    ModelPrice,
    PriceTier,
    PricingError,
    PricingTable,
    ProviderPrices,
    StaticPriceSource,
    TokenRate,
    TokenUsage,
    call_cost,
    dump_pricing_table,
    from_genai_prices,
    from_llm_prices,
    load_pricing_table,
)

LLM_PRICES = Path(__file__).resolve().parents[1] / "fixtures" / "llm-prices"


def flat(price: str, unit: str = "mtok") -> TokenRate:
    return TokenRate(unit=unit, price=Decimal(price))  # type: ignore[arg-type]


def test_flat_rates_are_exact_per_unit() -> None:
    assert flat("2.5").cost(1_000, input_tokens=1_000) == Decimal("0.0025")
    assert flat("0.3", "ktok").cost(7, input_tokens=7) == Decimal("0.0021")
    assert flat("0.000001", "tok").cost(3, input_tokens=3) == Decimal("0.000003")
    # 0.1 + 0.2 style float error never appears: Decimal all the way.
    price = ModelPrice(input=flat("0.1"), output=flat("0.2"))
    assert call_cost(price, TokenUsage(1_000_000, 1_000_000)) == Decimal("0.3")


def test_huge_token_counts_are_costed_exactly() -> None:
    price = ModelPrice(input=flat("1.1"), output=flat("0.000000123456789"))
    usage = TokenUsage(123456789012345678901234567890, 98765432109876543210987654321)
    # 123456789012345678901234567890 * 1.1 / 10**6 + 98765432109876543210987654321
    # * 0.000000123456789 / 10**6, worked out digit for digit (47 significant digits,
    # more than the default decimal context's 28 would keep).
    assert call_cost(price, usage) == Decimal("135802480106843359274211.235927285321112635269")


def test_tier_boundary_is_inclusive_and_the_whole_request_moves_up() -> None:
    tiered = TokenRate(
        unit="mtok",
        tiers=(PriceTier(up_to=1000, price=Decimal(1)), PriceTier(price=Decimal(2))),
    )
    price = ModelPrice(input=tiered, output=TokenRate(tiers=tiered.tiers))
    at_limit = call_cost(price, TokenUsage(input_tokens=1000, output_tokens=10))
    above = call_cost(price, TokenUsage(input_tokens=1001, output_tokens=10))
    assert at_limit == Decimal(1010) * 1 / 1_000_000
    # One token above the limit: every input and output token at the second tier's price.
    assert above == Decimal(1011) * 2 / 1_000_000


def test_headline_price_must_match_first_tier_and_tiers_must_be_well_formed() -> None:
    TokenRate(
        price=Decimal("0.3"),
        tiers=(PriceTier(up_to=5, price=Decimal("0.3")), PriceTier(price=Decimal(1))),
    )
    with pytest.raises(ValidationError, match="differs from the first tier"):
        TokenRate(
            price=Decimal(1),
            tiers=(PriceTier(up_to=5, price=Decimal(2)), PriceTier(price=Decimal(3))),
        )
    with pytest.raises(ValidationError, match="last tier must be open"):
        TokenRate(tiers=(PriceTier(up_to=5, price=Decimal(2)),))
    with pytest.raises(ValidationError, match="must increase"):
        TokenRate(
            tiers=(
                PriceTier(up_to=5, price=Decimal(2)),
                PriceTier(up_to=5, price=Decimal(2)),
                PriceTier(price=Decimal(1)),
            )
        )
    with pytest.raises(ValidationError, match="needs 'price' or 'tiers'"):
        TokenRate()
    with pytest.raises(ValidationError):
        TokenRate(price=Decimal(-1))
    with pytest.raises(ValidationError, match="at least one of"):
        ModelPrice()
    # The spec's alternative spelling.
    rate = TokenRate.model_validate(
        {
            "tiers": [
                {"up_to_tokens": 10, "price_per_million_tokens": 4},
                {"price_per_million_tokens": 6},
            ]
        }
    )
    assert rate.price_at(11) == 6
    assert TokenRate.model_validate({"price_per_million_tokens": 1.0}) == flat("1")


def test_cache_tokens_are_part_of_input_and_priced_at_their_own_rate() -> None:
    price = ModelPrice(
        input=flat("1"), output=flat("4"), cache_read=flat("0.1"), cache_write=flat("2")
    )
    usage = TokenUsage(
        input_tokens=1000, output_tokens=100, cache_read_tokens=600, cache_write_tokens=100
    )
    expected = (
        Decimal(300) * 1 + Decimal(100) * 4 + Decimal(600) * Decimal("0.1") + Decimal(100) * 2
    ) / 1_000_000
    assert call_cost(price, usage) == expected
    with pytest.raises(MissingRateError) as missing:
        call_cost(ModelPrice(input=flat("1"), output=flat("4")), usage)
    assert missing.value.rates == ("cache_read", "cache_write")
    with pytest.raises(InconsistentUsageError):
        call_cost(price, TokenUsage(input_tokens=10, output_tokens=1, cache_read_tokens=11))
    # Zero tokens of a kind never need its rate.
    assert call_cost(ModelPrice(output=flat("4")), TokenUsage(0, 1_000_000)) == Decimal(4)


def _table() -> PricingTable:
    return PricingTable(
        provider="openrouter",
        models={
            "openai/gpt-5.6-luna": ModelPrice(
                aliases=("luna",), input=flat("0.4"), output=flat("1.6")
            ),
        },
        providers={
            "openai": ProviderPrices(
                models={"gpt-4o": ModelPrice(input=flat("2.5"), output=flat("10"))}
            ),
            "azure": ProviderPrices(
                models={"gpt-4o": ModelPrice(input=flat("3"), output=flat("12"))}
            ),
        },
    )


def test_model_id_normalisation_rule() -> None:
    table = _table()
    luna = table.resolve("openai/gpt-5.6-luna", "openrouter")
    assert luna is not None and luna.model_id == "openai/gpt-5.6-luna"
    # provider:model and provider/model prefixes, the provider given separately, aliases, case.
    for model, provider in (
        ("openrouter:openai/gpt-5.6-luna", None),
        ("openrouter:openai/gpt-5.6-luna", "openrouter"),
        ("openrouter/openai/gpt-5.6-luna", None),
        ("LUNA", "OpenRouter"),
        ("openai/gpt-5.6-luna", None),
    ):
        found = table.resolve(model, provider)
        assert found is not None and found.model_id == "openai/gpt-5.6-luna", (model, provider)
    assert table.resolve("gpt-4o", "openai").provider == "openai"  # type: ignore[union-attr]
    assert table.resolve("azure:gpt-4o").provider == "azure"  # type: ignore[union-attr]
    assert table.resolve("openai/gpt-4o", "openai").provider == "openai"  # type: ignore[union-attr]
    # A prefix naming another provider than the call's is not followed.
    assert table.resolve("azure:gpt-4o", "openai") is None
    assert table.resolve("gpt-4o", "vertex") is None
    assert table.resolve("unknown-model") is None
    with pytest.raises(AmbiguousModelError, match="azure/gpt-4o, openai/gpt-4o"):
        table.resolve("gpt-4o")


def test_a_provider_matches_by_the_calls_provider_name_or_its_server_address() -> None:
    prices = {"gpt-4o": ModelPrice(input=flat("2.5"), output=flat("10"))}
    by_name = PricingTable(provider="openai", models=prices)
    by_host = PricingTable(provider="llm.example.com", models=prices)
    for table in (by_name, by_host):
        found = table.resolve("gpt-4o", "openai", server_address="llm.example.com")
        assert found is not None and found.model_id == "gpt-4o", table.provider
        # a prefix naming either name is followed
        assert table.resolve(f"{table.provider}:gpt-4o", "openai", server_address="llm.example.com")
    assert by_host.resolve("gpt-4o", "openai") is None  # no address: the host is unknown
    assert by_name.resolve("gpt-4o", "openai", server_address="other.example.com") is not None
    assert by_host.resolve("gpt-4o", "anthropic", server_address="other.example.com") is None
    # both named: the address is the more specific one and decides, without ambiguity
    both = PricingTable(
        providers={
            "openai": ProviderPrices(models=prices),
            "llm.example.com": ProviderPrices(
                models={"gpt-4o": ModelPrice(input=flat("1"), output=flat("1"))}
            ),
        }
    )
    found = both.resolve("gpt-4o", "openai", server_address="LLM.example.com")
    assert found is not None and found.provider == "llm.example.com"
    found = both.resolve("gpt-4o", "openai", server_address="api.openai.com")
    assert found is not None and found.provider == "openai"


def test_models_without_provider_match_any_provider_and_duplicates_are_refused() -> None:
    table = PricingTable(models={"m": ModelPrice(input=flat("1"))})
    assert table.resolve("m", "anyone") is not None
    with pytest.raises(ValidationError, match="names both"):
        PricingTable(
            models={
                "a": ModelPrice(aliases=("b",), input=flat("1")),
                "b": ModelPrice(input=flat("1")),
            }
        )


def test_load_and_dump_the_exported_pricing_shape(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(
        """\
pricing:
  provider: openrouter
  source: genai-prices
  updated_at: "2026-05-07"
  models:
    google/gemini-3-flash-preview:
      name: Gemini 3 Flash Preview
      aliases:
        - google:gemini-3-flash-preview
      input:
        unit: mtok
        price: 0.3
        tiers:
          - up_to: 1000000
            price: 0.3
          - price: 0.6
      output:
        unit: mtok
        price: 2.5
      cache_read:
        unit: mtok
        price: 0.03
"""
    )
    table = load_pricing_table(path)
    assert StaticPriceSource(path).load() == table
    entry = table.resolve("google:gemini-3-flash-preview", "openrouter")
    assert entry is not None and entry.price.input is not None
    assert entry.price.input.price_at(1_000_001) == Decimal("0.6")
    out = dump_pricing_table(table, tmp_path / "out.yaml")
    text = out.read_text()
    assert text.startswith("record:\n  type: pricing\n  version: 1\n")
    assert "price: 0.3\n" in text and "unit: mtok" in text
    assert load_pricing_table(out) == table


def test_pricing_file_errors_name_the_file_and_field(tmp_path: Path) -> None:
    with pytest.raises(PricingError, match="cannot read"):
        load_pricing_table(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("pricing:\n  models:\n    m:\n      input: {unit: gtok, price: 1}\n")
    with pytest.raises(
        PricingError, match=r"bad.yaml:4:21: invalid pricing at 'pricing.models.m.input.unit'"
    ):
        load_pricing_table(bad)
    bad.write_text("record: {type: run, version: 1}\npricing: {}\n")
    with pytest.raises(PricingError, match=r"record\.type"):
        load_pricing_table(bad)
    bad.write_text("pricing: [unclosed\n")
    with pytest.raises(PricingError, match="malformed YAML"):
        load_pricing_table(bad)


prices = st.decimals(min_value=0, max_value=10_000, places=6, allow_nan=False, allow_infinity=False)
odd_prices = st.builds(lambda d: d / 7, st.decimals(min_value=0, max_value=100, places=3)).map(
    lambda d: d.quantize(Decimal("1e-20"))
)


@st.composite
def rates(draw: st.DrawFn) -> TokenRate:
    unit = draw(st.sampled_from(["mtok", "ktok", "tok"]))
    if draw(st.booleans()):
        return TokenRate(unit=unit, price=draw(prices | odd_prices))
    limits = sorted(set(draw(st.lists(st.integers(1, 10**9), min_size=1, max_size=3))))
    tier_prices = draw(st.lists(prices, min_size=len(limits) + 1, max_size=len(limits) + 1))
    tiers = tuple(
        PriceTier(up_to=limits[i] if i < len(limits) else None, price=p)
        for i, p in enumerate(tier_prices)
    )
    return TokenRate(unit=unit, tiers=tiers)


names = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyz0123456789-./:", min_size=1, max_size=12
).filter(lambda s: s.strip() == s)


@st.composite
def tables(draw: st.DrawFn) -> PricingTable:
    ids = draw(st.lists(names, min_size=0, max_size=4, unique_by=str.casefold))
    models = {
        model_id: ModelPrice(
            name=draw(st.none() | st.text(max_size=10)),
            input=draw(rates()),
            output=draw(st.none() | rates()),
            cache_read=draw(st.none() | rates()),
        )
        for model_id in ids
    }
    return PricingTable(
        provider=draw(st.none() | st.sampled_from(["openai", "demo"])),
        source=draw(st.none() | st.just("manual")),
        updated_at=draw(st.none() | st.just("2026-05-07")),
        models=models,
    )


@settings(max_examples=60, deadline=None)
@given(table=tables())
def test_pricing_yaml_round_trip(
    tmp_path_factory: pytest.TempPathFactory, table: PricingTable
) -> None:
    path = tmp_path_factory.mktemp("pricing") / "table.yaml"
    dump_pricing_table(table, path)
    assert load_pricing_table(path) == table


def test_llm_prices_importer_reads_current_prices() -> None:
    table = from_llm_prices(LLM_PRICES)
    assert table.source == "llm-prices"
    assert set(table.providers) == {"anthropic", "google", "openai"}
    gpt4o = table.resolve("openai:gpt-4o")
    assert gpt4o is not None and gpt4o.price.cache_read == flat("1.25")
    assert gpt4o.price.input == flat("2.5") and gpt4o.price.output == flat("10")
    # Several history entries: the open one is current; `at` picks a day.
    luna = table.resolve("gpt-5.6-luna", "openai")
    assert (
        luna is not None
        and luna.price.input == flat("0.2")
        and luna.price.cache_read == flat("0.02")
    )
    before = from_llm_prices(LLM_PRICES / "openai.json", at=date(2026, 7, 1)).resolve(
        "gpt-5.6-luna"
    )
    assert before is not None and before.price.input == flat("1.0")
    no_cache = table.resolve("claude-3-opus", "anthropic")
    assert no_cache is not None and no_cache.price.cache_read is None


def test_llm_prices_importer_refuses_bad_files(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text(json.dumps({"models": []}))
    with pytest.raises(PricingError, match="not an llm-prices vendor file"):
        from_llm_prices(tmp_path)


def test_genai_prices_importer_matches_the_packages_own_prices() -> None:
    genai_data = pytest.importorskip("genai_prices.data")
    genai_types = pytest.importorskip("genai_prices.types")
    day = date(2026, 1, 1)
    table = from_genai_prices(providers=["google", "anthropic", "openai"], at=day)
    assert table.source == "genai-prices" and set(table.providers) == {
        "google",
        "anthropic",
        "openai",
    }
    google = next(p for p in genai_data.providers if p.id == "google")
    model = next(m for m in google.models if m.id == "gemini-2.5-pro")
    reference = model.prices if not isinstance(model.prices, list) else model.prices[-1].prices
    entry = table.resolve("google:gemini-2.5-pro")
    assert entry is not None
    # Tiered prompt pricing at and one token above the 200k limit agrees with genai-prices.
    for input_tokens in (200_000, 200_001):
        usage = genai_types.Usage(input_tokens=input_tokens, output_tokens=1000)
        expected = reference.calc_price(usage)["total_price"]
        assert call_cost(entry.price, TokenUsage(input_tokens, 1000)) == expected


def test_genai_prices_importer_reads_json_and_mappings(tmp_path: Path) -> None:
    data = {
        "providers": [
            {
                "id": "acme",
                "name": "Acme",
                "models": [
                    {
                        "id": "rocket-1",
                        "match": {
                            "or": [
                                {"equals": "rocket-1"},
                                {"equals": "rocket-latest"},
                                {"starts_with": "rocket"},
                            ]
                        },
                        "prices": [
                            {"prices": {"input_mtok": 1, "output_mtok": 2}},
                            {
                                "constraint": {"start_date": "2026-03-01"},
                                "prices": {
                                    "input_mtok": {
                                        "base": 2,
                                        "tiers": [{"start": 1000, "price": 3}],
                                    },
                                    "output_mtok": 4,
                                    "cache_read_mtok": 0.5,
                                },
                            },
                        ],
                    },
                    {
                        "id": "audio-only",
                        "match": {"equals": "audio-only"},
                        "prices": {"input_audio_mtok": 9},
                    },
                ],
            }
        ]
    }
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data))
    early = from_genai_prices(path, at=date(2026, 2, 1))
    late = from_genai_prices(data["providers"], at=date(2026, 4, 1))
    first = early.resolve("acme:rocket-latest")
    assert first is not None and first.price.input == flat("1")
    entry = late.resolve("rocket-latest", "acme")
    assert entry is not None and entry.price.aliases == ("rocket-latest",)
    assert entry.price.input == TokenRate(
        tiers=(PriceTier(up_to=1000, price=Decimal(2)), PriceTier(price=Decimal(3)))
    )
    assert late.resolve("audio-only") is None  # no token price Autobench models
    with pytest.raises(PricingError):
        from_genai_prices(tmp_path / "nope.json")


def test_a_flow_sequence_of_provider_model_aliases_loads(tmp_path: Path) -> None:
    """YAML 1.2: ``aliases: [openai:gpt-demo, gpt-demo]`` is a list of two plain strings (the
    C parser refuses a colon inside a flow scalar; the YAML 1.2 parser decides)."""
    path = tmp_path / "pricing.yaml"
    path.write_text(
        "pricing:\n"
        "  provider: openai\n"
        "  models:\n"
        "    gpt-demo-large:\n"
        "      aliases: [openai:gpt-demo, gpt-demo]\n"
        "      input: {unit: mtok, price: 1.0}\n"
        "      output: {unit: mtok, price: 2.0}\n"
    )
    table = load_pricing_table(path)
    for name in ("openai:gpt-demo", "gpt-demo", "gpt-demo-large"):
        found = table.resolve(name)
        assert found is not None and found.price.input == flat("1.0"), name
    path.write_text("pricing:\n  models: [a: b: c]\n")  # still malformed: still located
    with pytest.raises(PricingError, match=r"pricing.yaml:2:\d+: malformed YAML"):
        load_pricing_table(path)
