"""The cards in the input box's frame: approval (allow once, for the session, deny), question,
secret; one at a time, and none while the person is typing."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import Input

from circle.application.ports.process_runner import ProcessResult
from circle.application.tools.plan import ACCEPT_EDITS
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.cards import ApprovalCard, QuestionCard, SecretCard
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import SIZE, FakeBackend, FixedClock, card_ready, main_screen, screen_lines, send, texts, until

RUN = ProcessResult(exit_code=0, output="done\n")
PADDED = "ls -la" + "\n" * 60 + "; rm -rf build"
LONG = "\n".join(["ls -la", *(f"echo step {i}" for i in range(1, 41)), "rm -rf build"])
ANSI = "touch x # \x1b[2K\r\x1b[1Als -la"


def ran(runner: FakeProcessRunner) -> list[str]:
    """The commands run, waited on or started."""
    return [call.command for call in runner.calls] + [process.command for process in runner.started]


def scripted(backend: FakeBackend, *commands: str) -> FakeProcessRunner:
    runner = FakeProcessRunner(dict.fromkeys(commands, RUN), files=backend.files)
    backend.processes = runner
    return runner


async def test_allow_once_runs_the_command(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    runner = scripted(backend, "touch a")
    backend.model.add(answer("", Call("execute", {"command": "touch a"})), answer("Made it."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "make a")
        await card_ready(pilot, screen, ApprovalCard)
        assert not screen.composer.display
        assert ran(runner) == []
        await pilot.press("1")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert ran(runner) == ["touch a"]
        assert screen.card is None and screen.composer.display


async def test_deny_keeps_the_command_from_running(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    runner = scripted(backend, "rm -r build")
    backend.model.add(answer("", Call("execute", {"command": "rm -r build"})), answer("Left it."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "clean")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert ran(runner) == []
        assert "$ rm -r build\ndenied" in texts(screen)  # the model is told "the person denied it"


async def test_allow_for_this_session_asks_no_more_for_that_command(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    runner = scripted(backend, "make build")
    call = Call("execute", {"command": "make build"})
    backend.model.add(answer("", call), answer("", call), answer("Built twice."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.press("down", "enter")  # the second option: allow for this session
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert ran(runner) == ["make build", "make build"]


async def test_a_file_change_card_shows_the_file_and_its_diff(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put("/work/notes.txt", "one\ntwo\nthree\n")
    write = {"file_path": "notes.txt", "content": "one\n2\nthree\n"}
    backend.model.add(answer("", Call("write_file", write)), answer("Written."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write")
        await card_ready(pilot, screen, ApprovalCard)
        card = screen.card
        assert isinstance(card, ApprovalCard)
        assert "notes.txt" in card.title_text
        assert card.pending.preview is not None
        assert "-two" in card.pending.preview and "+2" in card.pending.preview
        await pilot.press("1")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert backend.files.files["/work/notes.txt"] == b"one\n2\nthree\n"


async def test_no_card_appears_while_the_person_types(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    scripted(backend, "make deploy")
    backend.model.add(answer("", Call("execute", {"command": "make deploy"})), answer("Deployed."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await pilot.press(*"and then")
        screen.send("deploy")  # the turn asks while the person is still typing
        await until(pilot, lambda: bool(app.desk.waiting))
        await pilot.pause(0.3)
        assert screen.card is None, "a card came up in the middle of typing"
        clock.now += 5  # the person stopped typing
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.press("1")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert screen.composer.text == "and then", "the draft is kept"


async def test_a_question_card_takes_an_option_by_its_number(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    asked = {"questions": [{"question": "Which database?", "options": ["sqlite", "postgres"]}]}
    backend.model.add(answer("", Call("question", asked)), answer("Postgres it is."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "db")
        await card_ready(pilot, screen, QuestionCard)
        await pilot.press("2")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        sent = backend.model.requests[-1].messages[-1]
        assert "postgres" in sent.tool_results[0].text


async def test_a_question_card_takes_a_typed_answer(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    asked = {"questions": [{"question": "What name?"}]}
    backend.model.add(answer("", Call("question", asked)), answer("Named."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "name it")
        await card_ready(pilot, screen, QuestionCard)
        await pilot.press(*"circle", "enter")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert "circle" in backend.model.requests[-1].messages[-1].tool_results[0].text


async def test_esc_dismisses_the_questions(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    asked = {"questions": [{"question": "Go on?", "options": ["yes", "no"]}]}
    backend.model.add(answer("", Call("question", asked)), answer("Stopped."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "ask")
        await card_ready(pilot, screen, QuestionCard)
        await pilot.press("escape")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert screen.card is None
        assert "dismiss" in backend.model.requests[-1].messages[-1].tool_results[0].text.lower()


async def test_accepting_a_plan_sets_accept_edits(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.model.add(
        answer("", Call("plan_enter", {})),
        answer("", Call("plan_exit", {"plan": "1. Fix it"})),
        answer("Fixing."),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "plan it")
        await card_ready(pilot, screen, QuestionCard)
        assert screen.plan.plan_mode and str(screen.footer.content).endswith("plan mode")
        card = screen.card
        assert isinstance(card, QuestionCard)
        await pilot.press(str(card.options.index(ACCEPT_EDITS) + 1))
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert app.host is not None and app.host.policy.mode == "accept-edits"
        assert "accept-edits" in str(screen.footer.content)


async def test_the_secret_card_masks_and_saves_the_value(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/secret DB_PASSWORD")
        await card_ready(pilot, screen, SecretCard)
        field = screen.card.query_one(Input) if screen.card else None
        assert field is not None and field.password
        await pilot.press(*"hunter22", "enter")
        await until(pilot, lambda: screen.card is None)
        assert backend.secrets == {"DB_PASSWORD": "hunter22"}
        assert app.host is not None and app.host.session.loop.context.secrets.holds("hunter22")
        assert "hunter22" not in texts(screen)


async def test_esc_on_the_secret_card_saves_nothing(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/secret TOKEN")
        await card_ready(pilot, screen, SecretCard)
        await pilot.press(*"abc", "escape")
        await until(pilot, lambda: screen.card is None)
        assert backend.secrets == {}
        assert "not saved" in texts(screen)


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_a_command_padded_with_newlines_is_shown_whole_beside_the_options(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    runner = scripted(backend, PADDED)
    backend.model.add(answer("", Call("execute", {"command": PADDED})), answer("Left it."))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "list")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.pause(0.1)
        shown = "\n".join(screen_lines(app))
        assert "$ ls -la  (+60 more lines)" in shown
        assert "⋯ 59 blank lines" in shown
        assert "; rm -rf build" in shown
        for option in ("1. Allow once", "2. Allow for this session", "3. Deny", "n deny · esc stop"):
            assert option in shown
        await pilot.press("n")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert ran(runner) == []


async def test_a_long_command_scrolls_inside_the_card_and_the_options_stay_in_sight(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    runner = scripted(backend, LONG)
    backend.model.add(answer("", Call("execute", {"command": LONG})), answer("Ran it."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "run the steps")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.pause(0.1)
        shown = "\n".join(screen_lines(app))
        assert "$ ls -la  (+41 more lines)" in shown and "3. Deny" in shown
        assert "rm -rf build" not in shown
        card = screen.card
        for _ in range(20):
            await pilot.press("pagedown")
        await pilot.pause(0.1)
        shown = "\n".join(screen_lines(app))
        assert "rm -rf build" in shown and "1. Allow once" in shown and "3. Deny" in shown
        assert screen.card is card and ran(runner) == []
        await pilot.press("1")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert ran(runner) == [LONG]


async def test_control_characters_in_a_command_are_escaped_on_the_card_the_row_and_the_busy_line(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    scripted(backend, ANSI)
    backend.model.add(answer("", Call("execute", {"command": ANSI})), answer("Left it."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "touch it")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.pause(0.1)
        lines = screen_lines(app)
        assert not [line for line in lines if "\x1b" in line or "\r" in line]
        escaped = "touch x # \\x1b[2K\\x0d\\x1b[1Als -la"
        assert any(f"$ {escaped}" in line for line in lines)
        assert any(line.startswith(f" ● execute  {escaped}") for line in lines)
        assert any(f"execute  {escaped} · ↓ 5 tokens · esc cancels" in line for line in lines)
        await pilot.press("n")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_a_long_file_change_scrolls_inside_the_card_and_the_options_stay_in_sight(
    make_app: Callable[..., CircleApp], backend: FakeBackend, size: tuple[int, int]
) -> None:
    content = "".join(f"line {i}\n" for i in range(60))
    backend.model.add(
        answer("", Call("write_file", {"file_path": "big.txt", "content": content})), answer("No.")
    )
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "write it")
        await card_ready(pilot, screen, ApprovalCard)
        await pilot.pause(0.1)
        shown = "\n".join(screen_lines(app))
        assert "+line 0" in shown and "1. Allow once" in shown and "3. Deny" in shown
        for _ in range(10):
            await pilot.press("pagedown")
        await pilot.pause(0.1)
        shown = "\n".join(screen_lines(app))
        assert "+line 0" not in shown and "more lines" in shown and "3. Deny" in shown
        await pilot.press("n")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert "/work/big.txt" not in backend.files.files


async def test_a_card_says_why_a_command_asks_in_every_mode(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    scripted(backend, "rm -rf $D")
    backend.model.add(answer("", Call("execute", {"command": "rm -rf $D"})), answer("Left it."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "clean")
        await card_ready(pilot, screen, ApprovalCard)
        shown = "\n".join(screen_lines(app))
        assert "It asks because" in shown and "$D" in shown, shown
        await pilot.press("n")
