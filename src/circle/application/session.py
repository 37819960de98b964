"""AgentSession: one conversation being driven: prompts, steering, follow-ups and cancel."""

from __future__ import annotations

import asyncio

from .agent_loop import AgentLoop, Inbox, TurnResult
from .conversation import Conversation


class AgentSession:
    """Runs turns one at a time on a conversation."""

    def __init__(self, loop: AgentLoop, conversation: Conversation) -> None:
        self.loop = loop
        self.conversation = conversation
        self.inbox = Inbox()
        self._task: asyncio.Task[TurnResult] | None = None

    @property
    def session_id(self) -> str:
        return self.conversation.session_id

    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def prompt(self, text: str) -> TurnResult:
        """Run a turn for ``text``, then one turn for each follow-up queued meanwhile.

        Returns the last turn's result. A cancelled turn returns with ``aborted`` set.
        """
        if self.is_running:
            raise RuntimeError("a turn is already running: steer or follow up instead")
        result = await self._run(text)
        while self.inbox.follow_ups and not result.aborted:
            result = await self._run(self.inbox.follow_ups.popleft())
        return result

    async def _run(self, text: str) -> TurnResult:
        self._task = asyncio.create_task(self.loop.run_turn(self.conversation, text, self.inbox))
        try:
            return await self._task
        finally:
            self._task = None

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
