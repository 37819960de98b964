"""SessionStore: sessions and their checkpoint trees, committed message by message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from circle.domain.checkpoints import MAIN_BRANCH, Branch, Checkpoint
from circle.domain.messages import Message


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    workspace: str
    title: str | None
    created_at: float
    updated_at: float
    message_count: int = 0


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

    async def checkpoints(self, session_id: str) -> list[Checkpoint]: ...

    async def branches(self, session_id: str) -> list[Branch]: ...

    async def set_title(self, session_id: str, title: str) -> None: ...

    async def aclose(self) -> None: ...


class TrustList(Protocol):
    """The folders a person has trusted."""

    async def trust(self, folder: str) -> None: ...

    async def is_trusted(self, folder: str) -> bool: ...

    async def aclose(self) -> None: ...
