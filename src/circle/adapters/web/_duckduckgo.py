"""Results from DuckDuckGo's HTML endpoint (html.duckduckgo.com/html/), parsed with ``html.parser``.

A result is an ``a.result__a`` (title and link) followed by a ``.result__snippet``. Links go through
DuckDuckGo's redirect (``//duckduckgo.com/l/?uddg=<the URL>``): the target is decoded from ``uddg``.
Ads (links to ``duckduckgo.com/y.js``) and anything not http or https are left out.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import parse_qs, urljoin, urlsplit

from circle.application.ports.web import SearchResult

_SPACE = re.compile(r"\s+")


def parse_results(html: str, *, max_results: int) -> list[SearchResult]:
    """The organic results of a DuckDuckGo HTML page, at most ``max_results``, in page order."""
    parser = _ResultParser()
    parser.feed(html)
    parser.close()
    parser.finish()
    seen: set[str] = set()
    results: list[SearchResult] = []
    for title, href, snippet in parser.found:
        url = target_url(href)
        if url is None or url in seen:
            continue
        seen.add(url)
        results.append(SearchResult(title=title or url, url=url, snippet=snippet))
        if len(results) >= max_results:
            break
    return results


def looks_refused(html: str) -> bool:
    """DuckDuckGo's bot check (a captcha page) rather than a page of results."""
    return "anomaly-modal" in html or "challenge-form" in html


def target_url(href: str) -> str | None:
    """The result's own URL: ``uddg`` decoded from a redirect link; None for ads and other schemes."""
    absolute = urljoin("https://duckduckgo.com/", href.strip())
    parts = urlsplit(absolute)
    host = (parts.hostname or "").lower()
    if host.endswith("duckduckgo.com"):
        if parts.path.startswith("/y.js"):
            return None  # an ad
        found = parse_qs(parts.query).get("uddg")
        if not found:
            return None
        absolute = found[0]
    if urlsplit(absolute).scheme.lower() not in ("http", "https"):
        return None
    return absolute


class _ResultParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str, str]] = []
        self._title: list[str] | None = None
        self._snippet: list[str] | None = None
        self._href = ""
        self._depth = 0
        """Open tags inside the snippet element (it ends when its own tag closes)."""
        self._pending: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if self._snippet is not None:
            self._depth += 1
        elif tag == "a" and "result__a" in classes:
            self._finish_pending()
            self._title, self._href = [], dict(attrs).get("href") or ""
        elif "result__snippet" in classes and self._pending is not None:
            self._snippet, self._depth = [], 1

    def handle_endtag(self, tag: str) -> None:
        if self._snippet is not None:
            self._depth -= 1
            if self._depth <= 0 and self._pending is not None:
                title, href = self._pending
                self.found.append((title, href, _clean(self._snippet)))
                self._snippet, self._pending = None, None
        elif self._title is not None and tag == "a":
            self._pending = (_clean(self._title), self._href)
            self._title = None

    def handle_data(self, data: str) -> None:
        if self._snippet is not None:
            self._snippet.append(data)
        elif self._title is not None:
            self._title.append(data)

    def _finish_pending(self) -> None:
        if self._pending is not None:  # a result without a snippet
            self.found.append((*self._pending, ""))
            self._pending = None

    def finish(self) -> None:
        self._finish_pending()


def _clean(pieces: list[str]) -> str:
    return _SPACE.sub(" ", "".join(pieces)).strip()


__all__ = ["looks_refused", "parse_results", "target_url"]
