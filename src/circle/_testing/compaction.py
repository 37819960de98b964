"""InMemoryCompactionStore: the CompactionStore port over an :class:`InMemorySessionStore`.

It writes the new chain into the session store's dicts, all at once or not at all, and keeps its
records in ``records``. ``fail_after`` makes a commit raise after that many checkpoints were
staged, as a kill part-way would, so tests can check that a failed compaction changes nothing.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from uuid import uuid4

from circle.application.ports.compaction_store import CompactionRecord
from circle.domain.checkpoints import MAIN_BRANCH, Checkpoint
from circle.domain.errors import StorageError
from circle.domain.messages import Message

from .store import InMemorySessionStore


class InMemoryCompactionStore:
    """A CompactionStore in memory.

    Attributes:
        sessions: the session store whose trees the compactions change.
        records: every committed compaction, in order.
        fail_after: raise StorageError after staging this many checkpoints (None: never).
        commits: how many commits were attempted.
    """

    def __init__(self, sessions: InMemorySessionStore, *, clock: Callable[[], float] = time.time) -> None:
        self.sessions = sessions
        self.records: list[CompactionRecord] = []
        self.fail_after: int | None = None
        self.commits = 0
        self._clock = clock

    async def commit(
        self,
        session_id: str,
        *,
        summary: Message,
        carried: Sequence[Message],
        replaced_ids: Sequence[str],
        previous_head_id: str | None,
        history_file: str | None = None,
        branch: str = MAIN_BRANCH,
    ) -> tuple[CompactionRecord, list[Checkpoint]]:
        self.commits += 1
        store = self.sessions
        info = store.sessions.get(session_id)
        if info is None or store.closed:
            raise StorageError(f"no session {session_id}")
        if store.heads.get((session_id, branch)) != previous_head_id:
            raise StorageError(f"branch {branch!r} of session {session_id} moved during the compaction")
        now = self._clock()
        seq = max((cp.seq for cp in store.stored.values() if cp.session_id == session_id), default=0)
        staged: list[Checkpoint] = []
        parent: str | None = None
        for message in (summary, *carried):
            if self.fail_after is not None and len(staged) >= self.fail_after:
                raise StorageError("the compaction was interrupted (fail_after)")
            seq += 1
            checkpoint = Checkpoint(
                id=uuid4().hex,
                session_id=session_id,
                parent_id=parent,
                seq=seq,
                message=message,
                created_at=now,
            )
            staged.append(checkpoint)
            parent = checkpoint.id
        record = CompactionRecord(
            id=uuid4().hex,
            session_id=session_id,
            branch=branch,
            summary_checkpoint_id=staged[0].id,
            replaced_ids=tuple(replaced_ids),
            previous_head_id=previous_head_id,
            history_file=history_file,
            created_at=now,
        )
        for checkpoint in staged:
            store.stored[checkpoint.id] = checkpoint
        store.heads[(session_id, branch)] = staged[-1].id
        store.sessions[session_id] = dataclasses.replace(
            info, updated_at=now, message_count=info.message_count + len(staged)
        )
        self.records.append(record)
        return record, staged

    async def compactions(self, session_id: str) -> list[CompactionRecord]:
        return [r for r in self.records if r.session_id == session_id]

    async def aclose(self) -> None:
        pass


__all__ = ["InMemoryCompactionStore"]
