"""A key read together with /undo's or /redo's enter in a long session is drawn in the input box
before the rows change: the command waits for that frame before it reads the store and draws, and
the answers it adds are drawn before they are mounted, so the frame that shows them lays out no
Markdown. The Undone / Redone line comes in the same frame as the rows."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.screen import Screen

from circle.domain.todos import Todo
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.entrypoints.tui.widgets.conversation import Answer

from .conftest import FakeBackend, main_screen, screen_lines, until
from .test_sliced_tail import LAST, _at_end_with_all, _stored, _tail_answers


def _in_box(app: CircleApp, typed: str) -> bool:
    """The input box shows ``typed`` and nothing else."""
    return any(line.strip().strip("│").strip() == typed for line in screen_lines(app))


def _record(app: CircleApp, screen: MainScreen, typed: str) -> list[tuple[bool, bool, set[str]]]:
    """From now on, for each frame drawn: whether the box shows ``typed``, whether the last turn's
    answer shows, and the lines it shows that a command said (Undone, Redone)."""
    frames: list[tuple[bool, bool, set[str]]] = []

    display = app._display

    def painted(on: Screen[object], renderable: object) -> None:
        display(on, renderable)  # type: ignore[arg-type]
        lines = screen_lines(app)
        said = {word for word in ("Undone", "Redone") if any(word in line for line in lines)}
        frames.append((_in_box(app, typed), any(LAST in line for line in lines), said))

    app._display = painted  # type: ignore[method-assign]
    return frames


def _enter_with(app: CircleApp, key: str) -> None:
    """Enter and ``key`` read from the terminal together."""
    app.post_message(events.Key("enter", "\r"))
    app.post_message(events.Key(key, key))


async def test_a_key_typed_with_undo_and_redo_shows_before_their_rows_and_the_line_with_them(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    session, messages = await _stored(backend)
    app = make_app(session=session)
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None and any(LAST in line for line in screen_lines(app)))
        screen = main_screen(app)
        view = screen.conversation
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        await until(pilot, lambda: not view.drawing_above)

        screen.composer.insert("/undo")
        await until(pilot, lambda: _in_box(app, "/undo"))
        frames = _record(app, screen, "k")
        _enter_with(app, "k")
        await until(pilot, lambda: any(said for _, _, said in frames))
        assert (True, True, set()) in frames  # the key, with the rows as they were
        first = next(at for at, (_, _, said) in enumerate(frames) if said)
        assert frames[first] == (True, False, {"Undone"})  # the rows and the line in one frame
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages[:-3]))

        screen.composer.clear_all()
        screen.composer.insert("/redo")
        await until(pilot, lambda: _in_box(app, "/redo"))
        frames = _record(app, screen, "r")
        _enter_with(app, "r")
        await until(pilot, lambda: any("Redone" in said for _, _, said in frames))
        assert (True, False, {"Undone"}) in frames  # the key, before the answers come back
        first = next(at for at, (_, _, said) in enumerate(frames) if "Redone" in said)
        assert frames[first] == (True, True, {"Redone"})
        await _at_end_with_all(pilot, app, screen, _tail_answers(messages))
        answers = list(view.query(Answer))
        assert answers[-2].units_drawn == 32  # drawn once, before it was mounted: at the width shown
        assert screen.composer.text == "r" and view.following


async def test_an_answer_drawn_before_it_is_mounted_is_not_drawn_again_by_its_layout() -> None:
    from textual.app import App

    from circle.entrypoints.tui.widgets.drawn import drawn_before_mount

    text = "A list:\n\n" + "\n".join(f"- item {n}, **bold** and `code`" for n in range(10))
    app: App[None] = App()
    async with app.run_test(size=(80, 30)) as pilot:
        shown = Answer.stored(text)
        await app.screen.mount(shown)
        await until(pilot, lambda: shown.drawn_at is not None)
        added = Answer.stored(text.replace("item", "entry"))
        await drawn_before_mount([added], like=[shown])
        assert added.drawn_at == shown.drawn_at and added.units_drawn == 11
        await app.screen.mount(added)
        await until(pilot, lambda: added.size.height > 10)
        assert added.units_drawn == 11  # its layout drew nothing again
        assert any("entry 9" in line for line in screen_lines(app))  # type: ignore[arg-type]


async def test_the_plan_box_and_the_footer_said_again_unchanged_lay_nothing_out(
    make_app: Callable[..., CircleApp],
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.pause()
        layouts: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(screen, layouts.append)
        for _ in range(3):  # as each agent event and each /undo asks
            screen.plan.set(screen.host.todos(), plan_mode=screen.host.plan_mode)
            screen.refresh_footer()
            await pilot.pause()
        assert not layouts
        screen.plan.set([Todo(content="Write the fix")])  # a change still shows
        await until(pilot, lambda: bool(layouts) and any("Write the fix" in ln for ln in screen_lines(app)))
