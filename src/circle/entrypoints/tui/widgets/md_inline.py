"""Markdown read as chat text: the one shared parser, and the styled text of inline runs and table cells.

- the model's single line breaks are kept (a soft break becomes a hard one);
- a link shows where it goes, ``text (url)``, unless its text already is the address.
"""

from __future__ import annotations

import threading

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType
from rich.style import Style
from rich.text import Text

_INLINE_STYLES = {"strong": "bold", "em": "italic", "s": "strike", "link": "underline"}
_CODE = "bold cyan"


def _keep_line_breaks(state: StateCore) -> None:
    """The model's single line breaks stay line breaks (chat, not typesetting)."""
    for block in state.tokens:
        for child in block.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"


def _show_link_targets(state: StateCore) -> None:
    """After each link's text, its address in brackets, unless the text says it already."""
    for block in state.tokens:
        children = block.children
        if not children:
            continue
        shown: list[Token] = []
        opened: list[tuple[str, int]] = []
        for child in children:
            shown.append(child)
            if child.type == "link_open":
                opened.append((str(child.attrs.get("href", "")), len(shown)))
            elif child.type == "link_close" and opened:
                href, start = opened.pop()
                text = "".join(t.content for t in shown[start:-1])
                if href and _unsaid(href, text):
                    target = Token("text", "", 0)
                    target.content = f" ({href})"
                    shown.append(target)
        block.children = shown


def _unsaid(href: str, text: str) -> bool:
    """The link's text does not already say its address (``<https://…>``, a bare address)."""
    bare = text.strip()
    return href not in (bare, f"mailto:{bare}", f"http://{bare}", f"https://{bare}")


def _new_parser() -> MarkdownIt:
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("keep_line_breaks", _keep_line_breaks)
    parser.core.ruler.push("show_link_targets", _show_link_targets)
    return parser


class _ThreadParsers(MarkdownIt):
    """One parser for every widget, parsing with the calling thread's own: building one costs
    milliseconds (its autolink patterns), and a parser keeps state while it parses (answers are
    parsed on the event loop, tables and tests may parse on other threads)."""

    def __init__(self) -> None:
        super().__init__("gfm-like")
        self._own = threading.local()

    def parse(self, src: str, env: EnvType | None = None) -> list[Token]:
        parser: MarkdownIt | None = getattr(self._own, "parser", None)
        if parser is None:
            parser = self._own.parser = _new_parser()
        return parser.parse(src, env)


_shared: list[_ThreadParsers] = []


def chat_parser() -> MarkdownIt:
    """GitHub-like Markdown (tables, strikethrough, autolinks) read as chat text: one parser
    shared by every widget, safe on any thread."""
    if not _shared:
        _shared.append(_ThreadParsers())
    return _shared[0]


def inline_text(token: Token, *, code: Style | str = _CODE) -> Text:
    """An inline token's text with its bold, italic, struck and code spans (``code`` the style
    of inline code)."""
    text = Text()
    opened: list[tuple[str, int]] = []
    for child in token.children or ():
        kind = child.type
        if kind in ("text", "code_inline"):
            text.append(child.content, style=code if kind == "code_inline" else "")
        elif kind in ("softbreak", "hardbreak"):
            text.append("\n")
        elif kind == "image":  # its description, and where it is
            source = str(child.attrs.get("src", ""))
            text.append(f"{child.content or 'image'} ({source})" if source else child.content or "image")
        elif kind == "html_inline":
            text.append(child.content)
        elif kind.endswith("_open") and (style := _INLINE_STYLES.get(kind.removesuffix("_open"))):
            opened.append((style, len(text)))
        elif kind.endswith("_close") and kind.removesuffix("_close") in _INLINE_STYLES and opened:
            style, begin = opened.pop()
            text.stylize(style, begin, len(text))
    return text


def table_cells(source: str | list[Token]) -> tuple[list[Text], list[list[Text]]]:
    """The header and the rows of the (first) table in ``source`` (its text or its tokens), each
    cell's text styled."""
    headers: list[Text] = []
    rows: list[list[Text]] = []
    in_head = False
    for token in chat_parser().parse(source) if isinstance(source, str) else source:
        if token.type in ("thead_open", "thead_close"):
            in_head = token.type == "thead_open"
        elif token.type == "tr_open" and not in_head:
            rows.append([])
        elif token.type == "inline" and token.level >= 3:
            (headers if in_head else rows[-1]).append(inline_text(token))
        elif token.type == "table_close":
            break
    return headers, rows


__all__ = ["chat_parser", "inline_text", "table_cells"]
