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
"""

from __future__ import annotations

from textual.cache import LRUCache
from textual.css.stylesheet import Stylesheet

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


__all__ = ["PARSED", "KeptStylesheet", "keep_parsed"]
