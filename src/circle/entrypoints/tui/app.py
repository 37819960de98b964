"""The full-screen app: the first-run and trust questions, then the session screen.

Thin on purpose: it puts the session together through the backend and routes messages; the
screens draw and the host does the work. The app paints before Circle's own modules load: they
are imported (and the backend made) on a thread while "Starting Circle…" is on the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.widgets import Static

from circle.entrypoints._exit_guard import INTERRUPTED, on_stop_signals
from circle.entrypoints.tui._desk import Desk
from circle.entrypoints.tui._early_keys import EarlyKeys
from circle.entrypoints.tui._hangup import TerminalClosed
from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui._quitting import QUIT_HINT, QUIT_WINDOW_S
from circle.entrypoints.tui._screen_diff import ScreenDiff
from circle.entrypoints.tui._stylesheet import Parsed, keep_parsed, take_parsed
from circle.entrypoints.tui.widgets.stale_keys import ClosingScreens, ReadsKeys, type_at_read

if TYPE_CHECKING:
    from circle.application.ports.approver import ApprovalRequest
    from circle.application.runtime import Runtime
    from circle.application.session import AgentSession
    from circle.entrypoints.headless import RunOptions
    from circle.entrypoints.tui._backend import Backend
    from circle.entrypoints.tui._host import Host
    from circle.entrypoints.tui._preview import Previews
    from circle.entrypoints.tui.screens.main import MainScreen

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, INTERRUPTED
KEY_FRAME_S = 0.1
"""The longest the session screen waits for the frame that shows a key typed while it comes up."""


class _Sink:
    """Hands the runtime's events to the session screen, in order."""

    def __init__(self) -> None:
        self.screen: MainScreen | None = None

    def emit(self, event: object) -> None:
        if self.screen is not None:
            from circle.entrypoints.tui.screens.main import AgentEventArrived

            self.screen.post_message(AgentEventArrived(event))


class CircleApp(App[int]):
    """Circle's full-screen interface.

    Args:
        backend: The endpoint, trust list and runtime (fakes in tests); None: ``make_backend``
            makes it once the app has painted.
        opts: The command line's choices.
        clock: Seconds, for the turn lines (fixed in tests).
        theme: textual-dark or textual-light, as the terminal is.
        typed: What the terminal had been given before the app started (keys for the input box).
        cursor_blink: Whether the input box's cursor blinks (a steady one makes a snapshot exact).
    """

    TITLE = "Circle"
    BINDINGS = [  # noqa: RUF012
        Binding("ctrl+f", "find", "find", show=False, priority=True),
        Binding("ctrl+v", "paste_image", "paste an image", show=False, priority=True),
        Binding("ctrl+g", "editor", "editor", show=False, priority=True),
    ]

    def __init__(
        self,
        backend: Backend | None,
        opts: RunOptions,
        *,
        make_backend: Callable[[], Backend] | None = None,
        clock: Callable[[], float] = time.monotonic,
        theme: str = "textual-dark",
        history: InputHistory | None = None,
        driver_class: type[Driver] | None = None,
        typed: str = "",
        cursor_blink: bool = True,
    ) -> None:
        super().__init__(driver_class=driver_class)
        self.stylesheet = keep_parsed(self.stylesheet)  # each CSS source parsed once: _stylesheet.py
        self.cursor_blink = cursor_blink
        self._backend = backend
        self._make_backend = make_backend
        self.opts = opts
        self.clock = clock
        self.theme = theme
        self.history = history
        """The input history (loaded from the data folder when the session screen opens, if not given)."""
        self.sink = _Sink()
        self._previews: Previews | None = None
        self.desk = Desk(previewer=self._preview)
        self.host: Host | None = None
        self.exit_lines: list[str] = []
        self.error: str | None = None
        self.early = EarlyKeys(typed)
        self.closing = ClosingScreens(time.monotonic)
        """Keys typed before the input box is there, given to it once the session screen is up."""
        self._restore_signals: Callable[[], None] = lambda: None
        self._quit_armed = float("-inf")
        """When a ctrl+c before the session screen armed leaving (see :meth:`action_help_quit`)."""
        self._key_frame: asyncio.Event | None = None
        """Set once a frame shows the keys held last (see :meth:`_step`)."""

    async def on_event(self, event: events.Event) -> None:
        if not self.early.released and self._starting() and self.early.hold(event):
            self._show_early_keys()
            return
        if self.screen_stack and self.closing.held(self.screen, event):
            assert isinstance(event, events.Key)  # read behind an esc that closes this screen
            self.call_after_refresh(self.post_message, events.Key(event.key, event.character))
            return
        if isinstance(event, events.Key) and self.screen_stack:
            screen = self.screen
            if isinstance(screen, ReadsKeys) and screen.key_read(event):
                return  # typed into the input box as a card came up: the box's, not the card's
            if type_at_read(screen, event):
                return  # in the box at once: the keys read behind it follow it there, in order
        await super().on_event(event)

    def _starting(self) -> bool:
        """No question shows: the setup, trust and picker screens get their keys as usual."""
        stack = self.screen_stack
        return len(stack) <= 1 or stack[-1] is self.sink.screen

    def _show_early_keys(self) -> None:
        """Under "Starting Circle…", what the keys held so far wrote (while that screen shows); the
        next step of putting the session screen up waits for the frame that shows it."""
        if len(self.screen_stack) == 1:
            with contextlib.suppress(NoMatches):
                self.screen.query_one("#early-typed", Static).update(self.early.shown())
            if self._key_frame is None:
                self._key_frame = asyncio.Event()
                self.call_after_refresh(self._key_frame.set)

    async def _step(self) -> None:
        """Between the steps of putting the session screen up (each some 10-30 ms, and twice that
        on a busy machine): the loop runs what is waiting, and a key typed during the last step is
        on the screen before the next one starts, not after all of them."""
        await asyncio.sleep(0)
        frame, self._key_frame = self._key_frame, None
        if frame is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(frame.wait(), KEY_FRAME_S)

    def _replay_early_keys(self) -> None:
        from circle.entrypoints.tui.widgets.composer import Composer

        if self.early.released:  # given at the session screen's mount already
            return
        typed, screen = self.early.release(), self.sink.screen
        if screen is None:
            return
        for sent in typed.sent:  # as if sent from the box: commands run, messages go
            screen.on_composer_submitted(Composer.Submitted(sent.text, typed=sent.typed))
        if typed.text:
            screen.composer.pastes.update(enumerate(typed.pastes, start=1))  # a new box: from 1 too
            screen.composer.type_text(typed.text)
            screen.composer.move_cursor(typed.location)  # where the arrows typed left it

    def compose(self) -> ComposeResult:
        yield Static("Starting Circle…", id="starting")
        yield Static("", id="early-typed", markup=False)
        yield Static("", id="starting-hint", markup=False)

    def action_help_quit(self) -> None:
        """ctrl+c before the session screen takes it (Textual's own put up a toast naming ctrl+q):
        while Circle starts it lets go of the text typed, as in the input box; with none, the first
        arms leaving (said under "Starting Circle…", or in a note over a question's screen) and a
        second within :data:`QUIT_WINDOW_S` leaves."""
        starting = len(self.screen_stack) == 1
        if starting and not self.early.released and self.early.written().text:
            self.early.clear()
            self._show_early_keys()
            return
        now = time.monotonic()
        if now - self._quit_armed < QUIT_WINDOW_S:
            self.quit_circle(EXIT_INTERRUPTED)
            return
        self._quit_armed = now
        if not starting:
            self.notify(QUIT_HINT[0], timeout=QUIT_WINDOW_S)
            return
        with contextlib.suppress(NoMatches):
            hint = self.screen.query_one("#starting-hint", Static)
            hint.update(QUIT_HINT[0])
            self.set_timer(QUIT_WINDOW_S, lambda: hint.update(""))

    def action_find(self) -> None:
        """ctrl+f: find in the conversation (see widgets/find_bar.py)."""
        from circle.entrypoints.tui.widgets.find_bar import open_find_bar

        open_find_bar(self.screen)

    def on_text_selected(self, event: events.TextSelected) -> None:
        """Text selected with the mouse is copied (OSC 52, and tmux's buffer inside tmux)."""
        from circle.entrypoints.tui._clipboard import copy_selection

        copy_selection(self)

    def action_editor(self) -> None:
        from circle.entrypoints.tui._slash import Invocation
        from circle.entrypoints.tui.screens.main import MainScreen

        if isinstance(self.screen, MainScreen):
            self.screen.commands.run(Invocation("editor", ""))

    def action_paste_image(self) -> None:
        from circle.entrypoints.tui._clipboard import paste_image

        self.run_worker(paste_image(self), group="paste", exclusive=True)

    def on_resize(self, event: events.Resize) -> None:
        if isinstance(diff := getattr(self._driver, "diff", None), ScreenDiff):
            diff.forget(columns=event.size.width)  # the terminal may have moved what it showed

    def on_mount(self) -> None:
        if isinstance(diff := getattr(self._driver, "diff", None), ScreenDiff):
            diff.forget(columns=self.size.width)
        for _ in range(self.early.interrupts):  # typed before the app ran, read with the theme
            self.action_help_quit()
        with contextlib.suppress(ValueError):  # not the main thread (a test's app): no signals
            self._restore_signals = on_stop_signals(  # a closed terminal: stop the turn, record, leave
                lambda: self.quit_circle(EXIT_INTERRUPTED), signals=(signal.SIGTERM, signal.SIGHUP)
            )
        self.start()

    def on_unmount(self) -> None:
        self._restore_signals()

    def on_terminal_closed(self, message: TerminalClosed) -> None:
        """The terminal went away without a SIGHUP reaching Circle (see ``_hangup.py``): as if it had."""
        self.quit_circle(EXIT_INTERRUPTED)

    @property
    def backend(self) -> Backend:
        assert self._backend is not None, "the backend is made when the app starts"
        return self._backend

    @property
    def previews(self) -> Previews:
        if self._previews is None:
            from circle.entrypoints.tui._preview import Previews

            self._previews = Previews()
        return self._previews

    async def _preview(self, request: ApprovalRequest) -> str | None:
        return await self.previews.preview(request)

    @work(exclusive=True, group="start")
    async def start(self) -> None:
        from circle.domain.errors import CircleError
        from circle.entrypoints.tui._heap import keep_loaded

        try:
            if self._backend is None:
                assert self._make_backend is not None, "a backend or a way to make one"
                painted = asyncio.Event()  # the loader's imports would hold the first frame back
                self.call_after_refresh(painted.set)
                await painted.wait()
                variables = dict(self.stylesheet._variables)
                self._backend, parsed = await asyncio.to_thread(_load, self._make_backend, variables)
                take_parsed(self.stylesheet, parsed, variables=variables)  # not parsed as it is pushed
                keep_loaded()  # before any session is drawn: see _heap.py
            await self._start()
        except CircleError as exc:
            self.fail(exc.message)

    async def _start(self) -> None:
        from circle.entrypoints.tui._host import Host
        from circle.entrypoints.tui.screens.main import MainScreen
        from circle.entrypoints.tui.screens.setup import SetupScreen
        from circle.entrypoints.tui.screens.trust import TrustScreen

        if self.backend.needs_setup() and not await self.push_screen_wait(SetupScreen(self.backend)):
            self.fail("no endpoint was set up")
            return
        trusted = await self.backend.is_trusted()
        await self._step()
        if not trusted:  # in every approval mode: --yolo changes what asks, not where Circle works
            answer = await self.push_screen_wait(TrustScreen(self.backend.workspace))
            if answer == "no":
                self.fail(f"{self.backend.workspace} is not trusted")
                return
            if answer == "always":
                await self.backend.trust()
            trusted = True
        built = await self.backend.build(person=self.desk, asker=self.desk, trusted=trusted)
        await self._step()
        runtime = built.runtime
        self.previews.files = runtime.ports.files
        self.previews.workspace = runtime.options.workspace
        runtime.events.subscribe(self.sink)
        runtime.events.subscribe(self.previews)
        self.previews.tell = self.sink.emit  # a card's diff reaches its row, after the call's start
        session = await self._open(runtime)
        await self._step()
        host = Host(
            runtime=runtime, session=session, policy=built.policy, backend=self.backend, trusted=trusted
        )
        host.count_history()
        if self.history is None:
            self.history = InputHistory.load(self.backend.data / "input_history.jsonl")
        screen = MainScreen(host, self.desk, history=self.history, clock=self.clock)
        screen.composer.cursor_blink = self.cursor_blink
        screen.conversation.differ = self.previews.diff
        self.sink.screen = screen
        if not self.opts.message.strip():  # else what was typed goes after the message given
            screen.when_mounted = self._replay_early_keys  # shown in the screen's first frame
        await self._step()
        await self.push_screen(screen)
        await asyncio.sleep(0)
        self.host = host  # ready: the session screen is up
        self.call_later(self._replay_early_keys)  # unless given: after the keys queued, which it holds
        for notice in built.notices:
            screen.conversation.notice(notice, kind="warning")
        if self.opts.message.strip():
            host.pending_media = self.opts.media
            host.pending_files = self.opts.attached
            screen.send(self.opts.message)

    async def _open(self, runtime: Runtime) -> AgentSession:
        from circle.domain.errors import SessionBusyError
        from circle.entrypoints.headless import open_session
        from circle.entrypoints.tui.widgets.earlier import TAIL

        if getattr(self.opts, "resume", False):
            from circle.entrypoints.tui._recent import session_choices
            from circle.entrypoints.tui.screens.picker import PickerScreen

            sessions = await runtime.ports.store.list_sessions(workspace=runtime.options.workspace, limit=50)
            items = session_choices(sessions, now=time.time())
            title = "Resume a session"
            while (
                chosen := await self.push_screen_wait(PickerScreen(title, items, empty=NO_SESSIONS))
            ) is not None:
                try:
                    return await runtime.open_session(chosen, tail=TAIL)
                except SessionBusyError as exc:  # said over the list again: Circle did not just end
                    title = f"{exc.message}. Pick another, or esc for a new session"
            return await runtime.new_session()
        return await open_session(runtime, self.opts, tail=TAIL)

    def fail(self, message: str) -> None:
        self.error = message
        self.exit(EXIT_FAILED, return_code=EXIT_FAILED)

    def on_main_screen_quit_wanted(self, message: MainScreen.QuitWanted) -> None:
        self.quit_circle(message.code)

    @work(exclusive=True, group="quit")
    async def quit_circle(self, code: int = EXIT_OK) -> None:
        from circle.domain.errors import CircleError

        self.desk.dismiss_all()
        host = self.host
        if host is not None:
            if host.session.is_running:
                await host.session.abort()  # the turn stops and records the interruption first
            try:
                stopped = await host.close()
            except CircleError as exc:
                stopped = []
                self.error = exc.message
            kept = host.session.conversation.stored and not self.opts.no_session  # stored with a message
            if not kept and host.left is not None and not self.opts.no_session:  # /new, then nothing
                self.exit_lines = exit_lines(stopped, host.left, ephemeral=False)  # said: the one before
            else:
                self.exit_lines = exit_lines(stopped, host.session.session_id, ephemeral=not kept)
        self.exit(code, return_code=code)


NO_SESSIONS = "This folder has no sessions yet."


def _load(make: Callable[[], Backend], variables: dict[str, str]) -> tuple[Backend, Parsed]:
    """On a thread: the backend, with the modules a session needs imported while the app paints,
    and the session screen's styles parsed with the app's ``variables``."""
    import circle.entrypoints.tui._host  # noqa: F401
    from circle.entrypoints.tui._stylesheet import parse_ahead
    from circle.entrypoints.tui.screens.main import first_css

    return make(), parse_ahead(first_css(), variables)


def exit_lines(
    stopped: list[str], session_id: str, *, ephemeral: bool, command: str | None = None
) -> list[str]:
    """What the terminal shows after Circle leaves: the jobs it stopped, the command that reopens
    (with ``command``, else the one that starts this Circle from any folder)."""
    from circle.entrypoints._invocation import circle_command

    lines = []
    if stopped:
        lines.append(f"Stopped {len(stopped)} background job{'' if len(stopped) == 1 else 's'}:")
        lines += [f"  {job}" for job in stopped]
    if not ephemeral:
        lines.append(f"Continue this session with: {command or circle_command()} --session {session_id}")
    return lines


__all__ = ["CircleApp", "exit_lines"]
