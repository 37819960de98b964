"""Fakes of the file journal and the workspace snapshots, over dictionaries and an ``InMemoryFileSystem``.

They follow the contract of ``SqliteFileJournal`` and ``LocalWorkspaceSnapshots``
(``tests/contract/test_file_journal.py`` holds both to it).
"""

from __future__ import annotations

import posixpath
from dataclasses import replace

from circle.application.ports.file_journal import JournalTurn, Receipt, content_digest
from circle.application.ports.workspace_snapshots import Snapshot
from circle.domain.errors import StorageError

from .local import InMemoryFileSystem

SNAPSHOT_SKIPPED = frozenset({".git", "node_modules", ".venv", "__pycache__"})


class InMemoryFileJournal:
    """The ``FileJournal`` port in memory.

    Attributes:
        blobs: Digest -> content.
        recorded: Every receipt recorded, in order, as ``(session_id, turn_id, receipt)``.
        fail_blobs: When set, ``put_blob`` raises StorageError (a full disk).
    """

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.recorded: list[tuple[str, str, Receipt]] = []
        self.fail_blobs = False
        self._turns: dict[str, list[JournalTurn]] = {}

    async def put_blob(self, data: bytes) -> str:
        if self.fail_blobs:
            raise StorageError("cannot keep a file's content: no space left")
        digest = content_digest(data)
        self.blobs[digest] = bytes(data)
        return digest

    async def get_blob(self, digest: str) -> bytes:
        if digest not in self.blobs:
            raise StorageError(f"the content {digest[:12]} is missing")
        return self.blobs[digest]

    async def record(
        self, session_id: str, turn_id: str, receipt: Receipt, *, label: str = "", at: float = 0.0
    ) -> None:
        self.recorded.append((session_id, turn_id, receipt))
        turns = self._turns.setdefault(session_id, [])
        index = next((i for i, t in enumerate(turns) if t.turn_id == turn_id), None)
        if index is None:
            turns.append(JournalTurn(session_id, turn_id, len(turns) + 1, label, at, ()))
            index = len(turns) - 1
        turn = turns[index]
        receipts = list(turn.receipts)
        old = next((i for i, r in enumerate(receipts) if r.path == receipt.path), None)
        if old is None:
            if receipt.before != receipt.after:
                receipts.append(receipt)
        elif receipts[old].before == receipt.after:
            del receipts[old]
        else:
            receipts[old] = replace(receipts[old], after=receipt.after)
        turns[index] = replace(turn, receipts=tuple(receipts))

    async def turns(self, session_id: str) -> list[JournalTurn]:
        return [t for t in reversed(self._turns.get(session_id, [])) if t.receipts]

    async def mark_restored(self, session_id: str, number: int, *, at: float | None) -> None:
        turns = self._turns.get(session_id, [])
        for i, turn in enumerate(turns):
            if turn.number == number:
                turns[i] = replace(turn, restored_at=at)

    async def aclose(self) -> None:
        return None


class InMemoryWorkspaceSnapshots:
    """The ``WorkspaceSnapshots`` port over an ``InMemoryFileSystem``, keeping contents in a journal's blobs.

    Attributes:
        taken: The workspaces snapshotted, in order.
    """

    def __init__(self, files: InMemoryFileSystem, journal: InMemoryFileJournal) -> None:
        self.files = files
        self.journal = journal
        self.taken: list[str] = []

    async def snapshot(self, workspace: str) -> Snapshot:
        self.taken.append(workspace)
        prefix = posixpath.normpath(workspace).rstrip("/") + "/"
        found: dict[str, str] = {}
        for path, data in self.files.files.items():
            if not path.startswith(prefix):
                continue
            if any(part in SNAPSHOT_SKIPPED for part in path[len(prefix) :].split("/")[:-1]):
                continue
            found[path] = await self.journal.put_blob(data)
        return Snapshot(found)


__all__ = ["InMemoryFileJournal", "InMemoryWorkspaceSnapshots"]
