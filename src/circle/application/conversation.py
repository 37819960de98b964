"""A conversation: one session's history in memory, written through to the store as it grows."""

from __future__ import annotations

from circle.domain.call_marks import lost_result
from circle.domain.checkpoints import MAIN_BRANCH
from circle.domain.messages import Message, close_unanswered, unanswered_tool_calls

from .events import MessageEnded, MessageStarted
from .ports.call_log import CallLog
from .ports.event_sink import EventSink
from .ports.session_store import SessionStore


class Conversation:
    """Appends are committed to the store before they are added to the history."""

    def __init__(
        self,
        store: SessionStore,
        session_id: str,
        history: list[Message],
        *,
        branch: str = MAIN_BRANCH,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.branch = branch
        self._history = history
        self.appended = 0
        """How many messages :meth:`append` has added since this conversation was opened."""

    @classmethod
    async def open(
        cls,
        store: SessionStore,
        session_id: str,
        *,
        branch: str = MAIN_BRANCH,
        calls: CallLog | None = None,
    ) -> Conversation:
        """Load a session; tool calls left without a result get a recorded result saying what is
        known of them from ``calls`` (not started, still running, or run to the end with the
        result lost), or "interrupted" without it."""
        checkpoints = await store.history(session_id, branch=branch)
        conversation = cls(store, session_id, [cp.message for cp in checkpoints], branch=branch)
        unanswered = unanswered_tool_calls(conversation.messages)
        if not unanswered:
            return conversation
        if calls is None:
            results = close_unanswered(conversation.messages)
        else:
            marks = await calls.marks(session_id)
            results = [
                Message.tool_result(
                    call_id=c.id, name=c.name, text=lost_result(marks.get(c.id)), is_error=True
                )
                for c in unanswered
            ]
        for result in results:
            await conversation.append(result)
        return conversation

    @property
    def messages(self) -> list[Message]:
        """The history, oldest first. Do not mutate; use :meth:`append`."""
        return self._history

    async def reload(self) -> None:
        """Read the history again from the branch's head (after undo or redo moved it)."""
        stored = await self.store.history(self.session_id, branch=self.branch)
        self._history[:] = [cp.message for cp in stored]

    async def append(self, message: Message, events: EventSink | None = None) -> str:
        checkpoint = await self.store.append(self.session_id, message, branch=self.branch)
        self._history.append(message)
        self.appended += 1
        if events is not None:
            if message.role != "assistant":
                events.emit(MessageStarted(message=message, role=message.role))
            events.emit(MessageEnded(message=message, checkpoint_id=checkpoint.id))
        return checkpoint.id
