"""A finished answer is one widget however long its Markdown (a widget per block froze long
sessions): drawn again at a new width, found by ctrl+f and copied by a mouse selection."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events
from textual.content import Content
from textual.selection import Selection

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Answer, TurnLine
from circle.entrypoints.tui.widgets.find_bar import CURRENT_STYLE, FindBar
from circle.testing import answer

from .conftest import FakeBackend, main_screen, send, until

LIST = "Here are the items:\n\n" + "\n".join(
    f"- item {n} of the list, with a few words" for n in range(1, 100)
)
WORDS = " ".join(f"word{n}" for n in range(60))


async def answered(pilot: object, app: CircleApp, text: str = "go") -> Answer:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await until(pilot, lambda: app.host is not None)
    screen = main_screen(app)
    await send(pilot, screen, text)
    await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
    return screen.conversation.query_one(Answer)


def lines(row: Answer) -> list[str]:
    return [line.rstrip() for line in str(row.visual).splitlines()]


async def test_a_99_item_answer_is_one_widget(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer(LIST))
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        row = await answered(pilot, app)
        await until(pilot, lambda: "• item 99 of the list, with a few words" in lines(row))
        assert not row.children
        assert len(list(main_screen(app).conversation.walk_children())) < 20


async def test_a_resize_draws_the_answer_again_at_the_new_width(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer(f"- {WORDS}\n- short"))
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        row = await answered(pilot, app)
        await until(pilot, lambda: row.size.width > 100 and bool(lines(row)))
        wide = lines(row)
        await pilot.resize_terminal(50, 40)
        await until(pilot, lambda: row.size.width < 50 and len(lines(row)) > len(wide))
        narrow = lines(row)
        assert all(len(line) <= row.size.width for line in narrow)
        assert narrow[0].startswith("• word0") and narrow[1].startswith("  word")  # hanging indent
        assert " ".join(narrow).split() == " ".join(wide).split()  # nothing lost
        assert any(line.startswith("• short") for line in narrow)


async def test_ctrl_f_finds_a_word_in_a_finished_answer(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("# Title\n\n1. first\n2. the needle is here\n\n> quoted"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        row = await answered(pilot, app)
        screen = main_screen(app)
        bar = screen.query_one(FindBar)
        await pilot.press("ctrl+f", *"needle")
        await until(pilot, lambda: str(bar.count.content) == "1 of 1")
        visual = row.visual
        assert isinstance(visual, Content)
        assert any(str(span.style) == CURRENT_STYLE for span in visual.spans)
        await pilot.pause(0.1)
        strips = list(app.screen._compositor.render_strips())
        line = next(strip for strip in strips if "the needle is here" in strip.text)
        shown = [seg for seg in line if "needle" in seg.text]
        colours = {seg.style.bgcolor.name for seg in shown if seg.style is not None and seg.style.bgcolor}
        assert colours == {"#ff8700"}, "highlighted on the screen, the current match's colour"
        await pilot.press("escape")
        await until(pilot, lambda: not bar.display)
        assert not any(str(span.style) == CURRENT_STYLE for span in row.visual.spans)  # type: ignore[attr-defined]
        assert "2. the needle is here" in lines(row)


async def test_a_selection_in_an_answer_is_copied(
    make_app: Callable[..., CircleApp], backend: FakeBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    backend.model.add(answer("Some **bold** words.\n\n- copy these words"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        row = await answered(pilot, app)
        screen = main_screen(app)
        screen.selections = {row: Selection(None, None)}
        await pilot.pause(0.05)
        screen.post_message(events.TextSelected())
        await until(pilot, lambda: "copy these words" in app.clipboard)
        assert "Some bold words." in app.clipboard


async def test_an_image_shows_its_description_and_where_it_is(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("See ![the chart](https://example.com/chart.png) below."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        row = await answered(pilot, app)
        await until(pilot, lambda: bool(lines(row)))
        assert "See the chart (https://example.com/chart.png) below." in lines(row)
