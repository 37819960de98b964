"""AgentSession: one conversation being driven: prompts, steering, follow-ups and cancel.

Background jobs (see :mod:`circle.application.jobs`) end whenever they end. Their notices reach the
model as user messages, stored in the conversation like any other, so the history stays valid for
every protocol and a resumed session still shows them:

- while a turn runs, as steering: read before the turn's next model request;
- when no turn runs, in a turn of their own, started at once (``idle_turn``); after a prompt's own
  turns and follow-ups, the notices that came meanwhile get a turn too, before ``prompt`` returns.

At most :data:`MAX_JOB_TURNS` such turns run in a row without a message from the person; notices
past that wait and go with the person's next message, which starts the count again.
"""

from __future__ import annotations

import asyncio

from .agent_loop import AgentLoop, Inbox, TurnResult
from .conversation import Conversation
from .jobs import JobManager

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
        self._task: asyncio.Task[TurnResult] | None = None
        self._busy = False
        self._waiting: list[str] = []
        self._steered: list[str] = []
        if jobs is not None:
            jobs.on_ended(self._job_ended)

    @property
    def session_id(self) -> str:
        return self.conversation.session_id

    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def prompt(self, text: str) -> TurnResult:
        """Run a turn for ``text``, then one turn for each follow-up queued meanwhile.

        Returns the last turn's result. A cancelled turn returns with ``aborted`` set. Job notices
        that wait go with ``text``; those that come after its turns get turns of their own.
        """
        if self.is_running or self._busy:
            raise RuntimeError("a turn is already running: steer or follow up instead")
        self._busy = True
        self.job_turns = 0
        try:
            self._steer_waiting()
            return await self._go_on(await self._run(text))
        finally:
            self._busy = False

    async def _go_on(self, result: TurnResult) -> TurnResult:
        """Follow-ups, then job notices (up to the limit), each in a turn, until none is left."""
        while not result.aborted:
            if self.inbox.follow_ups:
                self.job_turns = 0
                result = await self._run(self.inbox.follow_ups.popleft())
            elif self._waiting and self.job_turns < MAX_JOB_TURNS:
                self.job_turns += 1
                notices, self._waiting = self._waiting, []
                result = await self._run("\n".join(notices))
            else:
                break
        return result

    async def _run(self, text: str) -> TurnResult:
        self._task = asyncio.create_task(self.loop.run_turn(self.conversation, text, self.inbox))
        try:
            return await self._task
        finally:
            self._task = None
            unread = [notice for notice in self._steered if notice in self.inbox.steering]
            for notice in unread:  # came as the turn was ending: they get a turn of their own
                self.inbox.steering.remove(notice)
            self._waiting[:0] = unread
            self._steered = []

    def _job_ended(self) -> None:
        if self.jobs is not None:
            self._waiting.extend(self.jobs.take_notices())
        if not self._waiting:
            return
        if self.is_running:
            self._steer_waiting()
        elif not self._busy and self.job_turns < MAX_JOB_TURNS:
            self._busy = True
            self.idle_turn = asyncio.create_task(self._idle())

    async def _idle(self) -> TurnResult:
        try:
            self.job_turns += 1
            notices, self._waiting = self._waiting, []
            return await self._go_on(await self._run("\n".join(notices)))
        finally:
            self._busy = False

    def _steer_waiting(self) -> None:
        for notice in self._waiting:
            self.inbox.steering.append(notice)
            self._steered.append(notice)
        self._waiting = []

    async def stop_jobs(self) -> int:
        """Stop every background job of the session with its process group; how many were running."""
        return 0 if self.jobs is None else await self.jobs.stop_all()

    def steer(self, text: str) -> None:
        """Add a message the model reads before its next request in this turn."""
        self.inbox.steering.append(text)

    def follow_up(self, text: str) -> None:
        """Queue a message that starts a new turn when this one ends."""
        self.inbox.follow_ups.append(text)

    def cancel(self) -> bool:
        """Stop the running turn at its next boundary (a running command is killed). True if one ran."""
        if self._task is None or self._task.done():
            return False
        self._task.cancel()
        return True
