"""The ModelCatalog contract, held against ModelsDevCatalog (the shipped snapshot) and InMemoryCatalog."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from circle._testing.catalog import InMemoryCatalog
from circle.adapters.catalog.models_dev import ModelsDevCatalog
from circle.application.ports.model_catalog import ModelCatalog, NoCatalog
from circle.domain.catalog import ModelInfo, ModelOverride, Prices, prices, unknown_model

MINI = Prices(input=0.15, output=0.6, cache_read=0.075, cache_write=0.15)
GPT_4O = Prices(input=2.5, output=10.0, cache_read=1.25, cache_write=2.5)
SONNET = Prices(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)

# The same models as the snapshot has them (shared/fixtures/models/models-dev.json).
KNOWN = [
    ModelInfo(
        id="gpt-4o-mini",
        name="GPT-4o mini",
        provider="openai",
        context_window=128000,
        max_output=16384,
        prices=MINI,
        reads_images=True,
        reads_pdfs=True,
    ),
    ModelInfo(id="gpt-4o", name="GPT-4o", provider="openai", context_window=128000, prices=GPT_4O),
    ModelInfo(
        id="claude-sonnet-4-5",
        name="Claude Sonnet 4.5 (latest)",
        provider="anthropic",
        context_window=200000,
        max_output=64000,
        prices=SONNET,
        reasoning=True,
    ),
    ModelInfo(
        id="openai/gpt-4o",
        provider="openrouter",
        prices=prices(2.5, 10.0),
    ),
]

Factory = Callable[[Mapping[str, ModelOverride]], ModelCatalog]


def _models_dev(tmp_path: Path) -> Factory:
    return lambda overrides: ModelsDevCatalog(tmp_path, overrides=overrides, refresh=False)


def _in_memory(tmp_path: Path) -> Factory:
    return lambda overrides: InMemoryCatalog(KNOWN, overrides=overrides)


@pytest.fixture(params=[_models_dev, _in_memory], ids=["models-dev", "in-memory"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Factory:
    factory: Callable[[Path], Factory] = request.param
    return factory(tmp_path)


def test_a_known_model_has_its_limits_prices_and_inputs(make: Factory) -> None:
    info = make({}).lookup("gpt-4o-mini")
    assert (info.id, info.provider, info.known) == ("gpt-4o-mini", "openai", True)
    assert (info.context_window, info.max_output, info.prices) == (128000, 16384, MINI)
    assert info.reads_images and info.reads_pdfs and info.tool_calls and not info.reasoning
    sonnet = make({}).lookup("claude-sonnet-4-5")
    assert (sonnet.context_window, sonnet.prices, sonnet.reasoning) == (200000, SONNET, True)


@pytest.mark.parametrize(
    ("asked", "provider", "price"),
    [
        ("openai/gpt-4o-mini", "openai", MINI),
        ("openai/gpt-4o", "openai", GPT_4O),
        ("anthropic/claude-sonnet-4-5", "anthropic", SONNET),
        ("GPT-4o-Mini", "openai", MINI),
        ("gpt-4o-mini-2024-07-18", "openai", MINI),
        ("openrouter/openai/gpt-4o", "openrouter", prices(2.5, 10.0)),
    ],
)
def test_prefixed_cased_and_dated_ids_find_the_model(
    make: Factory, asked: str, provider: str, price: Prices
) -> None:
    info = make({}).lookup(asked)
    assert (info.provider, info.prices, info.known) == (provider, price, True)


def test_the_provider_hint_is_honoured(make: Factory) -> None:
    assert make({}).lookup("openai/gpt-4o", provider="openrouter").provider == "openrouter"
    assert make({}).lookup("gpt-4o", provider="nowhere").provider == "openai"


def test_an_unknown_model_is_the_unknown_default_never_an_error(make: Factory) -> None:
    catalog = make({})
    assert catalog.lookup("my-local-llm") == unknown_model("my-local-llm")
    assert catalog.lookup("") == unknown_model("")
    assert NoCatalog().lookup("gpt-4o") == unknown_model("gpt-4o")


def test_settings_overrides_win_over_the_catalog(make: Factory) -> None:
    catalog = make(
        {
            "gpt-4o-mini": ModelOverride.model_validate(
                {"context": 50000, "prices": {"input": 1, "output": 2}}
            ),
            "my-local-llm": ModelOverride.model_validate(
                {"prices": {"input": 0, "output": 0}, "images": True}
            ),
        }
    )
    mini = catalog.lookup("gpt-4o-mini-2024-07-18")
    assert mini.context_window == 50000 and mini.max_output == 16384
    assert mini.prices == Prices(input=1, output=2, cache_read=0.075, cache_write=0.15)
    local = catalog.lookup("my-local-llm")
    assert local.prices == Prices() and local.reads_images and not local.known
