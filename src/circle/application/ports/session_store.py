"""SessionStore: sessions and their checkpoint trees, committed message by message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from circle.domain.checkpoints import MAIN_BRANCH, Branch, Checkpoint, Label
from circle.domain.messages import Message, Usage


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    workspace: str
    title: str | None
    created_at: float
    updated_at: float
    message_count: int = 0
    name: str | None = None
    """What the person named it (``--name``); None until named."""
    forked_from: str | None = None
    """The session this one was forked from, if it was."""
    forked_at: str | None = None
    """The checkpoint of ``forked_from`` the fork was taken at."""
    size_bytes: int = 0
    """The stored messages' size: the sum of their JSON lengths in bytes."""


@dataclass(frozen=True, slots=True)
class HistoryTail:
    """The last checkpoints of a branch's history, and how many come before them (not read)."""

    checkpoints: tuple[Checkpoint, ...]
    """Oldest first, ending at the branch's head."""
    earlier: int
    """The checkpoints on the path from the root that come before :attr:`checkpoints`."""
    spent: tuple[tuple[str | None, Usage], ...] = ()
    """What the answers among those earlier ones used, summed by the model that wrote them (None:
    answers that name none), so a session's totals are known before its messages are read."""


@dataclass(frozen=True, slots=True)
class SessionState:
    """What a session was left at that its messages do not say (kept apart from them)."""

    thinking: str | None = None
    """The thinking level last chosen in it, ``"off"`` for none; None when none was kept (a session
    stored by an older Circle: its answers' levels say it)."""
    estimated: int = 0
    """The output tokens of its answers that no endpoint counted, guessed (a stopped answer's)."""


class SessionStore(Protocol):
    """Every ``append`` is committed before it returns; stored messages are never rewritten.

    Errors are :class:`~circle.domain.errors.StorageError`.
    """

    async def create_session(
        self, *, workspace: str, session_id: str | None = None, title: str | None = None
    ) -> SessionInfo: ...

    async def get_session(self, session_id: str) -> SessionInfo | None: ...

    async def list_sessions(self, *, workspace: str | None = None, limit: int = 50) -> list[SessionInfo]: ...

    async def append(self, session_id: str, message: Message, *, branch: str = MAIN_BRANCH) -> Checkpoint:
        """Store ``message`` as the child of the branch's head and move the head to it."""
        ...

    async def history(self, session_id: str, *, branch: str = MAIN_BRANCH) -> list[Checkpoint]:
        """The checkpoints from the root to the branch's head, oldest first."""
        ...

    async def tail(self, session_id: str, *, branch: str = MAIN_BRANCH, count: int) -> HistoryTail:
        """The last ``count`` checkpoints of :meth:`history`, without reading the ones before them
        (a long session opens with what its screen shows; the rest is read when needed).

        Raises:
            StorageError: for an unknown session or a broken branch.
        """
        ...

    async def checkpoints(self, session_id: str) -> list[Checkpoint]: ...

    async def spent(self, session_id: str) -> tuple[tuple[str | None, Usage], ...]:
        """What every call the session stored used, summed by model (see
        :func:`circle.domain.spend.session_spent`): on all its branches, each answer once (not a
        compaction's copies), with its compactions' own calls; its messages are not parsed."""
        ...

    async def branches(self, session_id: str) -> list[Branch]: ...

    async def create_branch(self, session_id: str, name: str, *, head_id: str | None) -> Branch:
        """A new branch of the session whose head is ``head_id`` (where it goes on from)."""
        ...

    async def move_branch(self, session_id: str, name: str, *, head_id: str | None) -> Branch:
        """Move an existing branch's head to ``head_id``, one of the session's checkpoints, or None
        (before the first message); undo and redo do it, and no message is changed.

        Raises:
            StorageError: for an unknown branch or checkpoint.
        """
        ...

    async def add_label(self, checkpoint_id: str, text: str) -> Label:
        """Name a checkpoint for people (again is a no-op). Raises StorageError for an unknown one."""
        ...

    async def labels(self, session_id: str) -> list[Label]:
        """The labels of the session's checkpoints, in checkpoint order, then by text."""
        ...

    async def set_title(self, session_id: str, title: str) -> None: ...

    async def set_name(self, session_id: str, name: str | None) -> None:
        """Name the session for people (None clears the name)."""
        ...

    async def state(self, session_id: str) -> SessionState:
        """What :meth:`set_state` kept for the session (the default for none)."""
        ...

    async def set_state(self, session_id: str, state: SessionState) -> None:
        """Keep ``state`` for the session. Raises StorageError for an unknown session."""
        ...

    async def fork(
        self,
        session_id: str,
        *,
        at_checkpoint: str | None,
        new_session_id: str | None = None,
        title: str | None = None,
    ) -> SessionInfo:
        """A new session (same workspace) whose history is the path to ``at_checkpoint``.

        The path's messages are copied as new checkpoints of the new session (with their labels),
        and the thinking level kept for the source (:meth:`state`) is kept for it too (not the
        tokens guessed: the source's answers used them); the source is left alone.
        ``at_checkpoint`` None forks at the main branch's head.
        Raises StorageError for an unknown session, a checkpoint not in it, or a taken id.
        """
        ...

    async def delete_session(self, session_id: str) -> None:
        """Remove the session and all its rows: the one deletion the store allows."""
        ...

    async def aclose(self) -> None: ...


class TrustList(Protocol):
    """The folders a person has trusted."""

    async def trust(self, folder: str) -> None: ...

    async def is_trusted(self, folder: str) -> bool: ...

    async def aclose(self) -> None: ...
