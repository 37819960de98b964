"""Finding models the forgiving way, and settings.json's ``models`` over the catalog."""

from __future__ import annotations

import pytest

from circle.domain.catalog import (
    ModelInfo,
    ModelOverride,
    ModelTable,
    Prices,
    find_override,
    prices,
    refresh_allowed,
    similar_models,
    strip_date,
    unknown_model,
    with_override,
)
from circle.domain.errors import ConfigError
from circle.domain.settings import SettingsFile, merge_files, parse_settings_file

MINI = ModelInfo(id="gpt-4o-mini", provider="openai", prices=prices(0.15, 0.6))
GPT_4O = ModelInfo(id="gpt-4o", provider="openai", prices=prices(2.5, 10))
ROUTED_4O = ModelInfo(id="openai/gpt-4o", provider="openrouter", prices=prices(2.6, 11))
SONNET = ModelInfo(id="claude-sonnet-4-5", provider="anthropic", prices=prices(3, 15))
ROUTED_SONNET = ModelInfo(id="anthropic/claude-sonnet-4.5", provider="openrouter", prices=prices(3, 15))
TABLE = ModelTable([GPT_4O, MINI, SONNET, ROUTED_4O, ROUTED_SONNET])


@pytest.mark.parametrize(
    ("asked", "found"),
    [
        ("gpt-4o-mini", MINI),
        ("openai/gpt-4o", GPT_4O),
        ("openrouter/openai/gpt-4o", ROUTED_4O),
        ("anthropic/claude-sonnet-4-5", SONNET),
        ("anthropic/claude-sonnet-4.5", ROUTED_SONNET),
        ("accounts/acme/models/gpt-4o-mini", MINI),
        ("GPT-4o-Mini", MINI),
        ("OpenAI/GPT-4o", GPT_4O),
        ("gpt-4o-mini-2024-07-18", MINI),
        ("claude-sonnet-4-5-20250929", SONNET),
        ("claude-sonnet-4-5@20250929", SONNET),
        ("openai/GPT-4o-2024-08-06", GPT_4O),
    ],
)
def test_a_model_is_found_by_the_ids_people_use(asked: str, found: ModelInfo) -> None:
    assert TABLE.find(asked) == found


def test_the_provider_hint_picks_among_providers_and_falls_back() -> None:
    assert TABLE.find("openai/gpt-4o", provider="openrouter") == ROUTED_4O
    assert TABLE.find("gpt-4o", provider="my-gateway") == GPT_4O


def test_an_unknown_model_is_not_found() -> None:
    assert TABLE.find("llama-9") is None
    assert TABLE.find("") is None
    assert TABLE.find("gpt-4o-mini-extra") is None
    assert len(TABLE) == 5


@pytest.mark.parametrize(
    ("model_id", "undated"),
    [
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("claude-3-5-sonnet-20241022", "claude-3-5-sonnet"),
        ("gpt-4-0613", "gpt-4"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        ("llama-3-70b-8192", "llama-3-70b-8192"),
        ("gpt-4o", "gpt-4o"),
    ],
)
def test_strip_date(model_id: str, undated: str) -> None:
    assert strip_date(model_id) == undated


def test_an_override_replaces_what_it_names_and_keeps_the_rest() -> None:
    override = ModelOverride.model_validate({"context": 64000, "prices": {"output": 1.0}, "images": True})
    changed = with_override(MINI, override)
    assert changed.context_window == 64000 and changed.reads_images
    assert changed.prices == Prices(input=0.15, output=1.0, cache_read=0.15, cache_write=0.15)
    assert changed.max_output == MINI.max_output and changed.reasoning == MINI.reasoning


def test_an_override_prices_an_unknown_model() -> None:
    override = ModelOverride.model_validate({"prices": {"input": 2, "output": 4}, "output": 1000})
    changed = with_override(unknown_model("local-llm"), override)
    assert changed.prices == Prices(input=2, output=4, cache_read=2, cache_write=2)
    assert changed.max_output == 1000 and not changed.known


def test_an_override_is_found_by_the_id_asked_or_the_model_found() -> None:
    first, second = ModelOverride(context=1), ModelOverride(context=2)
    assert find_override({"GPT-4o-mini-2024-07-18": first}, "gpt-4o-mini-2024-07-18", MINI) is first
    assert find_override({"openai/gpt-4o-mini": second}, "gpt-4o-mini-2024-07-18", MINI) is second
    assert find_override({"gpt-4o-mini": second}, "openai/gpt-4o-mini", MINI) is second
    assert find_override({"gpt-4o": first}, "gpt-4o-mini", MINI) is None


def test_settings_hold_model_overrides_and_a_budget() -> None:
    settings = parse_settings_file(
        {"models": {"m": {"context": 32000, "prices": {"input": 1, "output": 2}}}, "budget_usd": 5},
        source="settings.json",
    )
    assert settings.budget_usd == 5.0
    assert settings.models["m"].context == 32000
    assert settings.models["m"].prices is not None and settings.models["m"].prices.output == 2


@pytest.mark.parametrize(
    "data",
    [{"budget_usd": -1}, {"models": {"m": {"context": 0}}}, {"models": {"m": {"prices": {"input": -2}}}}],
)
def test_bad_overrides_and_budgets_are_config_errors(data: object) -> None:
    with pytest.raises(ConfigError, match=r"settings\.json"):
        parse_settings_file(data, source="settings.json")


def test_a_project_adds_and_replaces_model_overrides_one_by_one() -> None:
    base = parse_settings_file({"models": {"a": {"context": 1}, "b": {"context": 2}}}, source="s")
    project = parse_settings_file({"models": {"b": {"context": 3}}, "budget_usd": 1}, source="p")
    merged = merge_files(base, project)
    assert {k: v.context for k, v in merged.models.items()} == {"a": 1, "b": 3}
    assert isinstance(merged.models["b"], ModelOverride) and merged.budget_usd == 1
    assert merge_files(base, SettingsFile()).models == base.models


@pytest.mark.parametrize(("value", "allowed"), [(None, True), ("1", True), ("0", False), ("off", False)])
def test_the_refresh_can_be_turned_off(value: str | None, allowed: bool) -> None:
    env = {} if value is None else {"CIRCLE_CATALOG_REFRESH": value}
    assert refresh_allowed(env) is allowed


def test_similar_models_puts_those_holding_the_name_first() -> None:
    listed = ["gpt-4o", "gpt-4o-mini", "anthropic/claude-sonnet-4-5", "o3"]
    assert similar_models("sonnet", listed) == ["anthropic/claude-sonnet-4-5"]
    assert similar_models("gpt-4", listed)[:2] == ["gpt-4o", "gpt-4o-mini"]
    assert similar_models("gtp-4o", listed)[0] == "gpt-4o"
    assert similar_models("llama", listed) == []
