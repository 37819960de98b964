"""The object a JSON text cut short holds so far: a tool call's arguments while they stream.

``{"command": "ls -l`` reads as ``{"command": "ls -l"}``: an open string is closed, open objects
and arrays are closed, and a member still without its value is left out. What cannot be read as an
object gives ``{}``, as pi's streaming parser does for a call's ``arguments``.
"""

from __future__ import annotations

import json

from pydantic import JsonValue

_CLOSERS = {"{": "}", "[": "]"}


def partial_object(text: str) -> dict[str, JsonValue]:
    """The object ``text`` (a JSON object, maybe cut short) holds so far; ``{}`` when none."""
    candidate: str | None = text
    for _ in range(4):  # each try drops the last member or item still being written
        if candidate is None:
            break
        value = _closed(candidate)
        if isinstance(value, dict):
            return value
        candidate = _cut_last(candidate)
    return {}


def _scan(text: str) -> tuple[list[str], bool, list[int]]:
    """The brackets still open, whether a string is open, and where members or items begin."""
    stack: list[str] = []
    in_string = escaped = False
    cuts: list[int] = []
    for position, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _CLOSERS:
            stack.append(char)
            cuts.append(position + 1)
        elif char in "}]" and stack:
            stack.pop()
        elif char == ",":
            cuts.append(position)
    return stack, in_string, cuts


def _closed(text: str) -> JsonValue:
    stack, in_string, _ = _scan(text)
    body = text
    if in_string:
        body = body[:-1] if body.endswith("\\") and not body.endswith("\\\\") else body
        body += '"'
    body = body.rstrip().removesuffix(",")
    closing = "".join(_CLOSERS[opener] for opener in reversed(stack))
    try:
        value: JsonValue = json.loads(body + closing)
    except (ValueError, RecursionError):
        return None
    return value


def _cut_last(text: str) -> str | None:
    """``text`` without its last member or item, or None when there is nothing left to drop."""
    _, _, cuts = _scan(text)
    earlier = [cut for cut in cuts if cut < len(text)]
    return text[: earlier[-1]] if earlier else None


__all__ = ["partial_object"]
