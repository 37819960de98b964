"""Textual's stylesheet, with what it parsed kept while the interface runs.

Textual keeps the rules it parsed from each CSS source in a cache, but a screen with CSS of its
own, pushed for the first time, makes it parse every source again into a fresh stylesheet whose
cache is then thrown away: the session screen's sources were parsed twice as it came up (some 75
rule sets, 5-10 ms of the start, on the event loop), and each picker, record or card screen with
CSS parsed all of the sources again when it first opened. Here that fresh stylesheet shares this
one's cache, and the cache is large enough never to drop one, so a source is parsed once for a
set of variables (a theme change clears the cache, as in Textual).

The rules are Textual's own: the cache is keyed, as in Textual, by the CSS text, where it came
from, its precedence and its scope.

The session screen's own sources are parsed ahead, on the loader thread while "Starting Circle…"
shows (:func:`parse_ahead`), and put in the cache once the loader is done (:func:`take_parsed`):
parsed as the screen was pushed, they held the keys typed then some 15 ms longer. What is parsed
ahead is parsed with the variables the app has then, and kept only if it still has them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath
from types import SimpleNamespace

from textual.cache import LRUCache
from textual.css.errors import StylesheetError
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.tokenizer import TokenError
from textual.css.types import CSSLocation
from textual.dom import DOMNode

Source = tuple[str, CSSLocation, bool, int, str]
"""A CSS source as Textual's parse cache keys it: the CSS, where it came from, whether it is a
widget's DEFAULT_CSS, its tie breaker and its scope."""
Parsed = dict[Source, list[RuleSet]]

PARSED = 1024
"""Sources whose rules are kept: more than every widget class's ``DEFAULT_CSS`` and every screen's
``CSS`` the interface has (some 30 once it is up), so none is parsed twice."""


class KeptStylesheet(Stylesheet):
    """A :class:`Stylesheet` whose parse cache holds every source and survives :meth:`reparse`."""

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._parse_cache = LRUCache(PARSED)

    def reparse(self) -> None:
        """As Textual's: parse into a fresh stylesheet (so an error leaves this one as it was), but
        one that shares this one's cache, so the sources parsed already are not parsed again."""
        fresh = KeptStylesheet(variables=self._variables)
        fresh._parse_cache = self._parse_cache
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            fresh.add_source(
                css, read_from=read_from, is_default_css=is_defaults, tie_breaker=tie_breaker, scope=scope
            )
        try:
            fresh.parse()
        except Exception:
            self._invalid_css.update(fresh._invalid_css)  # not parsed again before Textual stops
            raise
        self._rules = fresh.rules
        self._rules_map = None
        self.source = fresh.source
        self._require_parse = False


def keep_parsed(stylesheet: Stylesheet) -> Stylesheet:
    """``stylesheet`` as a :class:`KeptStylesheet`: a new one with its variables when it has no
    source yet (as when the app is made); else itself, unchanged."""
    if type(stylesheet) is not Stylesheet or stylesheet.source:
        return stylesheet
    return KeptStylesheet(variables=stylesheet._variables)


def default_sources(nodes: Iterable[type[DOMNode]]) -> list[Source]:
    """The DEFAULT_CSS sources a widget of each of ``nodes`` adds to the stylesheet (its own and
    its bases'), as Textual adds them when the widget is mounted."""
    found: dict[Source, None] = {}
    for node in nodes:
        bases = SimpleNamespace(_node_bases=node._css_bases(node))  # what _get_default_css reads
        for read_from, css, tie_breaker, scope in DOMNode._get_default_css(bases):  # type: ignore[arg-type]
            found[(css, read_from, True, tie_breaker, scope)] = None
    return list(found)


def file_sources(paths: Sequence[str | PurePath]) -> list[Source]:
    """The sources of a screen's ``CSS_PATH`` files, as ``Stylesheet.read`` adds them; a file that
    cannot be read is left to Textual, which says so."""
    found: list[Source] = []
    for path in paths:
        try:
            css = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found.append((css, (os.path.abspath(os.path.expanduser(path)), ""), False, 0, ""))
    return found


def parse_ahead(sources: Iterable[Source], variables: dict[str, str]) -> Parsed:
    """The rules of ``sources`` parsed with ``variables`` (call it on any thread: it touches no
    app); a source that does not parse is left out, for Textual to parse and report."""
    parser = Stylesheet(variables=variables)
    parsed: Parsed = {}
    for source in sources:
        css, read_from, is_default, tie_breaker, scope = source
        try:
            parsed[source] = parser._parse_rules(css, read_from, is_default, tie_breaker, scope)
        except (StylesheetError, TokenError):
            continue
    return parsed


def take_parsed(stylesheet: Stylesheet, parsed: Parsed, *, variables: dict[str, str]) -> int:
    """Keep what :func:`parse_ahead` parsed with ``variables`` in ``stylesheet``'s cache, when it
    still has those variables (a theme chosen meanwhile would style with the old colours), on the
    app's thread; how many sources were kept."""
    if stylesheet._variables != variables:
        return 0
    cache = stylesheet._parse_cache
    kept = 0
    for source, rules in parsed.items():
        if source not in cache:
            cache[source] = rules
            kept += 1
    return kept


__all__ = [
    "PARSED",
    "KeptStylesheet",
    "Parsed",
    "Source",
    "default_sources",
    "file_sources",
    "keep_parsed",
    "parse_ahead",
    "take_parsed",
]
