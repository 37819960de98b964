"""A resumed tail that fills the view is laid out with its scrollbar from the first layout: each
answer is drawn once, at the width it shows at (laid out without the scrollbar first, each answer
on the first screen was drawn at the full width, then again one column narrower)."""

from __future__ import annotations

from collections.abc import Callable

from circle.domain.messages import Message, TextPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import Answer

from .conftest import SIZE, WORKSPACE, FakeBackend, main_screen, screen_lines, until

LAST = "answer 79: the end"


async def test_each_answer_of_a_resumed_tail_is_drawn_once_at_the_width_it_shows(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    info = await backend.store.create_session(workspace=WORKSPACE, title="short answers")
    for turn in range(80):
        text = LAST if turn == 79 else f"answer {turn}: a line of words that fits the view"
        await backend.store.append(info.id, Message.user(f"question {turn}"))
        await backend.store.append(info.id, Message(role="assistant", parts=(TextPart(text=text),)))
    app = make_app(session=info.id)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None and any(LAST in line for line in screen_lines(app)))
        view = main_screen(app).conversation
        await until(pilot, lambda: not view.drawing_above)
        answers = list(view.query(Answer))
        assert len(answers) > SIZE[1] // 2  # more than fill the view
        assert view.show_vertical_scrollbar
        widths = {answer.drawn_at[0] for answer in answers if answer.drawn_at is not None}
        assert widths == {view.scrollable_content_region.width}
        assert [answer.units_drawn for answer in answers] == [1] * len(answers)
