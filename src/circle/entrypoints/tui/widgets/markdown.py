"""Markdown as people read it in a chat: the answers, and the plan and questions on the cards.

Textual's Markdown widget, with the parser and the styles a conversation wants:

- paragraphs apart, and the model's single line breaks kept (a soft break becomes a hard one);
- headings left-aligned and plain (no centred, shaded title bar);
- a link shows where it goes, ``text (url)``, unless its text already is the address;
- tables wrap their cells within the width; code blocks are highlighted and wrap their long
  lines, so nothing is cut off at the right edge (the conversation never scrolls sideways).

The text shown is escaped first (:func:`~circle.domain.display.escape_for_display`): control
characters and invisible ones never reach the terminal raw.
"""

from __future__ import annotations

import threading

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType
from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from circle.domain.display import escape_for_display

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


async def _nothing() -> None:
    return None


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
    milliseconds (its autolink patterns), and a parser keeps state while it parses (Textual parses
    a whole document on a thread and appended pieces on the event loop)."""

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


def _inline(token: Token) -> Text:
    """An inline token's text with its bold, italic, struck and code spans."""
    text = Text()
    opened: list[tuple[str, int]] = []
    for child in token.children or ():
        kind = child.type
        if kind in ("text", "code_inline"):
            text.append(child.content, style=_CODE if kind == "code_inline" else "")
        elif kind in ("softbreak", "hardbreak"):
            text.append("\n")
        elif kind.endswith("_open") and (style := _INLINE_STYLES.get(kind.removesuffix("_open"))):
            opened.append((style, len(text)))
        elif kind.endswith("_close") and kind.removesuffix("_close") in _INLINE_STYLES and opened:
            style, begin = opened.pop()
            text.stylize(style, begin, len(text))
    return text


def table_cells(source: str) -> tuple[list[Text], list[list[Text]]]:
    """The header and the rows of the (first) table in ``source``, each cell's text styled."""
    headers: list[Text] = []
    rows: list[list[Text]] = []
    in_head = False
    for token in chat_parser().parse(source):
        if token.type in ("thead_open", "thead_close"):
            in_head = token.type == "thead_open"
        elif token.type == "tr_open" and not in_head:
            rows.append([])
        elif token.type == "inline" and token.level >= 3:
            (headers if in_head else rows[-1]).append(_inline(token))
        elif token.type == "table_close":
            break
    return headers, rows


class WrappedTable(MarkdownBlock):
    """A table drawn within the width: the columns share it, and a cell too long for its column
    wraps (a long word folds) rather than being cut short."""

    DEFAULT_CSS = """
    WrappedTable {
        height: auto;
    }
    """

    def compose(self) -> ComposeResult:
        self._draw()
        yield from ()

    def _draw(self) -> None:
        headers, rows = table_cells(self.source or "")
        table = Table(box=box.SQUARE, show_lines=True, header_style="bold", expand=False)
        for header in headers:
            table.add_column(header, overflow="fold")
        for row in rows:
            table.add_row(*row[: len(headers)])
        self.update(table)

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        if isinstance(block, WrappedTable):
            self.source_range = block.source_range
            self._draw()
        else:
            await super()._update_from_block(block)


class ChatMarkdown(Markdown):
    """Markdown drawn for the conversation and the cards (see the module's docstring)."""

    BLOCKS = {**Markdown.BLOCKS, "table_open": WrappedTable}  # noqa: RUF012

    DEFAULT_CSS = """
    ChatMarkdown {
        padding: 0;
        & > MarkdownBlock {
            margin: 0 0 1 0;
        }
        & > MarkdownBlock:last-child {
            margin: 0;
        }
        MarkdownHeader {
            content-align: left top;
            width: 1fr;
            background: transparent;
            text-style: bold;
            color: $text-accent;
        }
        MarkdownH1 {
            text-style: bold underline;
        }
        MarkdownFence {
            overflow: hidden hidden;
            & > Label {
                width: 1fr;
                padding: 0 1;
            }
        }
        MarkdownTable {
            width: 1fr;
        }
    }
    """

    def __init__(self, markdown: str = "", *, classes: str | None = None) -> None:
        super().__init__(escape_for_display(markdown), classes=classes, parser_factory=chat_parser)
        self._built: tuple[str, list[MarkdownBlock]] | None = None

    def build(self, markdown: str) -> None:
        """Before it mounts: parse ``markdown`` now and mount its blocks with the widget, in the
        same batch (rows drawn again whole, as after /undo, take their heights in the first frame
        rather than mounting empty while a thread parses them)."""
        shown = escape_for_display(markdown)
        self._built = (shown, self._build_from_source(shown))
        self._initial_markdown = shown

    def compose(self) -> ComposeResult:
        if self._built is not None:
            yield from self._built[1]

    def update(self, markdown: str) -> AwaitComplete:
        """Draw ``markdown`` instead. An empty widget given nothing (an answer about to stream, as
        it mounts) is left as it is: Textual parses a document on the loop's shared thread pool,
        and while other work holds every thread there, the answer's pieces waited behind it. A
        widget :meth:`build` drew keeps its blocks when it mounts."""
        if self._built is not None and markdown == self._built[0]:
            self._built = None
            return self._drawn(markdown)
        if markdown or self.children:
            return super().update(markdown)
        return self._drawn("")

    def _drawn(self, markdown: str) -> AwaitComplete:
        """What an update that found ``markdown`` drawn already leaves."""
        self._theme = self.app.theme
        self._markdown = markdown
        self._table_of_contents = None
        lines = markdown.splitlines()
        self._last_parsed_line = len(lines) - (1 if lines and lines[-1] else 0)
        return AwaitComplete(_nothing())

    def show(self, markdown: str) -> None:
        """Show ``markdown`` instead (drawn now when mounted, else when it mounts)."""
        shown = escape_for_display(markdown)
        if self.is_mounted:
            self.update(shown)
        else:
            self._initial_markdown = shown


__all__ = ["ChatMarkdown", "WrappedTable", "chat_parser"]
