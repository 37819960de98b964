"""Repetition detection for streamed model text: a model stuck saying the same thing again.

:class:`RepetitionDetector` is fed the deltas of one stream and says when its tail repeats
itself. Two rules, both checked at most once per ``check_every`` new characters over a bounded
window, so the cost per delta stays small:

- **A repeated chunk.** The tail is periodic: the last ``k * p`` characters are ``k`` copies of
  one chunk of ``p`` characters (``min_period <= p <= max_period``). A chunk with three or more
  different words must repeat ``max(min_repeats, min_span / p)`` times; a chunk of symbols, digits
  or whitespace (a table rule, a row of zeros, indentation, blank lines) must fill
  ``symbol_span`` characters, so code and tables do not trip it.
- **A repeated line.** One line of prose (``min_line_chars`` or more, three or more words) is
  ``line_repeats`` of the last ``line_window`` non-blank lines: a loop with small variations
  between the copies ("Wait, let me check the file again." after every other line).

Similar but different lines (a table, a log, a list of imports, CSV rows) never match either rule:
both compare text exactly. Once it fires the detector stays fired, and :attr:`cut` tells where
the repetition began (after its first copy), to trim what is kept.
"""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"[^\W\d_]{2,}")
_LINE_END = re.compile(r"\n")
_SENTENCE_END = re.compile(r"[.!?:;]\s")
_SPACE = re.compile(r"\s")


def _wordy(text: str) -> bool:
    """True when ``text`` holds three or more different words (prose, not symbols or digits)."""
    seen: set[str] = set()
    for match in _WORD.finditer(text):
        seen.add(match.group().lower())
        if len(seen) >= 3:
            return True
    return False


class RepetitionDetector:
    """Says when a stream of text starts repeating itself. Feed it every delta, in order."""

    def __init__(
        self,
        *,
        min_period: int = 12,
        max_period: int = 3000,
        min_repeats: int = 3,
        min_span: int = 300,
        symbol_span: int = 2000,
        min_line_chars: int = 16,
        line_window: int = 16,
        line_repeats: int = 8,
        check_every: int = 64,
    ) -> None:
        self.min_period = min_period
        self.max_period = max_period
        self.min_repeats = min_repeats
        self.min_span = min_span
        self.symbol_span = symbol_span
        self.min_line_chars = min_line_chars
        self.line_window = line_window
        self.line_repeats = line_repeats
        self.check_every = check_every
        self._window = max(min_repeats * max_period, symbol_span + max_period, 4096)
        self._buffer = ""
        self._pending: list[str] = []
        self._dropped = 0
        self._unchecked = 0
        self._cut: int | None = None

    @property
    def fired(self) -> bool:
        return self._cut is not None

    @property
    def cut(self) -> int | None:
        """Where the repetition began, as an offset into everything fed: the text before it and
        one copy of the repeated chunk are worth keeping. None until the detector fires."""
        return self._cut

    @property
    def fed(self) -> int:
        """How many characters have been fed."""
        return self._dropped + len(self._buffer) + self._unchecked

    def feed(self, delta: str) -> bool:
        """Add one delta; True once the tail repeats itself (and from then on)."""
        if self._cut is not None:
            return True
        if not delta:
            return False
        self._pending.append(delta)
        self._unchecked += len(delta)
        if self._unchecked < self.check_every:
            return False
        self._unchecked = 0
        self._buffer += "".join(self._pending)
        self._pending.clear()
        if len(self._buffer) > 2 * self._window:
            drop = len(self._buffer) - self._window
            self._buffer = self._buffer[drop:]
            self._dropped += drop
        cut = self._repeated_chunk()
        if cut is None:
            cut = self._repeated_line()
        if cut is not None:
            self._cut = self._dropped + cut
        return self._cut is not None

    def _periodic(self, period: int, span: int) -> bool:
        """True when the last ``span`` characters (rounded up to whole copies) repeat every ``period``."""
        buf = self._buffer
        n = len(buf)
        repeats = max(self.min_repeats, -(-span // period))
        if repeats * period > n:
            return False
        return buf[n - repeats * period : n - period] == buf[n - (repeats - 1) * period :]

    def _repeated_chunk(self) -> int | None:
        buf = self._buffer
        n = len(buf)
        probe_len = 24
        if n < max(self.min_period * self.min_repeats, probe_len + self.min_period):
            return None
        probe = buf[-probe_len:]
        end = n - self.min_period
        for _ in range(32):
            found = buf.rfind(probe, 0, end)
            if found < 0:
                return None
            period = n - (found + probe_len)
            if period > self.max_period:
                return None
            end = found + probe_len - 1
            if not self._periodic(period, self.min_span):
                continue
            if not _wordy(buf[n - period :]) and not self._periodic(period, self.symbol_span):
                continue
            start = self._periodic_start(period, n - self.min_repeats * period)
            return self._boundary(start + period, period)
        return None

    def _boundary(self, cut: int, period: int) -> int:
        """Move a cut forward, within one period, to the end of a line, sentence or word."""
        for pattern, width in ((_LINE_END, 1), (_SENTENCE_END, 2), (_SPACE, 1)):
            if (found := pattern.search(self._buffer, max(cut - width, 0), cut + period)) is not None:
                return found.end()
        return cut

    def _periodic_start(self, period: int, start: int) -> int:
        """Extend a periodic tail backwards as far as it goes."""
        buf = self._buffer
        while start >= period and buf[start - period : start] == buf[start : start + period]:
            start -= period
        while start > 0 and buf[start - 1] == buf[start - 1 + period]:
            start -= 1
        return start

    def _repeated_line(self) -> int | None:
        buf = self._buffer
        lines = [line.strip() for line in buf.rsplit("\n", 4 * self.line_window)[1:-1]]
        recent = [line for line in lines if line][-self.line_window :]
        counts = Counter(line for line in recent if len(line) >= self.min_line_chars)
        repeated = [line for line, count in counts.items() if count >= self.line_repeats and _wordy(line)]
        if not repeated:
            return None
        line = repeated[0]
        first = buf.find(line)
        second = buf.find(line, first + len(line))
        return buf.rfind("\n", 0, second) + 1


__all__ = ["RepetitionDetector"]
