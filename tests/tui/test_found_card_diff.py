"""Found in tmux at 80x24: an approval card's diff was cut at 30 lines, and PageDowns read in one
burst moved it one page.

Writing 60 new lines over an 80-line file, the card's 30 lines were all lines taken away, ending
'… 111 more lines': the person was asked to allow a change without one line of what the file would
hold. Three PageDowns sent at once showed lines 4-7 (one page), where each spaced out moved a page.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events
from textual.containers import VerticalScroll
from textual.widgets import Static

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.testing import Call, InMemoryFileSystem, answer

from .conftest import WORKSPACE, FakeBackend, card_ready, main_screen, send, until

OLD = "".join(f"old line {n}\n" for n in range(80))
NEW = "".join(f"new line {n}\n" for n in range(60))


@pytest.fixture
def app(make_app: Callable[..., CircleApp], backend: FakeBackend) -> CircleApp:
    """An app whose model writes 60 new lines over the 80 lines of big.txt (denied after)."""
    backend.files = InMemoryFileSystem({f"{WORKSPACE}/big.txt": OLD})
    backend.model.add(answer("", Call("write_file", {"file_path": "big.txt", "content": NEW})), answer("No."))
    return make_app()


async def overwrite_card(app: CircleApp, pilot: object) -> ApprovalCard:
    await until(pilot, lambda: app.host is not None)
    screen = main_screen(app)
    await send(pilot, screen, "rewrite it")
    await card_ready(pilot, screen, ApprovalCard)
    return screen.query_one(ApprovalCard)


async def test_the_card_of_an_overwrite_shows_what_the_file_will_hold(app: CircleApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        card = await overwrite_card(app, pilot)
        diff = str(card.query_one(".card-diff Static", Static).content)
        assert "+new line 0" in diff and "+new line 59" in diff
        assert "-old line 79" in diff and "more line" not in diff
        await pilot.press("n")


async def test_page_downs_read_in_one_burst_each_move_the_cards_diff_a_page(app: CircleApp) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        card = await overwrite_card(app, pilot)
        scroll = card.query_one(".card-diff", VerticalScroll)
        await until(pilot, lambda: scroll.max_scroll_y > 0)
        page = scroll.scrollable_content_region.height
        for _ in range(3):  # read in one burst, before a frame (pilot.press waits after each key)
            app.post_message(events.Key("pagedown", None))
        await pilot.pause()
        assert scroll.scroll_y == min(3 * page, scroll.max_scroll_y)
        await pilot.press("n")
