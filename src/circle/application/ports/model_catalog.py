"""ModelCatalog: what a model can do and what it costs (context, output limit, prices, inputs)."""

from __future__ import annotations

from typing import Protocol

from circle.domain.catalog import ModelInfo, unknown_model


class ModelCatalog(Protocol):
    """Finds models by the ids people and endpoints use.

    ``lookup`` is synchronous: the catalog is in memory after its first use. It never fails: a
    model it does not know is :func:`~circle.domain.catalog.unknown_model` (128k, text only, no
    price), with the person's overrides from settings.json applied either way.
    """

    def lookup(self, model_id: str, *, provider: str | None = None) -> ModelInfo:
        """The model ``model_id`` names; ``provider`` is a hint ("openai", "anthropic"…)."""
        ...


class NoCatalog:
    """A catalog that knows no model: every lookup is :func:`~circle.domain.catalog.unknown_model`."""

    def lookup(self, model_id: str, *, provider: str | None = None) -> ModelInfo:
        return unknown_model(model_id)


__all__ = ["ModelCatalog", "NoCatalog"]
