"""The session screen: the conversation, the plan box, the busy line, the input box (or the card
in its frame), the footer and the strip. It routes messages; the work is the host's.

Which of the keys read while a card is up are the card's and which the input box's is decided in
:mod:`._keys_at_card` (:meth:`MainScreen.key_read` asks it), the slash commands in :mod:`._commands`.
Over 600 lines (some 640): the agent's events, the turn's worker with the messages sent while it
starts or stops, the person's ``!commands`` and ctrl+c share the screen's state (the turn, the busy
line, the footer); the turn's worker is the next to move out."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import QueryType
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea
from textual.worker import Worker, get_current_worker

from circle.application.events import (
    ErrorReported,
    MessageStarted,
    MessageUpdated,
    SubagentEvent,
    ToolExecutionEnded,
    ToolExecutionStarted,
    TurnEnded,
    TurnStarted,
)
from circle.domain.errors import CircleError
from circle.domain.todos import parse_todos
from circle.entrypoints.tui import _format, _slash
from circle.entrypoints.tui._desk import Desk
from circle.entrypoints.tui._frames import start_frame_clock
from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui._host import Host
from circle.entrypoints.tui._quitting import QUIT_WINDOW_S, quit_hints
from circle.entrypoints.tui._stylesheet import Source, default_sources, file_sources
from circle.entrypoints.tui.screens._keys_at_card import KeysAtCard
from circle.entrypoints.tui.screens._rest import show_session
from circle.entrypoints.tui.screens._view_keys import MORE_BELOW, ViewKeys
from circle.entrypoints.tui.widgets.card_fit import fit_card
from circle.entrypoints.tui.widgets.cards import Card, card_for
from circle.entrypoints.tui.widgets.composer import CompletionList, Composer
from circle.entrypoints.tui.widgets.conversation import ConversationView, ShellRow, TurnLine
from circle.entrypoints.tui.widgets.rows import Notice
from circle.entrypoints.tui.widgets.status import BusyLine, FooterLine, PlanBox, Strip, StripItem

CARD_CHECK_S = 0.25
OVERLAYS = ("transcript", "picker", "tree")
"""The screens opened over the session screen, by their style files' names."""
STRIP_CHECK_S = 0.5
STRIP_MOST = 1000
"""The most of a job's command (a subagent's description) the strip is given: it cuts each line
to its own width (at 140 columns, cut at 60, a line left 70 of them empty)."""
STOPPED_HINT = "Denied, and the turn stopped. Type what to do instead."
QUEUED = "Queued: it is sent once the work on the job's notice has ended."
"""Said when a message is sent while a background job's notice is worked on between turns."""
CARD_WAITS = "a card waits · it shows when you pause or send"
"""The busy line's words while the words being typed in the input box hold a card back."""
CARD_WAITS_SHORTER = (
    "a card waits · pause or enter shows it",
    "card waits · pause or enter",
    "card waits · enter",
    "card waits",
)
""":data:`CARD_WAITS` in fewer words, for a narrow busy line: at 50 columns it read ``a card waits ·
it shows wh…``, at 80 ``… when you pause or s…``."""
SHELL_CUT = "(its output is not kept once stopped)"
SHELL_STOPPED = "not sent to the model"
"""Said under a person's ``!command`` stopped before its end (``[stopped; …]``): nothing goes."""


class AgentEventArrived(Message):
    def __init__(self, event: object) -> None:
        super().__init__()
        self.event = event


class MainScreen(ViewKeys):
    class QuitWanted(Message):
        """Leave Circle with this exit code."""

        def __init__(self, code: int) -> None:
            super().__init__()
            self.code = code

    CSS_PATH: ClassVar = [Path(__file__).with_name(f"{name}.tcss") for name in ("main", *OVERLAYS)]
    """With the styles of the screens opened over this one: a screen whose styles were new then
    made Textual parse every style again and restyle every row of the conversation as it opened."""
    AUTO_FOCUS = "Composer"
    """The input box has the focus from the first frame: the conversation taking it first, then
    giving it up, styled all its rows twice more (in a resumed session's tail some 0.1 s)."""
    BINDINGS = [  # noqa: RUF012
        Binding("escape", "cancel_turn", "cancel", show=False),
        Binding("ctrl+b", "background", "background", show=False, priority=True),
        Binding("shift+tab", "cycle_mode", "mode", show=False, priority=True),
        Binding("ctrl+c", "interrupt", "quit", show=False, priority=True),
    ]

    def __init__(self, host: Host, desk: Desk, *, history: InputHistory, clock: Callable[[], float]) -> None:
        super().__init__()
        self.host = host
        self.desk = desk
        self.clock = clock
        self.conversation = ConversationView(id="conversation")
        self.below = Static(MORE_BELOW, id="below")
        self.completions = CompletionList()
        self.composer = Composer(
            history=history, completions=self.completions, lister=self._list_folder, clock=clock
        )
        self.busy = BusyLine(clock=clock)
        self.plan = PlanBox()
        self.footer = FooterLine()
        self.strip = Strip()
        self.frame = Vertical(id="frame")
        self.card: Card | None = None
        self.turn_started: float | None = None
        self.last_interrupt = float("-inf")
        """When ctrl+c last armed leaving (a second one within ``QUIT_WINDOW_S`` leaves)."""
        self.quit_hint = False
        """The footer says a second ctrl+c leaves (for ``QUIT_WINDOW_S``, in real seconds)."""
        self.quit_timer: Timer | None = None
        self.cancelled = False
        """esc or ctrl+c cancelled the running turn: a ctrl+c now arms leaving."""
        self.error_shown: str | None = None
        """The error the conversation already shows for this turn (not shown again at its end)."""
        self.stopped_at_card = False
        """esc on an approval card stopped this turn: its end says the person can type instead."""
        self.waiting: list[tuple[str, str | None]] | None = None
        """While a turn's worker lives (None when none does): the messages sent while no turn of it
        ran (read in the burst that sent its message, before it started, or between its turns),
        steered once one runs, else sent when it ends."""
        self.stopping = False
        """esc stopped the running turn: what is sent before it ended waits for it, not read by it."""
        self.mode_line: Notice | None = None
        """The line shift+tab left last (said again, not added, while nothing came after it)."""
        self.at_card = KeysAtCard(self)
        """Which of the keys read while a card is up are the card's (and what was typed at it)."""
        self.held_over: str | None = None
        """What the busy line said before it said a card waits (:data:`CARD_WAITS`)."""
        self.shells: list[tuple[Worker[None], str]] = []
        """The person's ``!commands`` running now, oldest first, each with its line (``! ls``)."""
        self.when_mounted: Callable[[], None] | None = None
        """Called once this screen is mounted, before its first frame: the app gives the input box
        the keys typed while Circle started, so that frame shows them."""
        from circle.entrypoints.tui.screens._commands import SlashCommands

        self.commands = SlashCommands(self)

    def compose(self) -> ComposeResult:
        from circle.entrypoints.tui.widgets.find_bar import FindBar

        yield self.conversation
        find_bar = FindBar(self.conversation, rest=self.conversation)  # hidden till ctrl+f; laid out now
        find_bar.field.cursor_blink = self.composer.cursor_blink  # steady where the input box's is
        yield find_bar
        yield self.below
        yield self.plan
        yield self.completions
        yield self.busy
        with self.frame:
            yield self.composer
        yield self.footer
        yield self.strip

    def on_mount(self) -> None:
        start_frame_clock(self)  # the tail laid out shows at once, not a frame period later
        self.completions.display = False
        self.below.display = False
        self.desk.changed = self._cards_changed
        self.set_interval(CARD_CHECK_S, self._cards_changed)
        self.set_interval(STRIP_CHECK_S, self.refresh_strip)
        messages = self.host.session.conversation.messages
        if not messages:
            from circle.entrypoints.tui.widgets.welcome import Welcome

            welcome = Welcome(self.host.workspace)
            self.conversation.add(welcome)
            self.run_worker(welcome.fill(self.host), group="welcome")
        show_session(self)  # a long session's earlier messages are read after this frame
        self.refresh_footer()
        self.plan.set(self.host.todos(), plan_mode=self.host.plan_mode)
        self.commands.start()  # the custom commands, for the completion list
        self.composer.focus()
        if self.when_mounted is not None:
            self.when_mounted()

    # -- events from the agent

    def on_agent_event_arrived(self, message: AgentEventArrived) -> None:
        event = message.event
        self.conversation.apply(event)
        person = isinstance(event, MessageStarted) and event.role == "user"
        session = self.host.session
        if self.waiting and person and session.is_running and not session.working_on_notices:
            waiting, self.waiting = self.waiting, []  # after the row of the turn's own message
            for text, typed in waiting:
                self.send(text, typed=typed)
        self.busy.count(event)
        if isinstance(event, ErrorReported):
            self.error_shown = event.message
        if isinstance(event, TurnStarted):
            self.error_shown = None
            self.turn_started = self.clock()
            self.busy.show(self._working())
        elif isinstance(event, MessageUpdated):
            self.busy.show("Answering…" if event.kind == "text" else "Thinking…")  # its thinking streams
        elif isinstance(event, ToolExecutionStarted):
            self.busy.show(_format.tool_title(event.tool_name, event.args))
            if event.tool_name == "write_todos" and (todos := parse_todos(event.args)) is not None:
                self.plan.set(todos)
        elif isinstance(event, SubagentEvent) and isinstance(inner := event.event, ToolExecutionStarted):
            self.busy.show(f"{event.subagent_type} · {_format.tool_title(inner.tool_name, inner.args)}")
        elif isinstance(event, ToolExecutionEnded):
            self.busy.show(self._working())
            self.plan.set(self.host.todos(), plan_mode=self.host.plan_mode)
        elif isinstance(event, TurnEnded):
            self._turn_ended(event)
        self.refresh_footer()

    def _working(self) -> str:
        """The busy line while the model's answer has not begun: it thinks only when thinking is
        on ('Thinking…' with thinking off told of thinking that was not asked for)."""
        return "Working…" if self.host.thinking in (None, "off") else "Thinking…"

    def _turn_ended(self, event: TurnEnded) -> None:
        seconds = self.clock() - self.turn_started if self.turn_started is not None else 0.0
        self.host.session_usage = self.host.session_usage + event.usage  # guessed tokens too
        self.host.session_estimated += event.estimated
        self.host.session_cost = event.session_cost
        line = _format.turn_line(
            seconds,
            event.usage,
            event.cost,
            aborted=event.aborted,
            error=event.error,
            incomplete=event.incomplete,
            estimated=event.estimated,
        )
        if event.error and event.error != self.error_shown:
            self.conversation.notice(f"error: {event.error}", kind="error")
        self.conversation.add(TurnLine(line))
        if self.stopped_at_card and event.aborted:
            self.conversation.notice(STOPPED_HINT, kind="hint")
        if event.aborted and (unread := self.host.session.take_steering()):
            self.conversation.take_back(unread)  # stopped before the model read them: nothing is
            self.composer.put_back(unread)  # sent unasked, nothing lost
        self.stopped_at_card = self.stopping = self.cancelled = False
        self.busy.hide()
        self._idle_busy()  # a command the person runs goes on
        self.turn_started = None
        self.plan.set(self.host.todos(), plan_mode=self.host.plan_mode)

    def refresh_footer(self) -> None:
        if self.quit_hint:
            self.footer.show(partial(_quit_line, jobs=len(self.host.running_jobs())))
            return
        for message in reversed(self.host.session.conversation.messages[-3:]):
            if message.role == "assistant" and message.usage is not None:
                self.host.context_tokens = message.usage.total
                break
        self.footer.show(
            partial(
                _format.footer_line,
                model=self.host.model,
                thinking=self.host.thinking,
                context_pct=self.host.context_pct,
                session_tokens=self.host.session_usage.total,
                session_cost=self.host.session_cost,
                estimated=self.host.session_estimated > 0,
                mode=self.host.policy.mode,
                plan=self.host.plan_mode,
            )
        )

    def refresh_strip(self) -> None:
        items = [
            StripItem(
                "subagent", run.id, f"{run.subagent_type}: {_format.one_line(run.description, STRIP_MOST)}"
            )
            for run in self.host.subagent_runs()
            if run.status == "running"
        ]
        items += [
            StripItem("job", job_id, f"{job_id}: {_format.one_line(command, STRIP_MOST)}")
            for job_id, command in self.host.running_jobs()
        ]
        self.strip.set_items(items)

    # -- the input box

    def on_composer_submitted(self, message: Composer.Submitted) -> None:
        text = message.text
        self.composer.prompts.add(text)  # the box was emptied as Enter was read
        self.conversation.follow()  # the person sees what comes of it, even when scrolled up
        if text.startswith("!"):
            sent = not text.startswith("!!")
            command = text[1:] if sent else text[2:]
            if command.strip():
                self.run_shell(command.strip(), sent=sent)
            return
        if (invocation := _slash.parse(text, typed=message.typed)) is not None:
            self.commands.run(invocation)
            return
        self.send(text, typed=message.typed)

    def send(self, text: str, *, typed: str | None = None) -> None:
        self.conversation.follow()  # the person sees what they sent, even when scrolled up (or replayed)
        session = self.host.session
        holding = self.stopping or session.working_on_notices  # the turn running is not the worker's
        if session.is_running and not (holding and self.waiting is not None):
            session.steer(text)
            self.conversation.steered(text, typed=typed)
            return
        if self.waiting is not None:  # a new worker would cancel the one whose turn has not begun
            self.waiting.append((text, typed))
            return
        if session.is_busy:  # a job's notice is worked on, between its turns: the worker waits
            self.notify(QUEUED, timeout=4)
        self.waiting = []
        self.run_prompt(text, typed=typed)

    @work(exclusive=True, group="turn")
    async def run_prompt(self, text: str, *, typed: str | None = None) -> None:
        self.busy.show(self._working())
        try:
            await self.host.prompt(text, typed=typed)
        except CircleError as exc:
            self.conversation.notice(f"error: {exc.message}", kind="error")
        finally:
            self._idle_busy()
            self.refresh_footer()
            waiting, self.waiting, self.stopping = self.waiting or [], None, False
            self.cancelled = False
            for text, typed in waiting:  # no turn of this worker ran after they were sent
                self.send(text, typed=typed)

    @work(group="shell")
    async def run_shell(self, command: str, *, sent: bool) -> None:
        """Run the person's ``command``: a line says it runs (esc stops it) until its row comes."""
        said = f"{'!' if sent else '!!'} {command}"
        running = (get_current_worker(), said)
        self.shells.append(running)
        line = self.conversation.notice(f"Running {said} · esc stops it", kind="info")
        self.busy.show(said)
        try:
            outcome = await self.host.shell(command, sent=sent)
        except CircleError as exc:
            self.conversation.notice(f"error: {exc.message}", kind="error")
            return
        except asyncio.CancelledError:  # esc or ctrl+c: the command and its group were killed
            after = len(self.host.session.conversation.messages)
            self.conversation.add(
                ShellRow(command, SHELL_CUT, code=None, sent=sent, said=SHELL_STOPPED, after=after)
            )
            raise
        finally:
            self.shells.remove(running)
            line.remove()
            self._idle_busy()
        after = len(self.host.session.conversation.messages)
        row = ShellRow(outcome.command, outcome.output, code=outcome.exit_code, sent=sent, after=after)
        self.conversation.add(row)

    def _idle_busy(self) -> None:
        """No turn runs: the busy line shows the person's command still running, else goes."""
        if self.host.session.is_running:
            return
        if self.shells:
            self.busy.show(self.shells[-1][1])
        else:
            self.busy.hide()

    def _stop_shells(self) -> bool:
        """Stop the person's running commands (each with its process group); True if one ran
        that was not stopped already."""
        running = [worker for worker, _command in self.shells if not worker.is_cancelled]
        for worker in running:
            worker.cancel()
        return bool(running)

    async def _list_folder(self, folder: str) -> list[tuple[str, bool]]:
        import posixpath

        root = (
            posixpath.normpath(posixpath.join(self.host.workspace, folder)) if folder else self.host.workspace
        )
        entries = await self.host.runtime.ports.files.list_dir(root)
        return [(posixpath.basename(e.path.rstrip("/")), e.kind == "dir") for e in entries]

    def on_composer_history_search_wanted(self, message: Composer.HistorySearchWanted) -> None:
        from circle.entrypoints.tui.screens.picker import PickerScreen

        found = self.composer.prompts.search("")
        items = [(str(i), _format.one_line(entry, 100)) for i, entry in enumerate(found)]

        def chosen(value: str | None) -> None:
            if value is not None:
                self.composer.set_text(found[int(value)])
            self.composer.focus()

        self.app.push_screen(PickerScreen("Search the history (ctrl+r)", items, empty="No match."), chosen)

    def on_composer_strip_wanted(self, message: Composer.StripWanted) -> None:
        """↓ on an empty input selects the strip, now; not when text typed right behind the ↓ is
        already in the box (read with it, those keys reached the box before this message did)."""
        if message.enter:  # the enter read with the ↓ opens what the ↓ selected
            if self.focused is self.strip and self.strip.items:
                self.open_record(self.strip.items[self.strip.selected])
        elif self.strip.items and not self.composer.text and self.focused is self.composer:
            self.set_focus(self.strip)

    def on_strip_left(self, message: Strip.Left) -> None:
        self.composer.focus()

    def on_strip_opened(self, message: Strip.Opened) -> None:
        self.open_record(message.item)

    @work(group="record")
    async def open_record(self, item: StripItem) -> None:
        from circle.entrypoints.tui.screens.record import record_screen

        await self.app.push_screen(await record_screen(self.host, item))

    # -- cards

    def _cards_changed(self) -> None:
        pending = self.desk.first
        if self.card is not None:
            if pending is self.card.pending:
                return
            self.composer.display = True
            self.composer.beside_card = False
            # focus moves before the card goes: else it falls to a row above, and scrolling that
            # row into view would let go of the end the person never scrolled from
            self.set_focus(self.composer, scroll_visible=False)
            self.card.remove()
            self.card = None
            self.busy.card_shown(False)
        held = pending is not None and self.composer.typing and self.app.screen is self
        self._card_waits(held)
        if pending is None or held or self.app.screen is not self:
            return
        self.card = card_for(pending)
        if self.composer.text.strip():  # words typed before it stay in sight, and the box's
            self.composer.beside_card = True
            self.card.words_above(True, typing=False)  # it shows once the typing paused: its keys act
            self.call_after_refresh(fit_card, self.card)
        else:
            self.composer.display = False
        self.completions.hide()
        self.frame.mount(self.card)
        self.card.focus()
        self.busy.card_shown(True)

    def _card_waits(self, held: bool) -> None:
        """Say on the busy line that a card waits while the words typed hold it back; once it
        shows (or went), the line says again what it said before."""
        if held and self.busy.display and self.busy.activity != CARD_WAITS:
            self.held_over = self.busy.activity  # also when a tool's start said what runs since
            self.busy.show(CARD_WAITS, shorter=CARD_WAITS_SHORTER)
        elif not held and self.held_over is not None:
            if self.busy.display and self.busy.activity == CARD_WAITS:
                self.busy.show(self.held_over)
            self.held_over = None

    def on_card_answered(self, message: Card.Answered) -> None:
        message.stop()
        if message.stop_turn:  # denied, and the turn ends once the denial is recorded
            self.host.session.stop_after_calls()
            self.stopped_at_card = self.stopping = True
        self.desk.answer(message.pending, message.value)

    # -- keys

    def on_key(self, event: events.Key) -> None:
        """A printable key no focused widget took goes to the input box (when it is shown)."""
        if not isinstance(self.focused, (TextArea, Input)):
            self.take_typed(event)

    def key_read(self, event: events.Key) -> bool:
        """Whether ``event``, read while a card is up, is not the card's (see :class:`KeysAtCard`):
        True when it went to the input box, or waits to act."""
        return self.at_card.read(event)

    def on_paste(self, event: events.Paste) -> None:
        """A paste while an approval card is up goes to the input box, as typing does."""
        self.at_card.paste(event)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Words sent from the box above a card (enter) leave it empty: it goes, the card stays."""
        card, box = self.card, self.composer
        up = card is not None and not card.answered
        if event.text_area is box and up and card is not None and box.beside_card and not box.text:
            box.display = False
            card.words_above(False)
            self.at_card.box_emptied()
            self.call_after_refresh(fit_card, card)

    def focus_next(self, selector: str | type[QueryType] = "*") -> Widget | None:
        """tab: from the input box (or the conversation) to the newest row the focus can reach,
        then to the row above it each time, then back to the box. Textual's order, the page's,
        went to the session's oldest row first."""
        focused, view = self.focused, self.conversation
        here = focused is None or focused in (self.composer, view) or view in focused.ancestors
        if selector != "*" or not here:  # a card, the strip, the find bar: as Textual does
            return super().focus_next(selector)
        rows = [widget for widget in self.focus_chain if view in widget.ancestors]
        if not rows:
            return super().focus_next(selector)
        if focused in rows:
            at = rows.index(focused)
            target: Widget = rows[at - 1] if at else self.composer
        else:
            target = rows[-1]
        self.set_focus(target)
        return target

    def take_typed(self, event: events.Key) -> bool:
        """A printable key typed outside the input box goes into it, focused at once (the keys
        typed after it follow it there); False when it is not printable or the box is hidden (a card
        is up that is not answered yet)."""
        if not (event.is_printable and event.character):
            return False
        card = self.card
        if card is not None and not card.answered:
            return False  # the card's, or sent to the box as it was read (key_read)
        if not self.composer.display:
            if card is None:
                return False
            self.composer.display = True  # the card goes: keys typed after its answer are new words
        event.stop()
        event.prevent_default()
        self.set_focus(self.composer)
        self.composer.type_text(event.character)
        return True

    def on_resize(self, event: events.Resize) -> None:
        """The terminal's new size: the card is fitted to it before Textual lays the screen out
        (``Screen._on_resize``, after this), so the first frame at that size shows its options."""
        if self.card is not None:
            fit_card(self.card, event.size.height)

    def on_screen_resume(self) -> None:
        """Back from a record or a picker: typing goes to the input box again (or to the card)."""
        if self.card is not None:
            self.card.focus()
        elif self.composer.display:
            self.composer.focus()

    def action_cancel_turn(self) -> None:
        if self.completions.open:
            self.completions.hide()
            return
        self._stop_shells()
        self._cancel()

    def _cancel(self) -> bool:
        """Cancel the running turn (esc, ctrl+c); True if one ran."""
        if not self.host.cancel():
            return False
        self.busy.show("Cancelling…")
        self.stopping = self.cancelled = True
        return True

    def action_cycle_mode(self) -> None:
        mode = self.host.cycle_mode()
        said = {
            "default": "Default mode: commands and file changes ask.",
            "accept-edits": "Accept edits: file changes inside the workspace no longer ask.",
            "plan mode": "Plan mode: nothing changes until you accept a plan.",
        }
        line = said.get(mode, f"Mode: {mode}.")
        last = self.mode_line
        if last is not None and last.is_attached and self.conversation.children[-1:] == [last]:
            last.say(line)  # shift+tab pressed again: one line says the mode it came to
        else:
            self.mode_line = self.conversation.notice(line, kind="info")
        self.plan.set(self.host.todos(), plan_mode=self.host.plan_mode)
        self.refresh_footer()

    @work(group="background")
    async def action_background(self) -> None:
        if await self.host.to_background():
            self.conversation.notice("The command moved to the background; the turn goes on.", kind="info")
        else:
            self.conversation.notice("No command is being waited on that can move to the background.")

    def action_interrupt(self) -> None:
        """ctrl+c, a priority binding run as it is read: it decides once the keys read before it
        have reached the input box (queued behind them where the focus is, then at the box). Run
        at once, 'hello world' and ctrl+c sent in one read found the box empty and armed leaving,
        the words left in it; 'more' and ctrl+c during a turn stopped the turn, 'more' left."""
        focused = self.focused
        if focused is None or focused is self.composer:
            self.composer.call_later(self._interrupt)
        else:
            focused.call_later(self.composer.call_later, self._interrupt)

    def _interrupt(self) -> None:
        """ctrl+c, after the keys read before it: the selection copied, else the box's words let
        go, else what runs stopped, else leaving armed (or, armed, Circle left)."""
        now = self.clock()
        if self.get_selected_text():  # text selected: ctrl+c copies it (again) and lets it go
            from circle.entrypoints.tui._clipboard import copy_selection

            copy_selection(self.app)
            self.clear_selection()
            return
        if self.composer.text:
            self.composer.clear_all()
            return
        stopped = self._stop_shells()  # what runs is stopped (once: asked again, it arms)
        if (not self.cancelled and self._cancel()) or stopped:
            self._arm_quit(None)  # begun since it armed: this ctrl+c was for it
        elif now - self.last_interrupt < QUIT_WINDOW_S:
            self.post_message(self.QuitWanted(130))
        else:
            self._arm_quit(now)

    def _arm_quit(self, now: float | None) -> None:
        """A second ctrl+c within ``QUIT_WINDOW_S`` of ``now`` leaves, the footer says so meanwhile
        (None: not armed)."""
        armed = now is not None
        self.last_interrupt = now if now is not None else float("-inf")
        if self.quit_timer is not None:
            self.quit_timer.stop()
        self.quit_timer = self.set_timer(QUIT_WINDOW_S, partial(self._arm_quit, None)) if armed else None
        if self.quit_hint != armed:
            self.quit_hint = armed
            self.refresh_footer()


def first_css() -> list[Source]:
    """The styles the session screen's first frame takes: its style files and the DEFAULT_CSS of
    the widgets it starts with, parsed on the loader thread (see ``_stylesheet.py``);
    test_first_css checks that the screen, pushed, parses none of its own."""
    from circle.entrypoints.tui.widgets.find_bar import FindBar, _Field
    from circle.entrypoints.tui.widgets.welcome import Welcome

    widgets = (MainScreen, ConversationView, FindBar, _Field, Static, Vertical, CompletionList, Composer)
    return file_sources(MainScreen.CSS_PATH) + default_sources(
        (*widgets, BusyLine, PlanBox, FooterLine, Strip, Welcome)
    )


def _quit_line(*, jobs: int = 0, width: int | None = None) -> str:
    """The footer's words while ctrl+c is armed, in place of its line: the longest that fits (a
    toast there covered the input box), saying that leaving stops the ``jobs`` running."""
    hints = quit_hints(jobs)
    return next((hint for hint in hints if width is None or len(hint) <= width), hints[-1])


__all__ = ["AgentEventArrived", "MainScreen", "first_css"]
