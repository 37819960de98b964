"""SpecCache in the data folder: ``cache/tool_specs.json``, keyed by what the specs are made from.

The key is a digest of Circle's version, pydantic's and Python's (they shape the schemas), and
the name, size and modification time of every file the specs come from: the tool modules, the
domain models their arguments use, and the tool descriptions (so an edited checkout or an
upgrade never reads a stale spec). A file that is missing, unreadable, not JSON, of another key
or of the wrong shape counts as no cache; the file is written whole or not at all (a temporary
file renamed over it), so a crash mid-write leaves the old one or none.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pydantic
from pydantic import JsonValue

from circle.domain.model import ToolSpec

FILE_NAME = "tool_specs.json"
_PACKAGE = Path(__file__).resolve().parents[2]
SOURCES = (_PACKAGE / "application" / "tools", _PACKAGE / "domain", _PACKAGE / "prompts" / "tools")
"""The folders whose files make the built-in specs."""


def source_key(version: str, *, sources: Sequence[Path] = SOURCES) -> str:
    """The digest naming one set of specs (see the module docstring)."""
    lines = [version, pydantic.VERSION, sys.version]
    for folder in sources:
        with contextlib.suppress(OSError):
            for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                if entry.name.endswith((".py", ".md")) and entry.is_file():
                    found = entry.stat()
                    lines.append(f"{folder.name}/{entry.name}:{found.st_size}:{found.st_mtime_ns}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


class JsonSpecCache:
    """Specs kept in ``folder / tool_specs.json``.

    Args:
        folder: the data folder's ``cache/`` (made on the first save).
        version: Circle's version.
        sources: the folders whose files the key covers (tests pass their own).
    """

    def __init__(self, folder: Path, *, version: str, sources: Sequence[Path] = SOURCES) -> None:
        self.path = folder / FILE_NAME
        self._version = version
        self._sources = tuple(sources)
        self._key: str | None = None

    def key(self) -> str:
        if self._key is None:
            self._key = source_key(self._version, sources=self._sources)
        return self._key

    async def load(self) -> dict[str, ToolSpec] | None:
        try:
            kept = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return None
        if (
            not isinstance(kept, dict)
            or kept.get("key") != self.key()
            or not isinstance(kept.get("specs"), list)
        ):
            return None
        specs: dict[str, ToolSpec] = {}
        for item in kept["specs"]:
            spec = _spec(item)
            if spec is None:
                return None
            specs[spec.name] = spec
        return specs

    async def save(self, specs: Sequence[ToolSpec]) -> None:
        body = {
            "key": self.key(),
            "specs": [
                {"name": s.name, "description": s.description, "parameters": s.parameters} for s in specs
            ],
        }
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=".tool_specs-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(body, out, separators=(",", ":"))
                os.replace(temporary, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise


def _spec(item: object) -> ToolSpec | None:
    if not isinstance(item, dict):
        return None
    name, description, parameters = item.get("name"), item.get("description"), item.get("parameters")
    if not (isinstance(name, str) and isinstance(description, str) and isinstance(parameters, dict)):
        return None
    schema: dict[str, JsonValue] = parameters
    return ToolSpec(name=name, description=description, parameters=schema)


__all__ = ["FILE_NAME", "SOURCES", "JsonSpecCache", "source_key"]
