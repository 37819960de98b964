"""Plan mode turned on says so once, in the person's words: shift+tab's line (not that line, a
notice over the person's message and a line in the plan box), after /undo too; plan_enter's row
(not the model's instructions and the box); in a resumed session the footer; the model hears the
net change since its last message, once."""

from __future__ import annotations

from collections.abc import Callable

from circle.domain.messages import Aside, Message, Shown, TextPart
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, answer

from .conftest import FakeBackend, main_screen, screen_lines, send, until


def _said(app: CircleApp) -> list[str]:
    """The lines above the footer that speak of plan mode."""
    return [line.strip(" │") for line in screen_lines(app)[:-1] if "plan mode" in line.lower()]


def _notes(backend: FakeBackend) -> list[str]:
    return [m.text for m in backend.model.requests[-1].messages if "plan mode" in m.text.lower()]


async def test_shift_tab_into_plan_mode_says_it_once(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("Planning."), answer("Still planning."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("shift+tab", "shift+tab")
        await pilot.pause(0.1)
        assert _said(app) == ["Plan mode: nothing changes until you accept a plan."]
        assert str(screen.footer.content).endswith("plan mode")
        await send(pilot, screen, "make a plan")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.1)

        assert _said(app) == ["Plan mode: nothing changes until you accept a plan."]
        [note] = _notes(backend)
        assert note.startswith("[The person turned plan mode on") and note.endswith("make a plan")
        await pilot.press(*["shift+tab"] * 3)  # default, accept edits, plan: where the model knew it
        await send(pilot, screen, "go on")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        assert backend.model.requests[-1].messages[-1].text == "go on"


async def test_plan_enter_says_it_once_in_the_persons_words(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("", Call("plan_enter", {})), answer("Planning now."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan it")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.pause(0.1)

        assert _said(app) == ["Plan mode: nothing changes until you accept a plan."]
        assert not screen.plan.display and str(screen.footer.content).endswith("plan mode")
        assert "call plan_exit" in backend.model.requests[-1].messages[-1].tool_results[0].text


async def test_after_undo_the_switch_is_said_once(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(answer("Planning."), answer("More."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press("shift+tab", "shift+tab")
        await send(pilot, screen, "first plan")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await send(pilot, screen, "second")
        await until(pilot, lambda: len(screen.conversation.query(TurnLine)) == 2)
        await send(pilot, screen, "/undo")
        await until(pilot, lambda: "Undone" in "\n".join(screen_lines(app)))
        await pilot.pause(0.1)

        assert _said(app) == ["Plan mode: nothing changes until you accept a plan."]


async def test_a_resumed_session_in_plan_mode_says_so_in_the_footer_alone(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    info = await backend.store.create_session(workspace="/work", session_id="old")
    on = Aside(kind="plan-on", text="[The person turned plan mode on]")
    shown = Shown(typed="plan the change", asides=(on,))
    await backend.store.append(info.id, Message.user(f"{on.text}\n\nplan the change", shown=shown))
    await backend.store.append(info.id, Message(role="assistant", parts=(TextPart(text="I will plan."),)))
    app = make_app(session="old")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        await pilot.pause(0.1)

        assert _said(app) == []
        assert "› plan the change" in "\n".join(screen_lines(app))
        assert str(main_screen(app).footer.content).endswith("plan mode")
