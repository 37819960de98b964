"""HTML turned into readable Markdown with the standard library's ``html.parser``.

Rough by design: headings, paragraphs, links as ``[text](url)`` (resolved against the page's URL),
images as ``![alt](src)``, bold and italics, nested lists, inline code and ``pre`` blocks (fenced),
block quotes, and tables as pipe rows (nested tables flattened into their cell). Scripts, styles,
the head, forms' controls and other invisible parts are dropped. Broken HTML never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin

SKIPPED = frozenset(
    {"script", "style", "noscript", "template", "head", "svg", "canvas", "iframe", "select", "button", "math"}
)
BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "figure",
        "figcaption", "form", "fieldset", "address", "details", "summary", "dl", "dt", "dd", "body",
        "html", "center",
    }
)  # fmt: skip
HEADINGS = {f"h{n}": n for n in range(1, 7)}
EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*"}
BREAK = "\x01"  # a <br>, kept through whitespace collapsing
_SPACE = re.compile(r"[ \t\r\n\f\v]+")


def html_to_markdown(html: str, *, base_url: str = "") -> str:
    """The Markdown of ``html``; relative links and images are resolved against ``base_url``."""
    parser = _Converter(base_url)
    parser.feed(html)
    parser.close()
    return parser.result()


def _inline(pieces: list[str]) -> str:
    text = _SPACE.sub(" ", "".join(pieces))
    lines = [line.strip() for line in text.split(BREAK)]
    return "\n".join(lines).strip()


@dataclass
class _Table:
    rows: list[list[str]] = field(default_factory=list)
    cell: list[str] | None = None


class _Converter(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.blocks: list[tuple[str, bool]] = []
        """Finished blocks, each with whether it is a list item (joined to one before by one newline)."""
        self.inline: list[str] = []
        self.skip = 0
        self.pre: list[str] | None = None
        self.pre_depth = 0
        self.lists: list[list[int]] = []
        """Open lists: ``[-1]`` for ``ul``, ``[next number]`` for ``ol``."""
        self.marker: str | None = None
        self.quote = 0
        self.links: list[tuple[str, int]] = []
        self.tables: list[_Table] = []

    def result(self) -> str:
        self._flush()
        out: list[str] = []
        previous_tight = False
        for text, tight in self.blocks:
            if out:
                out.append("\n" if tight and previous_tight else "\n\n")
            out.append(text)
            previous_tight = tight
        return "".join(out).strip() + "\n"

    # -- blocks --------------------------------------------------------------------------------

    def _emit(self, text: str, *, tight: bool = False) -> None:
        if self.quote:
            text = "\n".join(f"{'> ' * self.quote}{line}".rstrip() for line in text.split("\n"))
        self.blocks.append((text, tight))

    def _flush(self) -> None:
        if self.tables and self.tables[-1].cell is not None:
            return  # a cell gathers its text until it closes
        text = _inline(self.inline)
        self.inline = []
        self.links = []
        if not text:
            return
        if self.lists:
            indent = "  " * (len(self.lists) - 1)
            marker = self.marker or " " * 2
            self.marker = None
            lead = f"{indent}{marker}"
            pad = " " * len(lead)
            text = "\n".join(lead + line if i == 0 else pad + line for i, line in enumerate(text.split("\n")))
            self._emit(text, tight=True)
        else:
            self._emit(text)

    # -- parser callbacks ----------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.skip = 0  # a <head> never closed
        if self.skip or tag in SKIPPED:
            self.skip += tag in SKIPPED and tag not in VOID
            return
        if self.pre is not None:
            self.pre_depth += tag == "pre"
            return
        attr = dict(attrs)
        if tag in BLOCKS or tag in HEADINGS or tag in ("blockquote", "hr", "table"):
            self._flush()
        if tag == "br":
            self._target().append(BREAK)
        elif tag == "hr":
            self._emit("---")
        elif tag == "blockquote":
            self.quote += 1
        elif tag == "pre":
            self._flush()
            self.pre, self.pre_depth = [], 1
        elif tag == "code":
            self._target().append("`")
        elif tag in EMPHASIS:
            self._target().append(EMPHASIS[tag])
        elif tag in ("ul", "ol"):
            self._flush()
            self.lists.append([-1] if tag == "ul" else [_start(attr.get("start"))])
        elif tag == "li":
            self._list_item()
        elif tag == "a":
            self.links.append((self._url(attr.get("href")), len(self._target())))
        elif tag == "img":
            self._image(attr)
        else:
            self._table_start(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skip:
            self.skip -= tag in SKIPPED
            return
        if self.pre is not None:
            self.pre_depth -= tag == "pre"
            if self.pre_depth <= 0:
                self._close_pre()
            return
        if tag in HEADINGS:
            text = _inline(self.inline).replace("\n", " ")
            self.inline, self.links = [], []
            if text:
                self._emit(f"{'#' * HEADINGS[tag]} {text}")
        elif tag in BLOCKS or tag == "li":
            self._flush()
        elif tag == "blockquote":
            self._flush()
            self.quote = max(0, self.quote - 1)
        elif tag == "code":
            self._target().append("`")
        elif tag in EMPHASIS:
            self._target().append(EMPHASIS[tag])
        elif tag in ("ul", "ol") and self.lists:
            self._flush()
            self.lists.pop()
        elif tag == "a" and self.links:
            self._close_link()
        else:
            self._table_end(tag)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre is not None:
            self.pre.append(data)
        else:
            self._target().append(data)

    # -- pieces --------------------------------------------------------------------------------

    def _url(self, href: str | None) -> str:
        href = (href or "").strip()
        if not href or href.lower().startswith(("javascript:", "data:", "#")):
            return ""
        return urljoin(self.base_url, href) if self.base_url else href

    def _target(self) -> list[str]:
        if self.tables and self.tables[-1].cell is not None:
            return self.tables[-1].cell
        return self.inline

    def _close_link(self) -> None:
        url, start = self.links.pop()
        target = self._target()
        text = _inline(target[start:]).replace("\n", " ")
        del target[start:]
        target.append(f"[{text}]({url})" if text and url else text)

    def _image(self, attr: dict[str, str | None]) -> None:
        src = self._url(attr.get("src"))
        alt = (attr.get("alt") or "").strip()
        if src and alt:
            self._target().append(f"![{alt}]({src})")

    def _list_item(self) -> None:
        self._flush()
        if not self.lists:
            self.lists.append([-1])  # an <li> outside any list
        current = self.lists[-1]
        if current[0] < 0:
            self.marker = "- "
        else:
            self.marker = f"{current[0]}. "
            current[0] += 1

    def _close_pre(self) -> None:
        text = "".join(self.pre or []).strip("\n")
        self.pre, self.pre_depth = None, 0
        if text.strip():
            self._emit(f"```\n{text}\n```")

    def _table_start(self, tag: str) -> None:
        if tag == "table":
            if self.tables and self.tables[-1].cell is not None:
                return  # a nested table reads as the text of its cell
            self.tables.append(_Table())
        elif tag == "tr" and self.tables and self.tables[-1].cell is None:
            self.tables[-1].rows.append([])
        elif tag in ("td", "th") and self.tables:
            table = self.tables[-1]
            if table.cell is not None:
                table.cell.append(" ")
                return
            if not table.rows:
                table.rows.append([])
            table.cell = []
            self.links = []

    def _table_end(self, tag: str) -> None:
        if not self.tables:
            return
        table = self.tables[-1]
        if tag in ("td", "th") and table.cell is not None:
            text = _inline(table.cell).replace("\n", " ").replace("|", "\\|")
            table.cell = None
            table.rows[-1].append(text)
        elif tag == "table" and table.cell is None:
            self.tables.pop()
            if rendered := _render_table(table.rows):
                self._emit(rendered)


VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "source", "wbr"})


def _start(value: str | None) -> int:
    try:
        return int(value or 1)
    except ValueError:
        return 1


def _render_table(rows: list[list[str]]) -> str:
    rows = [row for row in rows if any(cell for cell in row)]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    padded = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(padded[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(row) + " |" for row in padded[1:]]
    return "\n".join(lines)


__all__ = ["html_to_markdown"]
