"""/undo and /redo of a long session take away or add only the last turn's rows, keeping the others'
widgets; what they draw is what a full redraw of the same session draws, the view ends at the end
and the Undone / Redone lines show. Other moves (/tree to another branch) draw all again."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget

from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import Answer
from circle.entrypoints.tui.widgets.drawn import Drawn

from .conftest import FakeBackend, main_screen, send, texts, until
from .test_sliced_tail import LAST, _at_end_with_all, _shows, _stored, _tail_answers


def _kept(screen: MainScreen) -> set[int]:
    return {id(row) for row in screen.conversation.query(Answer)}


async def _full_redraw(pilot: object, app: CircleApp, screen: MainScreen) -> str:
    """The same session drawn again whole, as /tree or /resume draw it; what it shows."""
    assert app.host is not None
    view, conversation = screen.conversation, app.host.session.conversation
    view.drawn = Drawn()  # nothing known drawn: all is drawn again
    await view.redraw(conversation.messages, unread=conversation.earlier)
    await until(pilot, lambda: not view.drawing_above)
    return texts(screen)


def _without_last_line(shown: str, line: str) -> str:
    assert shown.endswith(line), shown[-200:]
    return shown.removesuffix(line).rstrip("\n")


async def test_undo_and_redo_change_only_the_last_turns_rows_and_draw_what_a_full_redraw_draws(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session, messages = await _stored(backend)
    app = make_app(session=session)
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None and _shows(app, LAST))
        screen = main_screen(app)
        view = screen.conversation
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        before = _kept(screen)

        await send(pilot, screen, "/undo")
        undone = "Undone 'question 59': 3 messages taken back · /redo brings them back"
        await until(pilot, lambda: _shows(app, undone))
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages[:-3]))
        assert _shows(app, "end of answer 58")
        assert len(_kept(screen) & before) >= len(before) - 2  # the other answers' rows kept
        shown = _without_last_line(texts(screen), undone)
        assert shown == await _full_redraw(pilot, app, screen)

        drawn = _kept(screen)
        await send(pilot, screen, "/redo")
        redone = "Redone 'question 59': 3 messages back"
        await until(pilot, lambda: _shows(app, redone))
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        assert _shows(app, LAST)
        assert len(_kept(screen) & drawn) >= len(drawn) - 2
        shown = _without_last_line(texts(screen), redone)
        assert shown == await _full_redraw(pilot, app, screen)
        assert view.following


def _rows(screen: MainScreen) -> list[Widget]:
    return list(screen.conversation.children)


async def test_a_redraw_of_other_messages_draws_all_again(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session, messages = await _stored(backend)
    app = make_app(session=session)
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None and _shows(app, LAST))
        screen = main_screen(app)
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        before = {id(row) for row in _rows(screen)}
        other = [*messages[:-5], messages[-1]]  # a turn gone from the middle: not the last turn's
        await screen.conversation.redraw(other)
        assert not before & {id(row) for row in _rows(screen)}
        assert "question 58" not in texts(screen) and LAST in texts(screen)


async def test_undo_of_a_turn_run_after_the_resume_takes_away_its_live_rows_only(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.testing import answer

    session, messages = await _stored(backend)
    backend.model.add(answer("a live answer"))
    app = make_app(session=session)
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None and _shows(app, LAST))
        screen = main_screen(app)
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        before = _kept(screen)
        await send(pilot, screen, "one more")
        await until(pilot, lambda: _shows(app, "a live answer") and not screen.host.session.is_busy)
        await send(pilot, screen, "/undo")
        undone = "Undone 'one more': 2 messages taken back · /redo brings them back"
        await until(pilot, lambda: _shows(app, undone))
        assert "a live answer" not in texts(screen) and _shows(app, LAST)
        assert _kept(screen) == before  # the stored rows kept, the live ones gone
        shown = _without_last_line(texts(screen), undone)
        assert shown == await _full_redraw(pilot, app, screen)
