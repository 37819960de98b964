"""Answers and the plan card read as chat Markdown: paragraphs apart, the model's line breaks
kept, headings at the left, tables within the width, link targets shown, code highlighted."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import QuestionCard
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.entrypoints.tui.widgets.markdown import table_cells
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, screen_lines, send, until

TABLE = (
    "| File | Lines | Status | Owner | Comment |\n"
    "|---|---|---|---|---|\n"
    "| src/circle/entrypoints/tui/widgets/markdown.py | 120 | new | tui | renders answers as chat text |\n"
    "| README.md | 300 | changed | docs | a longer explanation of it all |\n"
)


async def shown_answer(
    make_app: Callable[..., CircleApp], backend: FakeBackend, text: str, *, size: tuple[int, int] = (80, 40)
) -> list[str]:
    """The screen's lines once ``text`` has been answered, right-trimmed."""
    backend.model.add(answer(text))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.2)
        return [line.rstrip() for line in screen_lines(app)]


def index_of(lines: list[str], text: str) -> int:
    return next(i for i, line in enumerate(lines) if text in line)


async def test_single_line_breaks_are_kept_and_paragraphs_are_apart(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    lines = await shown_answer(make_app, backend, "First line.\nSecond line.\n\nA new paragraph.")
    first, second, third = (index_of(lines, t) for t in ("First line.", "Second line.", "A new paragraph."))
    assert second == first + 1
    assert "Second line." not in lines[first]
    assert third == second + 2 and not lines[second + 1].strip()


async def test_a_heading_starts_at_the_left_like_the_text(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    lines = await shown_answer(make_app, backend, "Some text.\n\n# The heading\n\nMore text.")
    heading, text = lines[index_of(lines, "The heading")], lines[index_of(lines, "Some text.")]
    assert heading.index("The heading") == text.index("Some text.")


async def test_a_link_shows_where_it_goes(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    text = "See [the docs](https://example.com/docs) or <https://example.com/raw>."
    lines = await shown_answer(make_app, backend, text)
    assert any("the docs (https://example.com/docs)" in line for line in lines)
    assert not any("https://example.com/raw (https://example.com/raw)" in line for line in lines)


@pytest.mark.parametrize("width", [50, 80])
async def test_a_wide_table_wraps_its_cells_within_the_width(
    make_app: Callable[..., CircleApp], backend: FakeBackend, width: int
) -> None:
    lines = await shown_answer(make_app, backend, TABLE, size=(width, 40))
    table = [line for line in lines if line.strip().startswith(("│", "┌", "├", "└"))]
    assert table and all(len(line) <= width for line in table)
    assert not any("…" in line for line in table)
    borders = set("│┌┐└┘├┤┬┴┼─ ")
    shown = sorted(char for line in table for char in line if char not in borders)
    cells = [cell for row in TABLE.splitlines() if "---" not in row for cell in row.split("|")]
    assert shown == sorted(char for cell in cells for char in cell if char not in borders)


def test_table_cells_keep_their_inline_styles() -> None:
    headers, rows = table_cells("| a | b |\n|---|---|\n| **bold** | `code` |\n")
    assert [h.plain for h in headers] == ["a", "b"]
    assert [c.plain for c in rows[0]] == ["bold", "code"]
    assert rows[0][0].spans and rows[0][1].spans


async def test_a_code_block_is_highlighted_and_wraps_its_long_lines(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    code = "```python\ndef main():\n    return 2  # " + "word " * 30 + "end\n```"
    backend.model.add(answer(code))
    app = make_app()
    async with app.run_test(size=(80, 40)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "go")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.2)
        strips = list(app.screen._compositor.render_strips())
        line = next(s for s in strips if "def main" in s.text)
        colours = {seg.style.color for seg in line if seg.style is not None and seg.text.strip()}
        assert len(colours) > 1, "def and main are coloured apart"
        assert any("end" in s.text.split() for s in strips), "the long line wraps, its end shown"


async def test_a_code_block_in_a_list_wraps_too(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    code = "- first:\n\n  ```python\n  x = 1  # " + "word " * 20 + "last\n  ```\n"
    lines = await shown_answer(make_app, backend, code, size=(60, 30))
    assert any("last" in line.split() for line in lines)


async def test_the_plan_card_renders_its_markdown(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    plan = "# Steps\n\n1. **Fix** the parser\n2. Run `pytest`"
    backend.model.add(answer("", Call("plan_enter", {})), answer("", Call("plan_exit", {"plan": plan})))
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan it")
        await card_ready(pilot, screen, QuestionCard)
        await until(pilot, lambda: any("Fix the parser" in line for line in screen_lines(app)))
        region = screen.card.region if screen.card else None
        assert region is not None
        shown = "\n".join(screen_lines(app)[region.y : region.bottom])
        assert "**Fix**" not in shown and "# Steps" not in shown
        assert "Steps" in shown and "Run pytest" in shown


async def test_a_long_plan_scrolls_in_its_card_with_page_keys(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from textual.containers import VerticalScroll

    plan = "# Steps\n\n" + "\n".join(f"{n}. Step {n}" for n in range(1, 30))
    backend.model.add(answer("", Call("plan_enter", {})), answer("", Call("plan_exit", {"plan": plan})))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan it")
        await card_ready(pilot, screen, QuestionCard)
        card = screen.card
        assert card is not None
        box = card.query_one(".card-question-scroll", VerticalScroll)
        await until(pilot, lambda: box.max_scroll_y > 0)
        await pilot.press("pagedown")
        await until(pilot, lambda: box.scroll_y > 0)
        assert any("pgup pgdn scroll" in line for line in screen_lines(app))
