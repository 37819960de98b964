"""SpecCache: the built-in tools' specs kept across runs, so a start does not make them again.

Making the JSON schemas of every tool's arguments is the one piece of work each start repeats
that depends on nothing but Circle itself. The adapter keys what it keeps by everything the
specs are made from (Circle's version and its tool modules and descriptions), so a spec it gives
back is the one :meth:`~circle.application.tools.base.BuiltinTool.spec` would make.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from circle.domain.model import ToolSpec


class SpecCache(Protocol):
    """Specs kept from an earlier run of the same Circle."""

    async def load(self) -> dict[str, ToolSpec] | None:
        """The kept specs by tool name; None when none are kept, or they are stale or unreadable."""
        ...

    async def save(self, specs: Sequence[ToolSpec]) -> None:
        """Keep ``specs`` for the next run; a failure to write is no error (they are made again)."""
        ...


__all__ = ["SpecCache"]
