"""The end of a streamed answer as it will read once it closes: an emphasis or code span still open
(``Some **bold te``, ```` `code ````, ``_it``) is closed for the frame, so it shows bold, code or
italic while it streams rather than its raw markers; a marker with nothing after it yet is held
back. Once the real closing marker comes, nothing is added: the text drawn is the answer's own.

Only the last block is read (its lines back to a blank line or a line that begins a block), outside
a fenced code block; a ``*`` or ``_`` opens only where Markdown lets it (followed by a character,
not inside a word), so a list's bullet, ``2 * 3`` and ``snake_case`` stay as they are.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r" {0,3}(```|~~~)")
_BLOCK_START = re.compile(r" {0,3}([-*+] |\d{1,9}[.)] |#|>|\|)")
_EMPHASIS = "*_~"


def _last_block(text: str) -> int:
    """Where the last block of ``text`` begins (None of it inside a fenced code block: -1)."""
    lines = text.split("\n")
    if sum(1 for line in lines if _FENCE.match(line)) % 2:
        return -1
    at = len(text) - len(lines[-1])
    for index in range(len(lines) - 1, 0, -1):
        line = lines[index]
        if _BLOCK_START.match(line) or not lines[index - 1].strip() or _FENCE.match(lines[index - 1]):
            break
        at -= len(lines[index - 1]) + 1
    return at


def _run(text: str, at: int) -> int:
    end = at
    while end < len(text) and text[end] == text[at]:
        end += 1
    return end


def close_open_spans(text: str) -> str:
    """``text`` with its last block's open code span and emphasis closed (see the module)."""
    start = _last_block(text)
    if start < 0:
        return text
    opened: list[tuple[str, int]] = []  # a marker, where it begins
    code: tuple[str, int] | None = None
    at = start
    while at < len(text):
        char = text[at]
        if char == "\\" and code is None:
            at += 2
            continue
        if char not in "`" + _EMPHASIS:
            at += 1
            continue
        end = _run(text, at)
        marker = text[at:end]
        if char == "`":
            if code is None:
                code = (marker, at)
            elif code[0] == marker:
                code = None
        elif code is None:
            count = len(opened)
            _emphasis(text, at, end, opened)
            if end == len(text) and len(opened) == count and not (at and text[at - 1].isalnum()):
                return _closed(text[:at], opened, code)  # a marker with nothing after it yet
        at = end
    return _closed(text, opened, code)


def _emphasis(text: str, at: int, end: int, opened: list[tuple[str, int]]) -> None:
    """The run ``text[at:end]`` of ``*``, ``_`` or ``~`` closes an open one, or opens one."""
    marker = text[at:end]
    before = text[at - 1] if at else " "
    after = text[end] if end < len(text) else ""
    if marker[0] == "~" and len(marker) != 2:
        return
    closes = {marker, marker[0], marker[:2]} if len(marker) == 3 else {marker}
    found = next((i for i, (m, _) in enumerate(opened) if m in closes), None)
    if found is not None and not before.isspace() and not (marker[0] == "_" and after.isalnum()):
        del opened[found:]
        return
    if len(marker) > 3 or not after or after.isspace() or before.isalnum():
        return
    if len(marker) == 3:  # bold and italic at once: two spans
        opened += [(marker[0], at), (marker[:2], at + 1)]
    else:
        opened.append((marker, at))


def _closed(text: str, opened: list[tuple[str, int]], code: tuple[str, int] | None) -> str:
    closing = ""
    if code is not None:
        marker, at = code
        if text[at + len(marker) :].strip():
            closing = marker
        else:
            text = text[:at]  # nothing in it yet: held back
        opened = [(m, begin) for m, begin in opened if begin < at]
    while opened and not text[opened[-1][1] + len(opened[-1][0]) :].strip():
        text = text[: opened.pop()[1]]  # nothing after it yet: held back
    if not opened:
        return text + closing
    if not closing:
        last = opened[-1][0]
        ending = len(text) - len(text.rstrip(last[0]))
        text = text[: len(text) - ending] if ending < len(last) else text  # half of its closing
        text = text.rstrip()
    return text + closing + "".join(marker for marker, _ in reversed(opened))


__all__ = ["close_open_spans"]
