"""FileJournal: what each turn changed in the files, with receipts, and the contents to put back.

A turn's receipts say, per file, what it held before the turn's first change and after its last:
a content digest (:func:`content_digest`, sha256 in hex) or ``None`` when the file was absent. The
contents themselves are kept by digest in a content-addressed blob store, so a receipt is small and
an unchanged file costs nothing twice.

Turns are numbered 1, 2, ... per session in the order their first change was recorded; a turn that
changed nothing has no entry.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal, Protocol

ChangeSource = Literal["tool", "command"]


def content_digest(data: bytes) -> str:
    """The digest the journal keys contents by: sha256, in hex."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Receipt:
    """One file's change in a turn: its digest before and after, ``None`` meaning absent."""

    path: str
    before: str | None
    after: str | None
    source: ChangeSource = "tool"


@dataclass(frozen=True, slots=True)
class JournalTurn:
    """A turn that changed files, with its receipts in the order they were first recorded."""

    session_id: str
    turn_id: str
    number: int
    label: str
    created_at: float
    receipts: tuple[Receipt, ...]
    restored_at: float | None = None


class FileJournal(Protocol):
    """Receipts per (session, turn) and the blob store they point into.

    Errors are :class:`~circle.domain.errors.StorageError`.
    """

    async def put_blob(self, data: bytes) -> str:
        """Keep ``data`` (once per content) and return its digest."""
        ...

    async def get_blob(self, digest: str) -> bytes:
        """The content kept under ``digest``; StorageError when it is not there."""
        ...

    async def record(
        self, session_id: str, turn_id: str, receipt: Receipt, *, label: str = "", at: float = 0.0
    ) -> None:
        """Add a change to the turn (made on first use, with ``label`` and ``at``).

        A file changed again in the same turn keeps its first ``before`` and takes the new
        ``after``; one whose ``after`` comes back to its ``before`` leaves the turn.
        """
        ...

    async def turns(self, session_id: str) -> list[JournalTurn]:
        """The session's turns that changed files, newest first."""
        ...

    async def mark_restored(self, session_id: str, number: int, *, at: float | None) -> None:
        """Note that the turn's changes were put back at ``at``, or (None) done again by a redo."""
        ...

    async def aclose(self) -> None: ...


__all__ = ["ChangeSource", "FileJournal", "JournalTurn", "Receipt", "content_digest"]
