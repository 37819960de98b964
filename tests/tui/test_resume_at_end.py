"""A resumed session is at its end from the first frame that shows its rows: the last answer and the
input box in sight, never the top of the tail for a frame before the view moves to the end (the
tail was laid out before the view was anchored, so that frame showed the rows from the tail's top)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.screen import Screen

from circle.domain.messages import Message, TextPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen

from .conftest import WORKSPACE, FakeBackend, main_screen, until

END = "end of the last answer"


def _answer(turn: int) -> str:
    """A long Markdown answer: a heading, paragraphs, a list, and its own end line."""
    words = " ".join(f"word{n} of answer {turn}" for n in range(20))
    items = "\n".join(f"- item {n} of answer {turn}: **bold** and `code`" for n in range(12))
    return f"## Answer {turn}\n\n{words}\n\n{items}\n\n{words}\n\nend of answer {turn}"


async def _stored(backend: FakeBackend, turns: int) -> str:
    info = await backend.store.create_session(workspace=WORKSPACE, title="resumed")
    for turn in range(turns):
        await backend.store.append(info.id, Message.user(f"question {turn}"))
        last = turn == turns - 1
        text = _answer(turn).replace(f"end of answer {turn}", END) if last else _answer(turn)
        await backend.store.append(info.id, Message(role="assistant", parts=(TextPart(text=text),)))
    return info.id


def _record(app: CircleApp) -> list[list[str]]:
    """Every frame the session's screen draws, from the first, as its lines."""
    frames: list[list[str]] = []
    display = app._display

    def painted(on: Screen[object], renderable: object) -> None:
        display(on, renderable)  # type: ignore[arg-type]
        if renderable is not None and not app._batch_count and isinstance(on, MainScreen):
            frames.append([strip.text for strip in on._compositor.render_strips()])

    app._display = painted  # type: ignore[method-assign]
    return frames


def _shows_rows(lines: list[str]) -> bool:
    return any("question " in line or "answer " in line.lower() for line in lines)


@pytest.mark.parametrize("size", [(140, 45), (80, 24)])
@pytest.mark.parametrize("turns", [1, 3, 300])
async def test_every_frame_that_shows_a_resumed_sessions_rows_shows_its_end(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int], turns: int
) -> None:
    session = await _stored(backend, turns)
    app = make_app(session=session)
    frames = _record(app)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: any(_shows_rows(lines) for lines in frames))
        screen = main_screen(app)
        await until(pilot, lambda: not screen.conversation.drawing_above)
        await pilot.pause(0.2)
        fits = screen.conversation.max_scroll_y == 0
    shown = [lines for lines in frames if _shows_rows(lines)]
    wrong = [lines for lines in shown if not any(END in line for line in lines)]
    said = f"{len(wrong)} of {len(shown)} frames show rows without the end, the first:\n"
    assert not wrong, said + "\n".join(wrong[0])
    first = shown[0]
    if fits:  # from the top, not pushed down to the box
        assert "question 0" in first[0], first
    else:
        box = next(at for at, line in enumerate(first) if line.lstrip().startswith("╭"))
        assert any(END in line for line in first[box - 4 : box]), first  # the end just above the box


@pytest.mark.parametrize("size", [(140, 45), (80, 24)])
async def test_no_frame_shows_a_resumed_tool_row_blank(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    """A tool row mounts its title and output a turn of the loop after itself: the first two
    frames at 80x24 showed the last answer alone, the command's row above it blank."""
    import json

    from circle.domain.messages import ToolCallPart

    info = await backend.store.create_session(workspace=WORKSPACE, title="commands")
    output = "".join(f"line {n}\n" for n in range(30)) + "[exit code 0]"
    for turn in range(40):
        call = ToolCallPart(id=f"c{turn}", name="execute", arguments=json.dumps({"command": f"seq {turn}"}))
        for message in (
            Message.user(f"run turn {turn}"),
            Message(role="assistant", parts=(TextPart(text="Running."), call)),
            Message.tool_result(call_id=f"c{turn}", name="execute", text=output),
            Message(role="assistant", parts=(TextPart(text=f"Finished (reply {turn})."),)),
        ):
            await backend.store.append(info.id, message)
    app = make_app(session=info.id)
    frames = _record(app)
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: any(any("reply 39" in line for line in lines) for lines in frames))
        await pilot.pause(0.3)
    shown = [lines for lines in frames if any("reply 39" in line for line in lines)]
    blank = [lines for lines in shown if not any("execute  seq 39" in line for line in lines)]
    assert not blank, f"{len(blank)} of {len(shown)} frames show the last command's row blank"
