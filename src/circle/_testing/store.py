"""InMemorySessionStore and InMemoryTrustList: the storage ports in dicts, for tests.

Same semantics and errors as the SQLite adapter (the contract suite runs both), with the state
in plain attributes a test can assert on: ``sessions``, ``stored``, ``heads``, ``stored_labels``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from uuid import uuid4

from circle.application.ports.session_store import HistoryTail, SessionInfo, SessionState
from circle.domain.checkpoints import MAIN_BRANCH, Branch, Checkpoint, Label, path_to
from circle.domain.errors import StorageError
from circle.domain.messages import Message, Usage
from circle.domain.spend import session_spent
from circle.domain.workspace import is_inside


class InMemorySessionStore:
    """A SessionStore in memory.

    Attributes:
        sessions: session id -> info (``message_count`` kept current).
        stored: checkpoint id -> checkpoint, every session, in the order they were appended.
        heads: (session id, branch name) -> head checkpoint id.
        stored_labels: every label, in the order they were added.
        closed: True after :meth:`aclose`; later calls raise StorageError.
        tails_read: (session id, branch, count) of each :meth:`tail` asked for.
        states: session id -> what :meth:`set_state` kept.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.sessions: dict[str, SessionInfo] = {}
        self.stored: dict[str, Checkpoint] = {}
        self.heads: dict[tuple[str, str], str | None] = {}
        self.stored_labels: list[Label] = []
        self.closed = False
        self.tails_read: list[tuple[str, str, int]] = []
        self.states: dict[str, SessionState] = {}

    def _open(self) -> None:
        if self.closed:
            raise StorageError("the session store is closed")

    def _session(self, session_id: str) -> SessionInfo:
        self._open()
        info = self.sessions.get(session_id)
        if info is None:
            raise StorageError(f"no session {session_id}")
        return info

    async def create_session(
        self, *, workspace: str, session_id: str | None = None, title: str | None = None
    ) -> SessionInfo:
        self._open()
        session_id = session_id or uuid4().hex
        if session_id in self.sessions:
            raise StorageError(f"session {session_id} already exists")
        now = self._clock()
        info = SessionInfo(id=session_id, workspace=workspace, title=title, created_at=now, updated_at=now)
        self.sessions[session_id] = info
        return info

    async def get_session(self, session_id: str) -> SessionInfo | None:
        self._open()
        return self.sessions.get(session_id)

    async def list_sessions(self, *, workspace: str | None = None, limit: int = 50) -> list[SessionInfo]:
        self._open()
        found = [s for s in self.sessions.values() if workspace is None or s.workspace == workspace]
        found.sort(key=lambda s: (s.updated_at, s.created_at, s.id), reverse=True)
        return found[:limit]

    async def append(self, session_id: str, message: Message, *, branch: str = MAIN_BRANCH) -> Checkpoint:
        info = self._session(session_id)
        now = self._clock()
        seq = max((cp.seq for cp in self.stored.values() if cp.session_id == session_id), default=0) + 1
        checkpoint = Checkpoint(
            id=uuid4().hex,
            session_id=session_id,
            parent_id=self.heads.get((session_id, branch)),
            seq=seq,
            message=message,
            created_at=now,
        )
        self.stored[checkpoint.id] = checkpoint
        self.heads[(session_id, branch)] = checkpoint.id
        self.sessions[session_id] = dataclasses.replace(
            info,
            updated_at=now,
            message_count=info.message_count + 1,
            size_bytes=info.size_bytes + len(message.model_dump_json().encode()),
        )
        return checkpoint

    async def history(self, session_id: str, *, branch: str = MAIN_BRANCH) -> list[Checkpoint]:
        self._session(session_id)
        return path_to(self.stored, self.heads.get((session_id, branch)))

    async def tail(self, session_id: str, *, branch: str = MAIN_BRANCH, count: int) -> HistoryTail:
        history = await self.history(session_id, branch=branch)
        start = max(0, len(history) - max(0, count))
        self.tails_read.append((session_id, branch, count))
        spent: dict[str | None, Usage] = {}
        for cp in history[:start]:
            if cp.message.role == "assistant" and cp.message.usage is not None:
                spent[cp.message.model] = spent.get(cp.message.model, Usage()) + cp.message.usage
        by_model = tuple(sorted(spent.items(), key=lambda item: (item[0] is not None, item[0] or "")))
        return HistoryTail(checkpoints=tuple(history[start:]), earlier=start, spent=by_model)

    async def checkpoints(self, session_id: str) -> list[Checkpoint]:
        self._session(session_id)
        return sorted(
            (cp for cp in self.stored.values() if cp.session_id == session_id), key=lambda cp: cp.seq
        )

    async def spent(self, session_id: str) -> tuple[tuple[str | None, Usage], ...]:
        return session_spent(await self.checkpoints(session_id))

    async def branches(self, session_id: str) -> list[Branch]:
        self._session(session_id)
        return [
            Branch(session_id=session_id, name=name, head_id=head_id)
            for (owner, name), head_id in sorted(self.heads.items())
            if owner == session_id
        ]

    async def create_branch(self, session_id: str, name: str, *, head_id: str | None) -> Branch:
        self._session(session_id)
        if (session_id, name) in self.heads:
            raise StorageError(f"branch {name!r} of session {session_id} already exists")
        if head_id is not None and getattr(self.stored.get(head_id), "session_id", None) != session_id:
            raise StorageError(f"no checkpoint {head_id} in session {session_id}")
        self.heads[(session_id, name)] = head_id
        return Branch(session_id=session_id, name=name, head_id=head_id)

    async def move_branch(self, session_id: str, name: str, *, head_id: str | None) -> Branch:
        self._session(session_id)
        if (session_id, name) not in self.heads:
            raise StorageError(f"no branch {name!r} in session {session_id}")
        if head_id is not None and getattr(self.stored.get(head_id), "session_id", None) != session_id:
            raise StorageError(f"no checkpoint {head_id} in session {session_id}")
        self.heads[(session_id, name)] = head_id
        return Branch(session_id=session_id, name=name, head_id=head_id)

    async def add_label(self, checkpoint_id: str, text: str) -> Label:
        self._open()
        if checkpoint_id not in self.stored:
            raise StorageError(f"no checkpoint {checkpoint_id}")
        label = Label(checkpoint_id=checkpoint_id, text=text)
        if label not in self.stored_labels:
            self.stored_labels.append(label)
        return label

    async def labels(self, session_id: str) -> list[Label]:
        self._session(session_id)
        mine = [
            label for label in self.stored_labels if self.stored[label.checkpoint_id].session_id == session_id
        ]
        return sorted(mine, key=lambda label: (self.stored[label.checkpoint_id].seq, label.text))

    async def set_title(self, session_id: str, title: str) -> None:
        info = self._session(session_id)
        self.sessions[session_id] = dataclasses.replace(info, title=title)

    async def set_name(self, session_id: str, name: str | None) -> None:
        info = self._session(session_id)
        self.sessions[session_id] = dataclasses.replace(info, name=name)

    async def state(self, session_id: str) -> SessionState:
        self._open()
        return self.states.get(session_id, SessionState())

    async def set_state(self, session_id: str, state: SessionState) -> None:
        self._session(session_id)
        self.states[session_id] = state

    async def fork(
        self,
        session_id: str,
        *,
        at_checkpoint: str | None,
        new_session_id: str | None = None,
        title: str | None = None,
    ) -> SessionInfo:
        source = self._session(session_id)
        new_id = new_session_id or uuid4().hex
        if new_id in self.sessions:
            raise StorageError(f"session {new_id} already exists")
        at = self.heads.get((session_id, MAIN_BRANCH)) if at_checkpoint is None else at_checkpoint
        if at is not None and getattr(self.stored.get(at), "session_id", None) != session_id:
            raise StorageError(f"no checkpoint {at} in session {session_id}")
        path = path_to(self.stored, at)
        now = self._clock()
        copies: dict[str, str] = {}
        parent_id: str | None = None
        for seq, original in enumerate(path, start=1):
            copy = dataclasses.replace(
                original, id=uuid4().hex, session_id=new_id, parent_id=parent_id, seq=seq
            )
            self.stored[copy.id] = copy
            copies[original.id] = parent_id = copy.id
        if parent_id is not None:
            self.heads[(new_id, MAIN_BRANCH)] = parent_id
        for label in list(self.stored_labels):
            if label.checkpoint_id in copies:
                self.stored_labels.append(Label(checkpoint_id=copies[label.checkpoint_id], text=label.text))
        if (thinking := self.states.get(session_id, SessionState()).thinking) is not None:
            self.states[new_id] = SessionState(thinking=thinking)
        info = SessionInfo(
            id=new_id,
            workspace=source.workspace,
            title=title if title is not None else source.title,
            created_at=now,
            updated_at=now,
            message_count=len(path),
            forked_from=session_id,
            forked_at=at,
            size_bytes=sum(len(cp.message.model_dump_json().encode()) for cp in path),
        )
        self.sessions[new_id] = info
        return info

    async def delete_session(self, session_id: str) -> None:
        self._session(session_id)
        mine = {cp.id for cp in self.stored.values() if cp.session_id == session_id}
        self.stored_labels = [label for label in self.stored_labels if label.checkpoint_id not in mine]
        self.heads = {key: head for key, head in self.heads.items() if key[0] != session_id}
        self.stored = {cp_id: cp for cp_id, cp in self.stored.items() if cp_id not in mine}
        del self.sessions[session_id]
        self.states.pop(session_id, None)

    async def aclose(self) -> None:
        self.closed = True


class InMemoryTrustList:
    """A TrustList in memory.

    Attributes:
        folders: resolved folder path -> when it was trusted.
        closed: True after :meth:`aclose`; later calls raise StorageError.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.folders: dict[str, float] = {}
        self.closed = False

    def _open(self) -> None:
        if self.closed:
            raise StorageError("the trust list is closed")

    async def trust(self, folder: str) -> None:
        self._open()
        self.folders.setdefault(str(Path(folder).expanduser().resolve()), self._clock())

    async def is_trusted(self, folder: str) -> bool:
        self._open()
        resolved = str(Path(folder).expanduser().resolve())
        return any(is_inside(trusted, resolved) for trusted in self.folders)

    async def aclose(self) -> None:
        self.closed = True


__all__ = ["InMemorySessionStore", "InMemoryTrustList"]
