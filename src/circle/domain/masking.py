"""Finding a value, or a long enough piece of it, in text, also when it was encoded on the way.

A :class:`Masker` holds values to hide, each with the label written in its place. It looks for each
value's *forms*: the value itself; its UTF-8 bytes in hex, in base64 (standard and URL-safe, padded or
not, and at each of the three byte alignments it can have inside a longer base64 stream) and
percent-encoded (the reserved characters, or every byte), also of the value reversed or in one case;
and each of those reversed. It compares
with ASCII case folded (``tr A-Z a-z``, hex in upper case) and whitespace left out (``xxd -p`` and
``base64`` wrapping lines, ``fold``, ``xxd``'s groups), so a form split across lines is one run.

A run of a form at least :func:`run_length` characters long (8, or half a short value, never under 4;
8 for hex and base64, which double or stretch the value), found anywhere, is hidden: a whole form is
written with the value's label (``%NAME%``), a piece with its part label (``%NAME%(part)``). Pieces
shorter than the run length, and encodings not listed here, are not found: this is a net for
mistakes, not a boundary.

Speed: the text's 4-character grams are sampled every 5 characters, so that every run of 8 or more
holds one, and the sample meets the forms' grams in one set intersection; only a sampled gram some
form holds is grown both ways along the form. The few shorter runs (of short values) are looked for
with ``str.find``.
"""

from __future__ import annotations

import base64
import re
import string
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from urllib.parse import quote, quote_plus

GRAM = 4
"""Characters in a sampled gram; also the shortest run ever hidden."""
LONG_RUN = 8
"""The run length of a form of 16 characters or more."""

_STEP = 5
_SAMPLED = GRAM + _STEP - 1
"""Runs this long or longer hold a gram sampled every ``_STEP`` characters; shorter ones are searched."""
_WHITESPACE = re.compile(r"\s+")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


@dataclass(frozen=True, slots=True)
class Hide:
    """One value to hide and what to write in its place.

    Args:
        value: The value.
        label: Written for the whole value or a whole encoding of it.
        part: Written for a piece of it.
        floor: The shortest run hidden; a form shorter than this is hidden whole only.
    """

    value: str
    label: str
    part: str
    floor: int = GRAM


@dataclass(frozen=True, slots=True)
class _Form:
    text: str
    whole: bool
    run: int
    owner: int


@dataclass(frozen=True, slots=True)
class _Run:
    start: int
    end: int
    owner: int
    size: int
    """Characters of the form, whitespace left out."""
    whole: bool
    """The run is a whole form that is a whole encoding of the value."""


def fold(text: str) -> str:
    """``text`` with ASCII letters in lower case, every character kept in its place."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def squeeze(text: str) -> str:
    """``text`` folded, without whitespace: what forms are looked for in."""
    return fold("".join(text.split()))


def run_length(size: int, *, floor: int = GRAM) -> int:
    """The shortest run of a form of ``size`` characters that is hidden: 8, half a short form, never
    under ``floor``, and never more than the form."""
    return min(size, max(floor, min(LONG_RUN, size // 2)))


def forms(value: str) -> list[tuple[str, bool, bool]]:
    """The forms of ``value`` looked for (squeezed, without repeats), each with whether it is a whole
    encoding of it and whether it is encoded (hex, base64: hidden from 8 characters only). The value
    reversed, in lower and in upper case is encoded too (``rev | base64``, ``tr a-z A-Z | xxd -p``)."""
    found = [(value, True, False)]
    for base in dict.fromkeys((value, value[::-1], value.lower(), value.upper())):
        found += _encodings(base)
    found += [(text[::-1], whole, encoded) for text, whole, encoded in found]
    kept: dict[str, tuple[bool, bool]] = {}
    for text, whole, encoded in found:
        key = squeeze(text)
        was_whole, was_encoded = kept.get(key, (False, True))
        kept[key] = (was_whole or whole, was_encoded and encoded)
    return [(text, whole, encoded) for text, (whole, encoded) in kept.items()]


def _encodings(text: str) -> list[tuple[str, bool, bool]]:
    """``text`` percent-encoded, in hex and in base64 (whole, or as it sits in a longer stream)."""
    raw = text.encode("utf-8", "surrogatepass")
    found = [(quote(text, safe=""), True, False), (quote_plus(text), True, False)]
    found += [(raw.hex(), True, True), ("".join(f"%{byte:02x}" for byte in raw), True, True)]
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        padded = encode(raw).decode("ascii")
        found += [(padded, True, True), (padded.rstrip("="), True, True)]
        found += [(_aligned(raw, shift, encode), False, True) for shift in (1, 2)]
    return found


def _aligned(raw: bytes, shift: int, encode: Callable[[bytes], bytes]) -> str:
    """The base64 characters that ``raw`` alone decides when ``shift`` bytes come before it."""
    stream = encode(b"\0" * shift + raw + b"\0\0").decode("ascii")
    first = -(-8 * shift // 6)
    return stream[first : 8 * (shift + len(raw)) // 6]


class Masker:
    """Hides values and runs of their forms in text.

    Args:
        hides: The values, in order of preference when two runs are as long.
    """

    __slots__ = ("_forms", "_grams", "_hides", "_keys", "_needles")

    def __init__(self, hides: Sequence[Hide]) -> None:
        self._hides = tuple(hides)
        self._forms: list[_Form] = []
        self._grams: dict[str, list[tuple[int, int]]] = {}
        self._needles: dict[str, list[tuple[int, int]]] = {}
        for owner, hide in enumerate(self._hides):
            for text, whole, encoded in forms(hide.value):
                floor = max(hide.floor, LONG_RUN) if encoded else hide.floor
                if len(hide.value) >= GRAM and len(text) >= GRAM:
                    self._add(_Form(text, whole, run_length(len(text), floor=floor), owner))
        self._keys = frozenset(self._grams)

    def _add(self, form: _Form) -> None:
        """Index ``form``: its grams when its runs are long enough to sample, else its runs."""
        index = len(self._forms)
        self._forms.append(form)
        size, table = (GRAM, self._grams) if form.run >= _SAMPLED else (form.run, self._needles)
        for offset in range(len(form.text) - size + 1):
            table.setdefault(form.text[offset : offset + size], []).append((index, offset))

    def __bool__(self) -> bool:
        return bool(self._forms)

    def mask(self, text: str) -> str:
        """``text`` with every run found written as its value's label (whole) or part label."""
        if not self._forms:
            return text
        view = squeeze(text)
        runs = self._runs(view)
        if not runs:
            return text
        if len(view) != len(text):
            where = _Positions(text)
            runs = [replace(run, start=where.start(run.start), end=where.end(run.end)) for run in runs]
        return self._write(text, runs)

    def _runs(self, view: str) -> list[_Run]:
        """The longest runs of forms in ``view``: from the sampled grams, then the short runs."""
        found: list[_Run] = []
        seen: dict[tuple[int, int], list[tuple[int, int]]] = {}
        grams = [view[i : i + GRAM] for i in range(0, len(view) - GRAM + 1, _STEP)]
        hits = self._keys.intersection(grams)
        if hits:
            for number, gram in enumerate(grams):
                if gram in hits:
                    self._grow(view, number * _STEP, GRAM, self._grams[gram], seen, found)
        for needle, places in self._needles.items():
            at = view.find(needle)
            while at != -1:
                self._grow(view, at, len(needle), places, seen, found)
                at = view.find(needle, at + 1)
        return found

    def _grow(
        self,
        view: str,
        at: int,
        size: int,
        places: list[tuple[int, int]],
        seen: dict[tuple[int, int], list[tuple[int, int]]],
        found: list[_Run],
    ) -> None:
        """Grow the piece at ``at`` along each form it is in (``places``: form, offset) to its run."""
        for index, offset in places:
            spans = seen.setdefault((index, at - offset), [])
            if any(a <= at < b for a, b in spans):
                continue
            form = self._forms[index]
            a, b = _extent(view, form.text, at, offset, size)
            spans.append((a, b))
            if b - a >= form.run:
                found.append(_Run(a, b, form.owner, b - a, form.whole and b - a == len(form.text)))

    def _write(self, text: str, runs: list[_Run]) -> str:
        """``text`` with each group of overlapping runs written as one label."""
        runs.sort(key=lambda run: run.start)
        out: list[str] = []
        done = first = 0
        while first < len(runs):
            start, end = runs[first].start, runs[first].end
            last = first + 1
            while last < len(runs) and runs[last].start < end:
                end = max(end, runs[last].end)
                last += 1
            best = max(runs[first:last], key=lambda run: (run.size, run.whole))
            hide = self._hides[best.owner]
            whole = best.whole and (best.start, best.end) == (start, end)
            out += [text[done:start], hide.label if whole else hide.part]
            done, first = end, last
        out.append(text[done:])
        return "".join(out)


def _extent(view: str, form: str, at: int, offset: int, size: int) -> tuple[int, int]:
    """The run of ``form`` in ``view`` around the ``size`` characters at ``at`` (``offset`` in it)."""
    left = 0
    while left < offset and left < at and view[at - left - 1] == form[offset - left - 1]:
        left += 1
    right, end = offset + size, at + size
    while right < len(form) and end < len(view) and view[end] == form[right]:
        right += 1
        end += 1
    return at - left, end


class _Positions:
    """Maps positions in text without whitespace back to the text."""

    __slots__ = ("_gaps", "_removed")

    def __init__(self, text: str) -> None:
        self._gaps: list[int] = []
        self._removed: list[int] = []
        removed = 0
        for match in _WHITESPACE.finditer(text):
            self._gaps.append(match.start() - removed)
            removed += match.end() - match.start()
            self._removed.append(removed)

    def start(self, index: int) -> int:
        """Where the character at ``index`` (without whitespace) is in the text."""
        before = bisect_right(self._gaps, index)
        return index + (self._removed[before - 1] if before else 0)

    def end(self, index: int) -> int:
        """Just after the character before ``index`` (without whitespace), in the text."""
        return self.start(index - 1) + 1


__all__ = ["GRAM", "LONG_RUN", "Hide", "Masker", "fold", "forms", "run_length", "squeeze"]
