"""The built-in tools' specs, taken from a :class:`~.ports.spec_cache.SpecCache` when it has them.

A start reads the specs a previous run of the same Circle made instead of making every tool's
JSON schema again; when the cache has none (or lacks one of the tools) they are made, all of
them, and saved for the next run.
"""

from __future__ import annotations

import asyncio

from .ports.spec_cache import SpecCache
from .tools import LazyTool, builtin_tools
from .tools.base import BuiltinTool, Tool

_KEEPS_SPECS = (BuiltinTool, LazyTool)


async def with_kept_specs(pool: dict[str, Tool], cache: SpecCache | None) -> dict[str, Tool]:
    """``pool`` with each built-in tool carrying its spec from ``cache`` (made and saved on a miss)."""
    if cache is None or not any(isinstance(tool, _KEEPS_SPECS) for tool in pool.values()):
        return pool
    kept = await cache.load()
    builtins = builtin_tools()
    if kept is None or not set(builtins) <= set(kept):  # made on a thread: they import every tool
        specs = await asyncio.to_thread(lambda: [tool.spec() for tool in builtins.values()])
        await cache.save(specs)
        kept = {spec.name: spec for spec in specs}
    return {
        name: tool.with_spec(kept[name]) if isinstance(tool, _KEEPS_SPECS) and name in kept else tool
        for name, tool in pool.items()
    }


__all__ = ["with_kept_specs"]
