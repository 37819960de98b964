"""While an approval card for a file change is up, the call's row above it shows the card's diff
(read from the file as it is), not a diff made from the arguments alone."""

from __future__ import annotations

from collections.abc import Callable

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard
from circle.entrypoints.tui.widgets.conversation import ToolRow
from circle.testing import Call, answer

from .conftest import FakeBackend, card_ready, main_screen, send, until

SIZE = (100, 40)


async def test_the_row_above_a_write_file_card_shows_the_cards_diff_of_the_old_content(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put("/work/old.txt", "old line\nkept\n")
    write = {"file_path": "old.txt", "content": "new line\nkept\n"}
    backend.model.add(answer("", Call("write_file", write)), answer("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "change")
        await card_ready(pilot, screen, ApprovalCard)
        card = screen.card
        assert card is not None and card.pending.preview is not None
        row = screen.conversation.query_one(ToolRow)
        await until(pilot, lambda: row.diff == card.pending.preview)
        shown = str(row.body.content)
        assert "-old line\n+new line\n kept" in shown, shown
        assert "@@ -0,0" not in shown
        await pilot.press("1")
        await until(pilot, lambda: row.result is not None)
        assert "-old line\n+new line\n kept" in str(row.body.content)
