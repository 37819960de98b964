"""The runtime's tools carry specs kept by a SpecCache, made and saved when it has none."""

from __future__ import annotations

from dataclasses import replace

from circle._testing.spec_cache import InMemorySpecCache
from circle.application.tool_specs import with_kept_specs
from circle.application.tools import builtin_tools


async def test_a_miss_makes_every_builtin_spec_and_saves_them() -> None:
    cache = InMemorySpecCache()
    pool = builtin_tools()

    tools = await with_kept_specs(pool, cache)

    assert cache.saves == 1 and cache.specs is not None
    assert {spec.name for spec in cache.specs} == set(builtin_tools())
    assert [tool.spec() for tool in tools.values()] == [tool.spec() for tool in pool.values()]


async def test_kept_specs_are_used_as_they_are() -> None:
    made = [tool.spec() for tool in builtin_tools().values()]
    cache = InMemorySpecCache([replace(spec, description=f"kept: {spec.description}") for spec in made])

    tools = await with_kept_specs({"ls": builtin_tools()["ls"]}, cache)

    assert tools["ls"].spec().description.startswith("kept: ")
    assert cache.saves == 0


async def test_a_cache_missing_a_tool_is_made_again_whole() -> None:
    made = [tool.spec() for tool in builtin_tools().values() if tool.name != "grep"]
    cache = InMemorySpecCache(made)

    tools = await with_kept_specs(builtin_tools(), cache)

    assert cache.saves == 1 and cache.specs is not None and len(cache.specs) == len(builtin_tools())
    assert tools["grep"].spec() == builtin_tools()["grep"].spec()
