"""Regular expressions compiled on first use, so that importing a module compiles none of them.

A start imports every module a turn might need; many patterns (an endpoint's error texts, the
redaction of credentials in output) serve only once something happens. ``LazyPattern`` has the
methods of ``re.Pattern`` that Circle uses, and compiles on the first call of any of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

Replacement = str | Callable[[re.Match[str]], str]


class LazyPattern:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self.pattern = pattern
        self.flags = int(flags)
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now, on the first use)."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.search(string, pos)

    def match(self, string: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(string, pos)

    def fullmatch(self, string: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos)

    def finditer(self, string: str, pos: int = 0) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos)

    def sub(self, repl: Replacement, string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(self, repl: Replacement, string: str, count: int = 0) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | None]:
        parts: list[str | None] = self.compiled.split(string, maxsplit)
        return parts

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags})"


def lazy_compile(pattern: str, flags: int | re.RegexFlag = 0) -> LazyPattern:
    """A pattern that compiles on first use; otherwise as ``re.compile(pattern, flags)``."""
    return LazyPattern(pattern, flags)


__all__ = ["LazyPattern", "lazy_compile"]
