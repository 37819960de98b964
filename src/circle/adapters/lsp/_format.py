"""LSP results as text for the model: 1-based ``path:line:col``, workspace-relative paths."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

from .client import JSON

MAX_LOCATIONS = 200
MAX_SYMBOLS = 500
MAX_DIAGNOSTICS = 200
SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
SYMBOL_KINDS = [
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum-member",
    "struct",
    "event",
    "operator",
    "type-parameter",
]

LineReader = Callable[[str, int], str]
"""(path, 0-based line) -> the line's text ("" when unreadable)."""


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def to_utf16(text: str, column: int) -> int:
    """A code-point column of ``text`` as LSP's default UTF-16 offset."""
    return len(text[:column].encode("utf-16-le")) // 2


def from_utf16(text: str, offset: int) -> int:
    """A UTF-16 offset into ``text`` as a code-point column."""
    units = 0
    for index, char in enumerate(text):
        if units >= offset:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(text)


@dataclass(frozen=True, slots=True)
class Place:
    path: str
    line: int
    """0-based."""
    character: int
    """0-based, UTF-16 (as the server sent it)."""


class Formatter:
    def __init__(self, workspace: str, read_line: LineReader) -> None:
        self.workspace = workspace
        self.read_line = read_line

    def show(self, path: str) -> str:
        relative = os.path.relpath(path, self.workspace)
        return path if relative.startswith("..") else relative

    def where(self, place: Place) -> str:
        text = self.read_line(place.path, place.line)
        column = from_utf16(text, place.character) + 1
        return f"{self.show(place.path)}:{place.line + 1}:{column}"

    def locations(self, result: JSON, *, what: str, asked: str) -> str:
        places = sorted(set(_places(result)), key=lambda p: (p.path, p.line, p.character))
        if not places:
            return f"no {what} found at {asked}"
        lines = [f"{self.where(p)}: {self.read_line(p.path, p.line).strip()}" for p in places[:MAX_LOCATIONS]]
        head = f"{len(places)} {what}" + ("" if len(places) == 1 else "s") + ":"
        if len(places) > MAX_LOCATIONS:
            lines.append(f"(only the first {MAX_LOCATIONS} are shown)")
        return "\n".join([head, *lines])

    def diagnostics(self, path: str, items: list[JSON]) -> str:
        shown = self.show(path)
        if not items:
            return f"no problems reported in {shown}"
        rows: list[tuple[int, int, str]] = []
        for item in items:
            if not isinstance(item, dict):
                continue
            start = _start(item.get("range"))
            line, character = start if start else (0, 0)
            severity = SEVERITIES.get(item.get("severity", 1), "error")
            source = f" ({item['source']})" if item.get("source") else ""
            message = " ".join(str(item.get("message", "")).split())
            column = from_utf16(self.read_line(path, line), character) + 1
            rows.append((line, column, f"{shown}:{line + 1}:{column} {severity} {message}{source}"))
        rows.sort()
        lines = [row[2] for row in rows[:MAX_DIAGNOSTICS]]
        if len(rows) > MAX_DIAGNOSTICS:
            lines.append(f"(only the first {MAX_DIAGNOSTICS} of {len(rows)} are shown)")
        return "\n".join(lines)

    def symbols(self, path: str, result: JSON) -> str:
        flat: list[tuple[int, str, tuple[int, int], tuple[int, int]]] = []
        if isinstance(result, list):
            for item in result:
                if isinstance(item, dict):
                    _collect_symbols(item, 0, flat)
        if not flat:
            return f"no symbols in {self.show(path)}"
        if all(depth == 0 for depth, *_ in flat):  # SymbolInformation: nest by range containment
            flat = _nest(flat)
        lines = [
            f"{'  ' * depth}{label} (line {start[0] + 1})" for depth, label, start, _ in flat[:MAX_SYMBOLS]
        ]
        if len(flat) > MAX_SYMBOLS:
            lines.append(f"(only the first {MAX_SYMBOLS} of {len(flat)} are shown)")
        return "\n".join(lines)


def hover_text(result: JSON) -> str:
    """A hover's contents as plain text (code fences dropped)."""
    contents = result.get("contents") if isinstance(result, dict) else None
    parts = contents if isinstance(contents, list) else [contents]
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("value"), str):
            texts.append(part["value"])
    lines = [line for line in "\n\n".join(texts).splitlines() if not line.strip().startswith("```")]
    return "\n".join(lines).strip()


def _start(range_: JSON) -> tuple[int, int] | None:
    if isinstance(range_, dict) and isinstance(start := range_.get("start"), dict):
        line, character = start.get("line"), start.get("character")
        if isinstance(line, int) and isinstance(character, int):
            return line, character
    return None


def _end(range_: JSON) -> tuple[int, int] | None:
    if isinstance(range_, dict):
        return _start({"start": range_.get("end")})
    return None


def _places(result: JSON) -> list[Place]:
    items = result if isinstance(result, list) else [result]
    places: list[Place] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        uri = item.get("uri", item.get("targetUri"))
        start = _start(item.get("range", item.get("targetSelectionRange")))
        if isinstance(uri, str) and start is not None:
            places.append(Place(uri_to_path(uri), *start))
    return places


def _collect_symbols(
    item: dict[str, JSON], depth: int, out: list[tuple[int, str, tuple[int, int], tuple[int, int]]]
) -> None:
    kind = item.get("kind")
    kind_name = (
        SYMBOL_KINDS[kind - 1] if isinstance(kind, int) and 1 <= kind <= len(SYMBOL_KINDS) else "symbol"
    )
    range_ = item.get("range")
    if range_ is None and isinstance(item.get("location"), dict):
        range_ = item["location"].get("range")
    start, end = _start(range_) or (0, 0), _end(range_) or (0, 0)
    detail = f" {item['detail']}" if isinstance(item.get("detail"), str) and item["detail"] else ""
    out.append((depth, f"{kind_name} {item.get('name', '?')}{detail}", start, end))
    for child in item.get("children") or []:
        if isinstance(child, dict):
            _collect_symbols(child, depth + 1, out)


def _nest(
    flat: list[tuple[int, str, tuple[int, int], tuple[int, int]]],
) -> list[tuple[int, str, tuple[int, int], tuple[int, int]]]:
    """Flat symbols (by position) indented under the symbols whose range holds theirs."""
    ordered = sorted(flat, key=lambda s: (s[2], (-s[3][0], -s[3][1])))
    nested: list[tuple[int, str, tuple[int, int], tuple[int, int]]] = []
    open_ends: list[tuple[int, int]] = []
    for _, label, start, end in ordered:
        while open_ends and not (start < open_ends[-1] and end <= open_ends[-1]):
            open_ends.pop()
        nested.append((len(open_ends), label, start, end))
        open_ends.append(end)
    return nested
