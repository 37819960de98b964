"""A conversation: one session's history in memory, written through to the store as it grows.

A new session is stored with its first message (:meth:`Conversation.new`), so opening Circle and
leaving stores nothing; until then its title and name wait in memory.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from circle.domain.call_marks import lost_result, lost_shown
from circle.domain.checkpoints import MAIN_BRANCH, Checkpoint
from circle.domain.messages import Message, Usage, close_unanswered, unanswered_tool_calls
from circle.domain.spend import answers_spent, spent_apart, stand_ins

from .events import MessageEnded, MessageStarted
from .ports.call_log import CallLog
from .ports.event_sink import EventSink
from .ports.session_store import SessionInfo, SessionState, SessionStore


@dataclass
class _Draft:
    """A new session not stored yet: what it is made with when its first message is stored."""

    info: SessionInfo


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
        self._draft: _Draft | None = None
        self.earlier = 0
        """Messages before :attr:`messages` not read yet (a long session opened by its tail)."""
        self._loading: asyncio.Future[None] | None = None
        self._on_loaded: list[Callable[[], Awaitable[None]]] = []
        self._unread_spent: list[Message] = []
        self.state = SessionState()
        """What the session was left at beyond its messages (see :meth:`keep_state`)."""

    @classmethod
    def new(
        cls, store: SessionStore, session_id: str, *, workspace: str, title: str | None = None
    ) -> Conversation:
        """A new session's conversation, stored (in ``workspace``) when its first message is."""
        conversation = cls(store, session_id, [])
        now = time.time()
        conversation._draft = _Draft(
            SessionInfo(id=session_id, workspace=workspace, title=title, created_at=now, updated_at=now)
        )
        return conversation

    @property
    def stored(self) -> bool:
        """The session is in the store (it has had a message, or was opened from there)."""
        return self._draft is None

    async def info(self) -> SessionInfo | None:
        """The session as the store lists it (as it will be, while not stored yet)."""
        if self._draft is not None:
            return self._draft.info
        return await self.store.get_session(self.session_id)

    async def set_title(self, title: str) -> None:
        if self._draft is not None:
            self._draft.info = replace(self._draft.info, title=title)
        else:
            await self.store.set_title(self.session_id, title)

    async def set_name(self, name: str | None) -> None:
        """Name the session for people (None clears it)."""
        if self._draft is not None:
            self._draft.info = replace(self._draft.info, name=name)
        else:
            await self.store.set_name(self.session_id, name)

    async def keep_state(self, state: SessionState) -> None:
        """Keep ``state`` for the session (in memory until its first message stores it)."""
        self.state = state
        if self._draft is None:
            await self.store.set_state(self.session_id, state)

    async def checkpoints(self) -> list[Checkpoint]:
        """Every checkpoint of the session, on every branch (none before its first message)."""
        return await self.store.checkpoints(self.session_id) if self._draft is None else []

    async def history(self) -> list[Checkpoint]:
        """The checkpoints from the root to the branch's head (none before the first message)."""
        return await self.store.history(self.session_id, branch=self.branch) if self._draft is None else []

    async def _store_session(self) -> None:
        if (draft := self._draft) is None:
            return
        info = draft.info
        await self.store.create_session(
            workspace=info.workspace, session_id=self.session_id, title=info.title
        )
        if info.name is not None:
            await self.store.set_name(self.session_id, info.name)
        if self.state != SessionState():
            await self.store.set_state(self.session_id, self.state)
        self._draft = None

    @classmethod
    async def open(
        cls,
        store: SessionStore,
        session_id: str,
        *,
        branch: str = MAIN_BRANCH,
        calls: CallLog | None = None,
        tail: int | None = None,
    ) -> Conversation:
        """Load a session; tool calls left without a result get a recorded result saying what is
        known of them from ``calls`` (not started, not run as its approval waited, still running,
        or run to the end with the result lost), or "interrupted" without it.

        With ``tail``, only the last ``tail`` messages are read (moved back to the person's message
        that began their turn): :attr:`earlier` counts the others, which :meth:`load` reads."""
        conversation = cls(store, session_id, [], branch=branch)
        conversation.state = await store.state(session_id)
        if tail is None:
            conversation._history = [cp.message for cp in await store.history(session_id, branch=branch)]
        else:
            await conversation._read_tail(tail)
        unanswered = unanswered_tool_calls(conversation.messages)
        if not unanswered:
            return conversation
        if calls is None:
            results = close_unanswered(conversation.messages)
        else:
            marks = await calls.marks(session_id)
            results = [
                Message.tool_result(
                    call_id=c.id,
                    name=c.name,
                    text=lost_result(marks.get(c.id)),
                    is_error=True,
                    shown=lost_shown(marks.get(c.id)),
                )
                for c in unanswered
            ]
        for result in results:
            await conversation.append(result)
        return conversation

    async def _read_tail(self, count: int) -> None:
        """The last ``count`` messages and those before them back to the person's message that
        began their turn (so the turn is whole: its calls, their results, its last answer)."""
        read = count
        while True:
            found = await self.store.tail(self.session_id, branch=self.branch, count=read)
            messages = [cp.message for cp in found.checkpoints]
            start = max(0, len(messages) - count)
            while start > 0 and messages[start].role != "user":
                start -= 1
            if not messages or messages[start].role == "user" or not found.earlier:
                break
            read *= 2
        self._history = messages[start:]
        self.earlier = found.earlier + start
        spent = dict(found.spent)
        for message in messages[:start]:  # read, but before the turn the tail begins with
            if message.role == "assistant" and message.usage is not None:
                spent[message.model] = spent.get(message.model, Usage()) + message.usage
        self._unread_spent = [
            Message(role="assistant", parts=(), model=model, usage=usage) for model, usage in spent.items()
        ]

    def unread_spending(self) -> list[Message]:
        """What the answers not read yet used, as one stand-in answer (no text: a model and its
        usage) for each model that wrote them, so the session's totals count them; none once read."""
        return list(self._unread_spent)

    async def spent_apart(self) -> list[Message]:
        """What the session paid for that its branch does not show (its other branches, turns
        undone, what its compactions summarized and their own calls), as one stand-in answer per
        model: with the branch's answers, all the session's calls used, which never goes down."""
        info = await self.info() if self.stored else None
        if info is None or info.message_count <= self.earlier + len(self.messages):
            return []  # every stored message is on the branch: nothing was spent apart from it
        shown = answers_spent([*self._unread_spent, *self.messages])
        return stand_ins(spent_apart(await self.store.spent(self.session_id), shown))

    @property
    def complete(self) -> bool:
        """Every message of the branch is in :attr:`messages` (none wait in :attr:`earlier`)."""
        return self.earlier == 0

    async def load(self) -> None:
        """Read the messages :meth:`open` left for later, once: a turn, a compaction and the
        session's totals need them all. Those already read and appended stay as they are."""
        if self.earlier:
            if self._loading is None:
                self._loading = asyncio.ensure_future(self._load_earlier())
            await asyncio.shield(self._loading)

    async def _load_earlier(self) -> None:
        try:
            while True:  # again if a message was appended meanwhile, so the list has it
                appended = self.appended
                checkpoints = await self.history()
                if self.appended == appended:
                    break
            await self._read(checkpoints)
        finally:
            self._loading = None

    async def _read(self, checkpoints: list[Checkpoint]) -> None:
        self._history[:] = [cp.message for cp in checkpoints]
        self.earlier = 0
        self._unread_spent = []
        settles, self._on_loaded = self._on_loaded, []
        for settle in settles:
            await settle()

    def on_loaded(self, settle: Callable[[], Awaitable[None]]) -> None:
        """Await ``settle`` once :meth:`load` has read the earlier messages (before it returns)."""
        self._on_loaded.append(settle)

    @property
    def messages(self) -> list[Message]:
        """The history, oldest first (its last messages only while :attr:`earlier` wait to be
        read: :meth:`load` reads them). Do not mutate; use :meth:`append`."""
        return self._history

    async def reload(self) -> None:
        """Read the history again from the branch's head (after undo or redo moved it), all of it."""
        await self._read(await self.history())

    async def append(self, message: Message, events: EventSink | None = None) -> str:
        await self._store_session()
        checkpoint = await self.store.append(self.session_id, message, branch=self.branch)
        self._history.append(message)
        self.appended += 1
        if events is not None:
            if message.role != "assistant":
                events.emit(MessageStarted(message=message, role=message.role))
            events.emit(MessageEnded(message=message, checkpoint_id=checkpoint.id))
        return checkpoint.id
