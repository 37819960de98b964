"""InMemoryCatalog: a ModelCatalog over models given in a test, with the real matching rules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from circle.domain.catalog import (
    ModelInfo,
    ModelOverride,
    ModelTable,
    find_override,
    unknown_model,
    with_override,
)


class InMemoryCatalog:
    """Knows the models it is given (each with its ``provider``) and records every lookup.

    Example::

        catalog = InMemoryCatalog([ModelInfo(id="m", provider="p", prices=Prices(1, 2))])
    """

    def __init__(
        self, models: Iterable[ModelInfo] = (), *, overrides: Mapping[str, ModelOverride] | None = None
    ) -> None:
        self.models = list(models)
        self.overrides = dict(overrides or {})
        self.lookups: list[str] = []
        self._table = ModelTable(self.models)

    def lookup(self, model_id: str, *, provider: str | None = None) -> ModelInfo:
        self.lookups.append(model_id)
        info = self._table.find(model_id, provider=provider) or unknown_model(model_id)
        override = find_override(self.overrides, model_id, info)
        return with_override(info, override) if override is not None else info


__all__ = ["InMemoryCatalog"]
