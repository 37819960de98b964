"""SpecCache: the fake and the data-folder file keep and give back the same specs; the file is
never trusted when broken or made from other sources."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from circle._testing.spec_cache import InMemorySpecCache
from circle.adapters.local.spec_cache import FILE_NAME, JsonSpecCache
from circle.application.ports.spec_cache import SpecCache
from circle.domain.model import ToolSpec

SPECS = [
    ToolSpec(name="ls", description="List.", parameters={"type": "object", "properties": {}}),
    ToolSpec(name="grep", description="Search.", parameters={"type": "object", "required": ["pattern"]}),
]


def _json(tmp_path: Path) -> SpecCache:
    sources = tmp_path / "sources"
    if not sources.exists():
        sources.mkdir()
        (sources / "tool.py").write_text("x = 1\n")
    return JsonSpecCache(tmp_path / "cache", version="1.0", sources=[sources])


MAKERS: dict[str, Callable[[Path], SpecCache]] = {"fake": lambda _: InMemorySpecCache(), "json": _json}


@pytest.mark.parametrize("kind", sorted(MAKERS))
async def test_saved_specs_come_back_by_name(kind: str, tmp_path: Path) -> None:
    cache = MAKERS[kind](tmp_path)
    assert await cache.load() is None

    await cache.save(SPECS)

    assert await cache.load() == {spec.name: spec for spec in SPECS}


def _saved(tmp_path: Path) -> JsonSpecCache:
    cache = _json(tmp_path)
    assert isinstance(cache, JsonSpecCache)
    return cache


async def test_a_broken_or_misshapen_file_is_no_cache(tmp_path: Path) -> None:
    cache = _saved(tmp_path)
    await cache.save(SPECS)
    for text in ("{not json", "[]", '{"key": 1}', cache.path.read_text().replace('"description"', '"d"')):
        cache.path.write_text(text)
        assert await cache.load() is None, text


async def test_specs_made_from_other_sources_or_another_version_are_stale(tmp_path: Path) -> None:
    await _saved(tmp_path).save(SPECS)
    source = tmp_path / "sources" / "tool.py"

    assert await _saved(tmp_path).load() is not None
    assert await JsonSpecCache(tmp_path / "cache", version="1.1", sources=[source.parent]).load() is None
    source.write_text("x = 22\n")
    os.utime(source, ns=(1, 1))
    assert await _saved(tmp_path).load() is None


async def test_a_cache_that_cannot_be_written_is_made_again_next_time(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the folder should be")
    cache = _saved(tmp_path)

    await cache.save(SPECS)  # no error

    assert await cache.load() is None
    assert not list(tmp_path.glob(f"**/{FILE_NAME}")) and not list(tmp_path.glob("**/.tool_specs-*"))
