"""Markdown as people read it in a chat: the answers, and the plan and questions on the cards.

One widget draws a whole Markdown text as lines (:mod:`.md_lines`), not a widget per block: a
99-item answer was some 410 widgets with Textual's Markdown widget, and a long session of them
froze the interface on every resize, /undo and key. The lines are drawn once per width; a text
that grows (a streamed answer) draws again only its last blocks. It reads as a chat wants:

- paragraphs apart, and the model's single line breaks kept (a soft break becomes a hard one);
- headings left-aligned and plain (no centred, shaded title bar);
- a link shows where it goes, ``text (url)``, unless its text already is the address;
- tables wrap their cells within the width; code blocks are highlighted and wrap their long
  lines, so nothing is cut off at the right edge (the conversation never scrolls sideways).

Being one text widget, find (ctrl+f) searches it and the mouse selects and copies from it like
any other row. The text shown is escaped first (:func:`~circle.domain.display.escape_for_display`):
control characters and invisible ones never reach the terminal raw.
"""

from __future__ import annotations

from typing import ClassVar
from weakref import WeakKeyDictionary

from rich.style import Style
from textual.app import RenderResult
from textual.content import Content, _FormattedLine
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, VisualType, visualize
from textual.widget import Widget
from textual.widgets import Static

from circle.domain.display import escape_for_display
from circle.entrypoints.tui.widgets.md_inline import chat_parser, table_cells
from circle.entrypoints.tui.widgets.md_lines import Drawing, Styles


def held_row(markdown: str) -> str:
    """``markdown`` without a table row it is still streaming: the row shows once its line ends,
    so a table lays out its columns again once a row rather than once a delta."""
    start = markdown.rfind("\n") + 1
    return markdown[:start] if markdown[start:].lstrip().startswith("|") else markdown


class ChatMarkdown(Static):
    """Markdown drawn for the conversation and the cards (see the module's docstring)."""

    PARTS: ClassVar[tuple[str, ...]] = (
        "chat-markdown--heading",
        "chat-markdown--h1",
        "chat-markdown--quote",
        "chat-markdown--rule",
        "chat-markdown--bullet",
        "chat-markdown--code-inline",
    )
    """The styles Markdown is drawn with, as CSS classes (Textual's component classes, read by
    :func:`shared_styles` rather than declared: see it)."""

    DEFAULT_CSS = """
    ChatMarkdown {
        height: auto;
        padding: 0;
        & > .chat-markdown--heading {
            text-style: bold;
            color: $text-accent;
        }
        & > .chat-markdown--h1 {
            text-style: bold underline;
            color: $text-accent;
        }
        & > .chat-markdown--quote {
            color: $text-muted;
        }
        & > .chat-markdown--rule {
            color: $text-muted;
        }
        & > .chat-markdown--bullet {
            color: $text-primary;
        }
        &:light > .chat-markdown--bullet {
            color: $text-secondary;
        }
        &:dark > .chat-markdown--code-inline {
            background: $warning 10%;
            color: $text-warning 95%;
        }
        &:light > .chat-markdown--code-inline {
            background: $error 5%;
            color: $text-error 95%;
        }
    }
    """

    def __init__(self, markdown: str = "", *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._given = markdown
        self._source = escape_for_display(markdown)
        self._drawing = Drawing()
        self._width = 0
        """The width the lines shown were drawn at (0: not drawn for the text now)."""
        self._drawn_styles: Styles | None = None
        self._styles_read: Styles | None = None
        """The styles read since the widget was last restyled (see :meth:`notify_style_update`)."""
        self._growing = False
        self._shown: Visual = Content("")
        self._drawn: Visual | None = None
        """The lines as drawn (``_shown`` is another while find highlights them)."""
        self._strips: dict[int, tuple[Content, VisualStyle, Strip]] = {}

    @property
    def source(self) -> str:
        """The Markdown shown (escaped for display)."""
        return self._source

    @property
    def units_drawn(self) -> int:
        """How many blocks (and top-level list items) were drawn so far; the rest were kept."""
        return self._drawing.units_drawn

    def show(self, markdown: str, *, growing: bool = False) -> None:
        """Show ``markdown`` instead (drawn at the next layout); ``growing``: it is the text
        shown with more at its end (only its last block is parsed again)."""
        if growing:
            markdown = held_row(markdown)
        if markdown == self._given and (growing or not self._growing):
            return
        if growing and markdown.startswith(self._given):  # escaping goes character by character
            shown = self._source + escape_for_display(markdown[len(self._given) :])
        else:
            shown = escape_for_display(markdown)
        self._given, self._source, self._growing = markdown, shown, growing
        self._width = 0
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not self._source.strip():
            return 0
        self._draw(width)
        return self._drawing.height  # drawn within the width: no line wraps again

    def render(self) -> RenderResult:
        if self.size.width and self._source.strip():
            self._draw(self.size.width)
        return self._shown

    def render_line(self, y: int) -> Strip:
        """Line ``y``, drawn again only when it changed: a streamed answer's frames draw the lines
        of its last block, not all of its lines (Textual draws a widget's every line when any
        changed). With a selection or find's highlights, drawn the usual way."""
        width, lines = self.size.width, self._drawing.lines
        if self._shown is not self._drawn or self.text_selection is not None or width != self._width:
            return super().render_line(y)
        style = self.visual_style
        if y >= len(lines):
            return Strip.blank(width, style.rich_style)
        line = lines[y]
        kept = self._strips.get(y)
        if kept is not None and kept[0] is line and kept[1] == style:
            return kept[2]
        formatted = _FormattedLine(
            self._get_style, line.expand_tabs(8).rstrip_end(width), width, y=y, line_end=True
        )
        strip = Strip(*formatted.to_strip(style))
        self._strips[y] = (line, style, strip)
        return strip

    @property
    def visual(self) -> Visual:
        """The lines shown (as find highlighted them, while it does)."""
        return self._shown

    @property
    def content(self) -> VisualType:
        """The lines shown."""
        return self._shown

    @content.setter
    def content(self, content: VisualType) -> None:
        self.update(content)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Show ``content`` in place of the lines drawn, until they are drawn again (find's
        highlights; the text is changed with :meth:`show`)."""
        self._shown = visualize(self, content, markup=False)
        self.refresh(layout=layout)

    def _draw(self, width: int) -> None:
        """Draw the lines for ``width`` unless they are drawn (at that width, in these styles)."""
        styles = self._styles()
        if (width == self._width and styles == self._drawn_styles) or width <= 0:
            return
        self._width, self._drawn_styles = width, styles
        self._shown = self._drawn = self._drawing.draw(self._source, width, styles, growing=self._growing)
        self._layout_cache.clear()  # not Static's content setter: that lays out again, inside the layout

    @property
    def drawn_at(self) -> tuple[int, Styles] | None:
        """The width and styles the lines shown were drawn with; None before they were drawn."""
        return (self._width, self._drawn_styles) if self._width and self._drawn_styles else None

    def draw_before_mount(self, width: int, styles: Styles) -> None:
        """Draw the lines at ``width`` in ``styles`` now, for a widget not mounted yet (on any
        thread: it touches nothing else): its first layout at that width draws nothing."""
        if not self._source.strip():
            return
        try:
            drawn = self._drawing.draw(self._source, width, styles, growing=self._growing)
        except Exception:  # drawn by its layout, where a fault shows as it always did
            return
        self._width, self._drawn_styles = width, styles
        self._shown = self._drawn = drawn

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text selected, without the spaces a code block's lines are padded with."""
        got = super().get_selection(selection)
        if got is None:
            return None
        text, ending = got
        return "\n".join(line.rstrip() for line in text.split("\n")), ending

    def notify_style_update(self) -> None:
        self._styles_read = None  # restyled (mounted, a class or a pseudo-class above changed)
        super().notify_style_update()

    def _styles(self) -> Styles:
        if not self.is_attached:
            return _UNATTACHED
        if self._styles_read is None:
            self._styles_read = shared_styles(self)
        return self._styles_read


_UNATTACHED = Styles(
    heading=Style(),
    h1=Style(),
    quote=Style(),
    rule=Style(),
    bullet=Style(),
    code_inline=Style(),
    code_theme="monokai",
)

_SHARED: WeakKeyDictionary[Stylesheet, tuple[object, dict[tuple[object, ...], Styles]]] = WeakKeyDictionary()
"""For each stylesheet, the rules it was read with and the styles of each place in the DOM."""
SHARED_PLACES = 64
"""Places whose styles are kept at most (a hover or a focus above a row is another place)."""


def _place(widget: Widget) -> tuple[object, ...]:
    """What the CSS rules can tell apart a widget by: its type, id, classes and pseudo-classes,
    and those of each node above it (the app's classes name the theme)."""
    return tuple(
        (node._css_type_name, node.id, node.classes, node._pseudo_classes_cache_key)
        for node in widget.ancestors_with_self
    )


def shared_styles(widget: ChatMarkdown) -> Styles:
    """The styles ``widget`` draws Markdown with, read once for every widget in the same place.

    Declared as Textual component classes, each of the six styles was a node of its own that the
    stylesheet matched its every rule against, at each mount and restyle of each answer: 150
    answers drawn at once (ctrl+home after a resume) spent most of their mount there, and as much
    again reading each style's colours up through every node above the answer. Widgets in the
    same place get the same styles, so they are read for the first one only: each style from a
    node the stylesheet applies to then, placed under it as Textual places its component nodes.
    """
    stylesheet = widget.app.stylesheet
    rules: object = stylesheet.rules
    kept = _SHARED.get(stylesheet)
    if kept is None or kept[0] is not rules or len(kept[1]) >= SHARED_PLACES:
        kept = (rules, {})
        _SHARED[stylesheet] = kept
    place = _place(widget)
    styles = kept[1].get(place)
    if styles is None:
        styles = kept[1][place] = _read_styles(widget, stylesheet)
    return styles


def _read_styles(widget: ChatMarkdown, stylesheet: Stylesheet) -> Styles:
    for name in widget.PARTS:
        node = DOMNode(classes=name)
        node._attach(widget)
        stylesheet.apply(node, animate=False)
        widget._component_styles[name] = node.styles
    widget._rich_style_cache.clear()
    style = widget.get_component_rich_style
    return Styles(
        heading=style("chat-markdown--heading"),
        h1=style("chat-markdown--h1"),
        quote=style("chat-markdown--quote"),
        rule=style("chat-markdown--rule"),
        bullet=style("chat-markdown--bullet"),
        code_inline=style("chat-markdown--code-inline"),
        code_theme="monokai" if widget.app.current_theme.dark else "default",
    )


__all__ = ["SHARED_PLACES", "ChatMarkdown", "chat_parser", "held_row", "shared_styles", "table_cells"]
