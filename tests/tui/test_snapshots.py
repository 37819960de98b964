"""How the main screens look, with a scripted model, a fixed clock and a fixed size."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from circle.application.ports.process_runner import ProcessResult
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.setup import SetupScreen
from circle.entrypoints.tui.screens.trust import TrustScreen
from circle.entrypoints.tui.widgets.cards import ApprovalCard, QuestionCard
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.testing import Call, FakeProcessRunner, answer

from .conftest import SIZE, FakeBackend, card_ready, main_screen, screen_lines, send, texts, until

SnapCompare = Callable[..., bool]


async def settle(pilot: Pilot[object]) -> None:
    await pilot.pause(0.2)
    await pilot.wait_for_scheduled_animations()


def conversation_script(backend: FakeBackend) -> None:
    backend.mode = "auto"
    backend.files.put("/work/app.py", "def main():\n    return 1\n")
    backend.processes = FakeProcessRunner(
        {"pytest -q": ProcessResult(exit_code=0, output="3 passed in 0.01s\n")}, files=backend.files
    )
    edit = {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}
    todos = [
        {"content": "Fix main", "status": "completed"},
        {"content": "Run tests", "status": "in_progress"},
    ]
    backend.model.add(
        answer("", Call("write_todos", {"todos": todos}), thinking="The function returns the wrong value."),
        answer("", Call("edit_file", edit)),
        answer("", Call("execute", {"command": "pytest -q"})),
        answer(
            "Fixed: `main()` now returns **2**, and the tests pass.\n\n- changed `app.py`\n- ran `pytest`"
        ),
    )


def test_the_conversation(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    conversation_script(backend)
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "fix main so it returns 2")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_approval_card(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.files.put("/work/app.py", "def main():\n    return 1\n")
    edit = {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}
    backend.model.add(answer("I will change it.", Call("edit_file", edit)))
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "fix it")
        await card_ready(pilot, screen, ApprovalCard)
        screen.busy.hide()  # the spinner moves
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_question_card(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    asked = {"questions": [{"question": "Which database should it use?", "options": ["sqlite", "postgres"]}]}
    backend.model.add(answer("", Call("question", asked)))
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "set up storage")
        await card_ready(pilot, screen, QuestionCard)
        screen.busy.hide()
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_setup_screen(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.setup_needed = True
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_trust_question(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.trust_list.folders.clear()
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: isinstance(app.screen, TrustScreen))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_light_theme(snap_compare: SnapCompare, backend: FakeBackend, clock: Callable[[], float]) -> None:
    from circle.entrypoints.tui._history import InputHistory

    from .conftest import options

    backend.model.add(answer("A light answer."))
    app = CircleApp(
        backend, options(), clock=clock, history=InputHistory(), theme="textual-light", cursor_blink=False
    )

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "hello")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_the_approval_card_of_a_padded_command_at_80x24(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    padded = "ls -la" + "\n" * 60 + "; rm -rf build"
    backend.model.add(answer("", Call("execute", {"command": padded})))
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "list")
        await card_ready(pilot, screen, ApprovalCard)
        screen.busy.hide()
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_the_approval_card_of_a_background_command_at_80x24(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    serve = {"command": "python3 -m http.server 8000", "background": True}
    backend.model.add(answer("", Call("execute", serve)))
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "serve it")
        await card_ready(pilot, screen, ApprovalCard)
        screen.busy.hide()
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_a_long_diff_card_and_a_long_model_name_at_50x16(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    content = "".join(f"line {i}\n" for i in range(60))
    backend.probe_models = ("model-a", "openrouter/anthropic/claude-sonnet-4-5-20250929")
    backend.model.add(answer("", Call("write_file", {"file_path": "/tmp/outside.txt", "content": content})))
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/models openrouter/anthropic/claude-sonnet-4-5-20250929")
        await until(pilot, lambda: "Model: openrouter" in texts(screen))
        await send(pilot, screen, "write it")
        await card_ready(pilot, screen, ApprovalCard)
        await until(pilot, lambda: "3. Deny" in "\n".join(screen_lines(app)))
        screen.busy.hide()
        await settle(pilot)

    assert snap_compare(app, terminal_size=(50, 16), run_before=run_before)


def test_the_footer_with_a_long_model_name_at_80x24(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.probe_models = ("model-a", "openrouter/anthropic/claude-sonnet-4-5-20250929")
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "/models openrouter/anthropic/claude-sonnet-4-5-20250929")
        await until(pilot, lambda: "claude" in str(screen.footer.content))
        await pilot.press("shift+tab")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def rows_script(backend: FakeBackend) -> None:
    backend.mode = "auto"
    rows = "".join(f"row {i}\n" for i in range(30))
    backend.processes = FakeProcessRunner(
        {"cat rows": ProcessResult(exit_code=0, output=rows)}, files=backend.files
    )
    backend.model.add(answer("", Call("execute", {"command": "cat rows"})), answer("Thirty rows."))


def test_an_unfolded_tool_row_at_80x24(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.widgets.tool_row import ToolRow

    rows_script(backend)
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "show the rows")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        row = screen.conversation.query_one(ToolRow)
        row.toggle()
        await until(pilot, lambda: "row 29" in str(row.body.content))
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_the_transcript_at_80x24(
    snap_compare: SnapCompare, make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.transcript import TranscriptScreen

    rows_script(backend)
    app = make_app()

    async def run_before(pilot: Pilot[object]) -> None:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "show the rows")
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
