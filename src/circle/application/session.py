"""AgentSession: one conversation being driven: prompts, steering, follow-ups and cancel.

Background jobs (see :mod:`circle.application.jobs`) end whenever they end. Their notices reach the
model as user messages, stored in the conversation like any other, so the history stays valid for
every protocol and a resumed session still shows them:

- while a turn runs, like steering: read before the turn's next model request;
- when no turn runs, in a turn of their own (its ``TurnStarted`` has no message), started at once
  (``idle_turn``); after a prompt's own turns and follow-ups, the notices that came meanwhile get a
  turn too, before ``prompt`` returns.

At most :data:`MAX_JOB_TURNS` such turns run in a row without a message from the person; notices
past that wait and go with the person's next message, which starts the count again. After
:meth:`AgentSession.abort` (or when the caller sets ``hold_job_turns``) no such turn starts until the
next prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from circle.domain.errors import ConfigError, StorageError
from circle.domain.messages import Aside, DocumentPart, ImagePart, Shown

from .agent_loop import AgentLoop, Inbox, TurnResult
from .attachments import Attached
from .conversation import Conversation
from .events import AgentEnded, AgentStarted
from .jobs import JobManager

log = logging.getLogger("circle.session")
MAX_JOB_TURNS = 10


class AgentSession:
    """Runs turns one at a time on a conversation."""

    def __init__(
        self, loop: AgentLoop, conversation: Conversation, *, jobs: JobManager | None = None
    ) -> None:
        self.loop = loop
        self.conversation = conversation
        self.inbox = Inbox()
        self.jobs = jobs
        self.job_turns = 0
        """Turns started for job notices since the person's last message."""
        self.idle_turn: asyncio.Task[TurnResult] | None = None
        """The last run of turns started for job notices while nothing else ran."""
        self.hold_job_turns = False
        """Job notices wait for the next prompt instead of starting turns (after an abort)."""
        self.start_note: str | None = None
        """What the session-start hooks said (kept in the system prompt when the model changes)."""
        self._task: asyncio.Task[TurnResult] | None = None
        self._busy = False
        self._waiting: list[str] = []
        self._steered: list[str] = []
        self._settled: list[Callable[[], None]] = []
        self._quiet = asyncio.Event()
        self._quiet.set()
        self._appended_at_start = 0
        self.asides: list[Aside] = []
        """What waits to go with the person's next message (commands they ran)."""
        if jobs is not None:
            jobs.on_ended(self._job_ended)

    @property
    def session_id(self) -> str:
        return self.conversation.session_id

    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def is_busy(self) -> bool:
        """A prompt, its follow-ups or a job notice's turns are under way (maybe between turns)."""
        return self._busy or self.is_running

    @property
    def working_on_notices(self) -> bool:
        """The work under way is turns for job notices, started while nothing else ran."""
        return self.idle_turn is not None and not self.idle_turn.done()

    def on_settled(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` each time the work a prompt or a job notice started has ended."""
        self._settled.append(listener)

    async def until_settled(self) -> None:
        """Return once no work is under way (at once when none is): a :meth:`prompt` called right
        after it, with no ``await`` between, is not refused for a job notice's work."""
        while self.is_busy:
            await self._quiet.wait()

    def _start(self) -> None:
        """The work begins: busy until :meth:`_settle`."""
        self._busy = True
        self._quiet.clear()
        self._appended_at_start = self.conversation.appended
        self.loop.events.emit(AgentStarted(session_id=self.session_id))

    def _settle(self) -> None:
        self._busy = False
        self._quiet.set()
        added = self.conversation.appended - self._appended_at_start
        history = self.conversation.messages
        messages = tuple(history[-added:]) if added > 0 else ()
        self.loop.events.emit(AgentEnded(session_id=self.session_id, messages=messages))
        for listener in list(self._settled):
            listener()

    async def prompt(
        self,
        text: str,
        *,
        media: Sequence[ImagePart | DocumentPart] = (),
        attached: Attached | None = None,
        typed: str | None = None,
    ) -> TurnResult:
        """Run a turn for ``text`` (with the images and PDFs in ``media`` after it), then one turn
        for each follow-up queued meanwhile.

        The model reads, before ``text``: plan mode's net change since it last knew, the
        :attr:`asides` waiting (the person's commands), and the ``attached`` files. The person's row
        shows ``typed`` (what the input box showed, pastes folded; default ``text``) with the files
        as names and the rest apart.

        Returns the last turn's result. A cancelled turn returns with ``aborted`` set. Job notices
        that wait go with ``text``; those that come after its turns get turns of their own.

        Raises:
            ConfigError: a turn (or its follow-ups) is already under way.
        """
        if self.is_running or self._busy:
            raise ConfigError("a turn is already running: steer or follow up instead")
        self._start()
        self.job_turns = 0
        self.hold_job_turns = False
        try:
            self._steer_waiting()
            if not self.conversation.messages:
                await self._title(typed or text)
            return await self._go_on(await self._run(text, media=media, attached=attached, typed=typed))
        finally:
            self._settle()

    async def _title(self, text: str) -> None:
        """An untitled session is titled by its first message, whichever face sent it."""
        info = await self.conversation.info()
        first_line = text.strip().splitlines()[0] if text.strip() else ""
        if info is not None and not info.title and first_line:
            await self.conversation.set_title(first_line[:80])

    async def _go_on(self, result: TurnResult) -> TurnResult:
        """Steering messages the turn ended without reading, follow-ups, then job notices (up to
        the limit), each in a turn, until none is left."""
        while not result.aborted:
            if self.inbox.steering:  # sent as the last answer came: read in a turn of their own
                result = await self._run(None)
            elif (follow_up := self.inbox.next_follow_up()) is not None:
                self.job_turns = 0
                result = await self._run(follow_up)
            elif self._waiting and self.job_turns < MAX_JOB_TURNS and not self.hold_job_turns:
                self.job_turns += 1
                result = await self._run(None)
            else:
                break
        return result

    async def _run(
        self,
        text: str | None,
        *,
        media: Sequence[ImagePart | DocumentPart] = (),
        attached: Attached | None = None,
        typed: str | None = None,
    ) -> TurnResult:
        """One turn for the person's ``text``, or (None) for the job notices waiting. The output
        tokens guessed in it (no endpoint counted them) are kept with the session, which opens again
        with them in its totals."""
        shown: Shown | None = None
        if text is None:
            self._steer_waiting()
        else:
            text, media, shown = self._compose(
                text, media=media, attached=attached or Attached(), typed=typed
            )
        turn = self.loop.run_turn(self.conversation, text, self.inbox, media=media, shown=shown)
        self._task = asyncio.create_task(turn)
        try:
            result = await self._task
        finally:
            self._task = None
            unread = [notice for notice in self._steered if notice in self.inbox.notices]
            for notice in unread:  # came as the turn was ending: they get a turn of their own
                self.inbox.notices.remove(notice)
            self._waiting[:0] = unread
            self._steered = []
        if result.estimated:
            await self._keep_estimated(result.estimated)
        return result

    async def _keep_estimated(self, tokens: int) -> None:
        state = self.conversation.state
        try:
            await self.conversation.keep_state(replace(state, estimated=state.estimated + tokens))
        except StorageError as exc:  # the totals of the session opened again lack them; the turn stands
            log.warning("the guessed tokens of a turn were not kept: %s", exc)

    def add_aside(self, aside: Aside) -> None:
        """Send ``aside`` (a command the person ran) with the person's next message."""
        self.asides.append(aside)

    def _compose(
        self, text: str, *, media: Sequence[ImagePart | DocumentPart], attached: Attached, typed: str | None
    ) -> tuple[str, tuple[ImagePart | DocumentPart, ...], Shown | None]:
        """The text the model reads for the person's ``text``, its media, and how it is shown."""
        news = self.loop.context.plan_mode.news()
        asides = (*([news] if news is not None else []), *self.asides)
        self.asides = []
        sent = "\n\n".join([*(aside.note() for aside in asides), *attached.blocks, text])
        shown = None
        if asides or attached.names or (typed is not None and typed != text):
            shown = Shown(typed=text if typed is None else typed, asides=asides, files=attached.names)
        return sent, (*media, *attached.media), shown

    def _job_ended(self) -> None:
        if self.jobs is not None:
            self._waiting.extend(self.jobs.take_notices())
        if not self._waiting:
            return
        if self.is_running:
            self._steer_waiting()
        elif not self._busy and self.job_turns < MAX_JOB_TURNS and not self.hold_job_turns:
            self._start()
            self.idle_turn = asyncio.create_task(self._idle())

    async def _idle(self) -> TurnResult:
        try:
            self.job_turns += 1
            return await self._go_on(await self._run(None))
        finally:
            self._settle()

    @property
    def waiting_notices(self) -> int:
        """Job notices no turn has read yet."""
        return len(self._waiting)

    def _steer_waiting(self) -> None:
        for notice in self._waiting:
            self.inbox.notices.append(notice)
            self._steered.append(notice)
        self._waiting = []

    async def wait_for_jobs(self, timeout_s: float, *, poll_s: float = 0.05) -> None:
        """Before leaving: let the running background jobs end and their notices get turns, for up
        to ``timeout_s`` seconds and :data:`MAX_JOB_TURNS` turns (none after an abort). A turn still
        running at the deadline is stopped; jobs still running are left to :meth:`stop_jobs`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while loop.time() < deadline:
            if self.is_busy:
                await asyncio.sleep(poll_s)
                continue
            jobs_left = self.jobs is not None and bool(self.jobs.running)
            may_turn = self.job_turns < MAX_JOB_TURNS and not self.hold_job_turns
            if not may_turn or not (jobs_left or self._waiting):
                return
            await asyncio.sleep(poll_s)
        if self.is_running:
            await self.abort()

    async def stop_jobs(self) -> int:
        """Stop every background job of the session with its process group; how many were running."""
        return 0 if self.jobs is None else await self.jobs.stop_all()

    def steer(self, text: str) -> None:
        """Add a message the model reads before its next request in this turn."""
        self.inbox.steering.append(text)

    def take_steering(self) -> list[str]:
        """Take back the steering messages no turn has read (the turn that was to read them was
        cancelled), oldest first; left in place, they go before the next prompt."""
        steering = list(self.inbox.steering)
        self.inbox.steering.clear()
        return steering

    def follow_up(self, text: str) -> None:
        """Queue a message that starts a new turn when this one ends."""
        self.inbox.follow_ups.append(text)

    def stop_after_calls(self) -> None:
        """End the running turn once the call running now has its result: the calls after it get
        a "not run" result and no further request is sent (the person says what to do instead)."""
        self.inbox.stop = True

    def cancel(self) -> bool:
        """Stop the running turn at its next boundary (a running command is killed). True if one ran."""
        if self._task is None or self._task.done():
            return False
        self._task.cancel()
        return True

    async def abort(self) -> bool:
        """Stop the running turn, drop the person's waiting messages, hold job turns until the next
        prompt, and return once the turn has stopped. True if a turn ran."""
        self.hold_job_turns = True
        self.inbox.clear()
        task = self._task
        if task is None or task.done():
            return False
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(task)
        while self._task is not None and self._task is task:
            await asyncio.sleep(0)
        return True
