"""The busy line while a turn runs: how long it has run, the tokens so far, a retry counting down."""

from __future__ import annotations

from collections.abc import Callable

from textual.visual import VisualType

from circle.application.events import MessageUpdated, TurnStarted
from circle.domain.messages import Usage
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.widgets.conversation import TurnLine
from circle.entrypoints.tui.widgets.status import SPIN_PER_S, BusyLine
from circle.testing import Call, FakeProcessRunner, Hang, answer

from .conftest import SIZE, FakeBackend, FixedClock, main_screen, send, until


async def test_the_busy_line_shows_the_time_the_turn_has_run_and_the_tokens_so_far(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    backend.mode = "auto"
    runner = FakeProcessRunner({"make": Hang("building…\n")}, files=backend.files)
    backend.processes = runner
    backend.model.add(
        answer("", Call("execute", {"command": "make"}), usage=Usage(input=10, output=1234)),
        answer("Built."),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build it")
        await until(pilot, lambda: bool(runner.started))
        clock.now += 12.4
        await until(pilot, lambda: "· 12s · ↓ 1.2k tokens · esc cancels" in str(screen.busy.content))
        assert "execute  make · 12s" in str(screen.busy.content)
        clock.now += 60
        await until(pilot, lambda: "· 1m 12s · ↓ 1.2k tokens" in str(screen.busy.content))
        runner.started[0].finish(0)
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))
        assert not screen.busy.display and screen.busy.tokens == 0


async def test_a_streamed_answer_counts_its_tokens_before_the_endpoint_does(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.application.events import MessageUpdated, TurnStarted

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        app.sink.emit(TurnStarted(session_id="s", message="hi"))
        for _ in range(10):
            app.sink.emit(MessageUpdated(kind="text", delta="x" * 400, content_index=0))
        await until(pilot, lambda: "↓ 1.0k tokens" in str(screen.busy.content))


async def test_on_a_narrow_line_the_tokens_then_the_time_give_way_to_what_runs(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    backend.mode = "auto"
    runner = FakeProcessRunner({"make all-the-things": Hang("building…\n")}, files=backend.files)
    backend.processes = runner
    backend.model.add(
        answer("", Call("execute", {"command": "make all-the-things"}), usage=Usage(input=10, output=1234)),
        answer("Built."),
    )
    app = make_app()
    async with app.run_test(size=(50, 16)) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await send(pilot, screen, "build it")
        await until(pilot, lambda: bool(runner.started))
        clock.now += 12.4
        await until(
            pilot, lambda: "execute  make all-the-thi… · 12s · esc cancels" in str(screen.busy.content)
        )
        assert "tokens" not in str(screen.busy.content) and "ctrl+b" not in str(screen.busy.content)
        await pilot.resize_terminal(100, 30)
        await until(
            pilot,
            lambda: (
                "make all-the-things · 12s · ↓ 1.2k tokens · esc cancels · ctrl+b" in str(screen.busy.content)
            ),
        )
        runner.started[0].finish(0)
        await until(pilot, lambda: bool(screen.conversation.query(TurnLine)))


async def test_a_streamed_delta_leaves_the_busy_line_to_its_tick_and_a_new_activity_draws_at_once(
    make_app: Callable[..., CircleApp], backend: FakeBackend, clock: FixedClock
) -> None:
    from circle.application.events import MessageUpdated, TurnStarted

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        busy = main_screen(app).busy
        app.sink.emit(TurnStarted(session_id="s", message="hi"))
        app.sink.emit(MessageUpdated(kind="text", delta="x" * 40, content_index=0))
        await until(pilot, lambda: "Answering…" in str(busy.content))
        before = str(busy.content)
        busy.streamed += 4000
        busy.show("Answering…")  # as each delta does: no frame of its own
        assert str(busy.content) == before
        clock.now += 1 / SPIN_PER_S
        await until(pilot, lambda: "↓ 1.0k tokens" in str(busy.content))  # the spinner's next step draws it
        busy.show("Thinking…")
        assert "Thinking…" in str(busy.content)


class _CountedBusyLine(BusyLine):
    """The busy line, keeping each text it would draw."""

    def __init__(self, clock: FixedClock) -> None:
        super().__init__(clock=clock)
        self.drawn: list[str] = []

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        self.drawn.append(str(content))  # not drawn: no app runs


def test_the_busy_line_draws_only_when_what_it_shows_changes(clock: FixedClock) -> None:
    busy = _CountedBusyLine(clock)
    busy.show("Answering…")
    busy.count(TurnStarted(session_id="s", message="hi"))
    for _ in range(41):  # two seconds of ticks (a timer that runs late or early) while an answer streams
        clock.now += 0.05
        busy.count(MessageUpdated(kind="text", delta="x", content_index=0))
        busy._tick()
    assert busy.drawn == [
        text for index, text in enumerate(busy.drawn) if busy.drawn[index - 1 : index] != [text]
    ]
    spins = 2 * SPIN_PER_S
    assert len(busy.drawn) <= 2 + spins  # at the spinner's steps, with the seconds and the tokens
    assert "· 2s · ↓ 10 tokens" in busy.drawn[-1]


async def test_the_busy_line_says_thinking_only_when_thinking_is_on(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    """With thinking off it said 'Thinking…' while the answer had not begun (a tester's note)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        assert app.host is not None and app.host.thinking in (None, "off")
        app.sink.emit(TurnStarted(session_id="s", message="hi"))
        await until(pilot, lambda: "Working…" in str(screen.busy.content))
        assert "Thinking…" not in str(screen.busy.content)
