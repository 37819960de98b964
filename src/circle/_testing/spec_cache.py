"""InMemorySpecCache: the fake of :class:`~circle.application.ports.spec_cache.SpecCache`."""

from __future__ import annotations

from collections.abc import Sequence

from circle.domain.model import ToolSpec


class InMemorySpecCache:
    """Keeps the specs saved last; records how many loads and saves it saw."""

    def __init__(self, specs: Sequence[ToolSpec] | None = None) -> None:
        self.specs = None if specs is None else list(specs)
        self.loads = 0
        self.saves = 0

    async def load(self) -> dict[str, ToolSpec] | None:
        self.loads += 1
        return None if self.specs is None else {spec.name: spec for spec in self.specs}

    async def save(self, specs: Sequence[ToolSpec]) -> None:
        self.saves += 1
        self.specs = list(specs)


__all__ = ["InMemorySpecCache"]
