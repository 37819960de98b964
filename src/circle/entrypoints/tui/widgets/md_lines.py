"""Markdown drawn as lines of text at a width, block by block, each block drawn once.

A conversation's answer is one widget (:class:`~circle.entrypoints.tui.widgets.markdown.ChatMarkdown`)
showing the lines made here, not a widget per paragraph and list item: a long session of list
answers made thousands of widgets, and each resize laid them all out. :class:`Drawing` splits the
parsed tokens into units (the top-level blocks, and each item of a top-level list) and keeps the
lines of each unit by its source and the width: a streamed answer draws again only the unit that
grew, and a finished one only when the width changes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from markdown_it.token import Token
from rich import box
from rich.console import Console, RenderableType
from rich.style import Style
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.content import Content

from circle.entrypoints.tui.widgets.md_inline import chat_parser, inline_text, table_cells
from circle.entrypoints.tui.widgets.md_stream import close_open_spans

_BULLETS = ("• ", "◦ ", "▪ ")
_BLANK = Content("")
_QUOTE = "▌ "


@dataclass(frozen=True, slots=True)
class Styles:
    """The styles Markdown is drawn with (from the widget's CSS and the app's theme)."""

    heading: Style
    h1: Style
    quote: Style
    rule: Style
    bullet: Style
    code_inline: Style
    code_theme: str


@dataclass(frozen=True, slots=True)
class Unit:
    """A piece of the answer drawn on its own: a top-level block, or one item of a top-level list."""

    key: str
    """What it draws from: its source, the item's marker, whether its list is tight."""
    tokens: list[Token]
    marker: str | None
    tight: bool
    group: int
    """The top-level block it belongs to (the items of one list share it)."""
    start: int
    """The source line it begins on."""


_console = Console(
    file=io.StringIO(), width=80, force_terminal=True, color_system="truecolor", emoji=False, highlight=False
)


def blocks(tokens: list[Token]) -> list[list[Token]]:
    """``tokens`` cut into their blocks at the outer level (an opening token to its close)."""
    found: list[list[Token]] = []
    depth = 0
    current: list[Token] = []
    for token in tokens:
        current.append(token)
        depth += token.nesting
        if depth == 0:
            found.append(current)
            current = []
    if current:
        found.append(current)
    return found


def units(source: str, *, first_line: int = 0, first_group: int = 0) -> list[Unit]:
    """The units of ``source``: its top-level blocks, a top-level list cut into its items
    (``source`` begins on line ``first_line`` of the whole text, in its block ``first_group``)."""
    lines = source.split("\n")
    found: list[Unit] = []
    for index, block in enumerate(blocks(chat_parser().parse(source))):
        first, group = block[0], first_group + index
        if first.type in ("bullet_list_open", "ordered_list_open"):
            tight = _tight(block)
            items = blocks(block[1:-1])
            for item, marker in zip(items, _markers(first, len(items), depth=0), strict=False):
                key = f"{marker}|{tight}|{_source(item[0], lines)}"
                found.append(Unit(key, item, marker, tight, group, first_line + _line(item[0])))
        else:
            key = _source(first, lines) or first.content
            found.append(Unit(key, block, None, True, group, first_line + _line(first)))
    return found


def _line(token: Token) -> int:
    return token.map[0] if token.map is not None else 0


def _source(token: Token, lines: list[str]) -> str:
    if token.map is None:
        return token.content
    start, end = token.map
    return "\n".join(lines[start:end])


def _tight(block: list[Token]) -> bool:
    return all(t.hidden for t in block if t.type == "paragraph_open")


def _markers(first: Token, count: int, *, depth: int) -> list[str]:
    if first.type == "bullet_list_open":
        return [_BULLETS[depth % len(_BULLETS)]] * count
    start = int(first.attrs.get("start", 1) or 1)
    numbers = [f"{n}." for n in range(start, start + count)]
    wide = max((len(n) for n in numbers), default=0)
    return [n.rjust(wide) + " " for n in numbers]


def draw_unit(unit: Unit, width: int, styles: Styles) -> list[Text]:
    """The lines of ``unit`` at ``width``."""
    if unit.marker is None:
        return _block(unit.tokens, width, styles)
    return _item(unit.tokens, unit.marker, width, styles, tight=unit.tight)


def _flow(tokens: list[Token], width: int, styles: Styles, *, apart: bool = True) -> list[Text]:
    """Blocks one under the other, a blank line between them when ``apart``."""
    lines: list[Text] = []
    for index, block in enumerate(blocks(tokens)):
        if index and apart:
            lines.append(Text())
        lines += _block(block, width, styles)
    return lines


def _block(tokens: list[Token], width: int, styles: Styles) -> list[Text]:
    first = tokens[0]
    kind = first.type
    if kind == "paragraph_open":
        return _wrap(inline_text(tokens[1], code=styles.code_inline), width)
    if kind == "heading_open":
        text = inline_text(tokens[1], code=styles.code_inline)
        text.stylize(styles.h1 if first.tag == "h1" else styles.heading)
        return _wrap(text, width)
    if kind in ("fence", "code_block"):
        return _code(first, width, styles)
    if kind in ("bullet_list_open", "ordered_list_open"):
        return _list(tokens, width, styles)
    if kind == "blockquote_open":
        inner = _flow(tokens[1:-1], max(1, width - len(_QUOTE)), styles)
        return [Text.assemble((_QUOTE, styles.quote)) + line for line in inner]
    if kind == "table_open":
        return _table(tokens, width)
    if kind == "hr":
        return [Text("─" * width, style=styles.rule)]
    inline = next((t for t in tokens if t.type == "inline"), None)
    return _wrap(
        inline_text(inline, code=styles.code_inline)
        if inline is not None
        else Text(first.content.rstrip("\n")),
        width,
    )


def _item(tokens: list[Token], marker: str, width: int, styles: Styles, *, tight: bool) -> list[Text]:
    pad = len(marker)
    inner = _flow(tokens[1:-1], max(1, width - pad), styles, apart=not tight) or [Text()]
    return [
        (Text.assemble((marker, styles.bullet)) if index == 0 else Text(" " * pad if line.plain else ""))
        + line
        for index, line in enumerate(inner)
    ]


def _list(tokens: list[Token], width: int, styles: Styles) -> list[Text]:
    items = blocks(tokens[1:-1])
    depth = max(0, tokens[0].level // 2)
    markers = _markers(tokens[0], len(items), depth=depth)
    tight = _tight(tokens)
    lines: list[Text] = []
    for index, (item, marker) in enumerate(zip(items, markers, strict=False)):
        if index and not tight:
            lines.append(Text())
        lines += _item(item, marker, width, styles, tight=tight)
    return lines


def _wrap(text: Text, width: int) -> list[Text]:
    return list(text.wrap(_console, max(1, width), overflow="fold")) or [Text()]


def _code(token: Token, width: int, styles: Styles) -> list[Text]:
    language = (token.info or "").split(" ")[0] or "text"
    syntax = Syntax(
        token.content.rstrip("\n"), language, theme=styles.code_theme, word_wrap=True, padding=(0, 1)
    )
    return _rendered(syntax, width, keep_pad=True)


def _table(tokens: list[Token], width: int) -> list[Text]:
    """A table within the width: the columns share it, a long cell wraps (a long word folds)."""
    headers, rows = table_cells(tokens)
    table = Table(box=box.SQUARE, show_lines=True, header_style="bold", expand=False)
    for header in headers:
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*row[: len(headers)])
    return _rendered(table, width, keep_pad=False)


def _rendered(renderable: RenderableType, width: int, *, keep_pad: bool) -> list[Text]:
    options = _console.options.update_width(max(1, width))
    lines: list[Text] = []
    for line in _console.render_lines(renderable, options, pad=keep_pad):
        text = Text.assemble(*((seg.text, seg.style or "") for seg in line if not seg.control))
        if not keep_pad:
            text.rstrip()
        lines.append(text)
    return lines


def _content(lines: list[Text]) -> Content:
    return Content.from_rich_text(Text("\n").join(lines), console=_console)


class Drawing:
    """The lines of a Markdown text at a width, kept by unit: drawing the text again (it grew, or
    the width changed back) draws only the units not drawn before."""

    def __init__(self) -> None:
        self._drawn: dict[tuple[str, int], tuple[Content, list[Content]]] = {}
        self._styles: Styles | None = None
        self._source = ""
        self._units: list[Unit] = []
        self._width = self._width_before = 0
        self._whole = True
        """The units come from parsing the whole text (not its end alone)."""
        self._closed = False
        """The last unit was parsed with its open spans closed (the text was growing)."""
        self.lines: list[Content] = []
        """The last drawing's lines; a line of a unit kept is the same object as before."""
        self.height = 0
        """How many lines the last drawing has."""
        self.units_drawn = 0
        """Units drawn so far (the others came from what was kept)."""

    def draw(self, source: str, width: int, styles: Styles, *, growing: bool = False) -> Content:
        """``source`` at ``width``: its units one under the other, a blank line between blocks.

        ``growing``: ``source`` is the text drawn last with more at its end (a streamed answer);
        only its last unit and what follows are parsed again. A list that turns loose, or an
        ordered one that needs wider numbers, is drawn so when the text is drawn without it.
        """
        if styles != self._styles:
            self._drawn, self._styles = {}, styles
        self._units = self._parsed(source, growing=growing)
        self._source = source
        kept: dict[tuple[str, int], tuple[Content, list[Content]]] = {}
        parts: list[Content] = []
        self.lines = []
        previous: Unit | None = None
        for unit in self._units:
            key = (unit.key, width)
            drawn_unit = self._drawn.get(key) or kept.get(key)
            if drawn_unit is None:
                content = _content(draw_unit(unit, width, styles))
                drawn_unit = (content, content.split(allow_blank=True))
                self.units_drawn += 1
            kept[key] = drawn_unit
            if previous is not None and (previous.group != unit.group or not unit.tight):
                parts.append(_BLANK)
                self.lines.append(_BLANK)
            parts.append(drawn_unit[0])
            self.lines += drawn_unit[1]
            previous = unit
        # the units at the width drawn before stay too: a layout tries a width, then another (a
        # scrollbar comes or goes), then the first again
        if width != self._width:
            self._width_before, self._width = self._width, width
        self._drawn = {key: got for key, got in self._drawn.items() if key[1] == self._width_before} | kept
        drawn = Content("\n").join(parts)
        self.height = len(self.lines)
        return drawn

    def _parsed(self, source: str, *, growing: bool) -> list[Unit]:
        """The units of ``source``; while it grows, its last block's open spans closed (they
        show as they will once closed, not as raw markers: :mod:`.md_stream`)."""
        if source == self._source and (self._whole or growing) and (growing or not self._closed):
            return self._units
        self._whole = not (growing and len(self._units) > 1 and source.startswith(self._source))
        if self._whole:
            return self._units_of(source, growing=growing)
        last = self._units[-1]
        tail = "\n".join(source.split("\n")[last.start :])
        return self._units[:-1] + self._units_of(
            tail, growing=growing, first_line=last.start, first_group=last.group
        )

    def _units_of(
        self, source: str, *, growing: bool, first_line: int = 0, first_group: int = 0
    ) -> list[Unit]:
        shown = close_open_spans(source) if growing else source
        self._closed = shown != source
        return units(shown, first_line=first_line, first_group=first_group)


__all__ = ["Drawing", "Styles", "Unit", "blocks", "draw_unit", "units"]
