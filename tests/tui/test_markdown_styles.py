"""The styles Markdown is drawn with are read once for every widget in the same place, not through
six component nodes per answer: the same styles Textual's component classes gave, and read again
when the theme changes or a class above the widget does."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import Vertical

from circle.entrypoints.tui.widgets.markdown import ChatMarkdown


class Declared(ChatMarkdown):
    """The way the styles were read before: Textual's component classes, one node each."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(ChatMarkdown.PARTS)


class Pair(App[None]):
    CSS = """
    .boxed ChatMarkdown > .chat-markdown--heading { color: #ff0000; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield ChatMarkdown("# one", classes="answer")
            yield ChatMarkdown("# two", classes="answer")
            yield Declared("# three", classes="answer")


def declared(widget: ChatMarkdown) -> list[Style]:
    return [widget.get_component_rich_style(name) for name in ChatMarkdown.PARTS]


def read(widget: ChatMarkdown) -> list[Style]:
    styles = widget._styles()
    return [styles.heading, styles.h1, styles.quote, styles.rule, styles.bullet, styles.code_inline]


async def test_widgets_in_one_place_share_the_styles_textuals_component_classes_give() -> None:
    app = Pair()
    async with app.run_test() as pilot:
        await pilot.pause()
        one, two, three = app.query(ChatMarkdown)
        assert one._styles() is two._styles()  # read once for both
        assert read(one) == declared(three)
        assert one._component_styles and not two._component_styles  # the second read nothing
        assert read(one)[0].color is not None and read(one)[0].bold


async def test_a_theme_change_and_a_class_above_read_the_styles_again() -> None:
    app = Pair()
    async with app.run_test() as pilot:
        app.theme = "textual-dark"
        await pilot.pause()
        one, _, three = app.query(ChatMarkdown)
        dark = one._styles()
        assert dark.code_theme == "monokai"
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        light = one._styles()
        assert light.code_theme == "default" and light != dark
        assert read(one) == declared(three)
        app.query_one("#box").add_class("boxed")
        await pilot.pause()
        assert read(one)[0].color == Style(color="#ff0000").color
        assert read(one) == declared(three)
