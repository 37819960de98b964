"""CompactionStore: a compaction committed as one transaction, and the records that link it back.

A compaction never rewrites a stored message. It adds a new chain to the session tree: the summary
checkpoint (a new root), then copies of the messages put back (pinned) and kept, and moves the
branch head to the chain's end. The record links the summary to the checkpoints it replaced,
which stay in the store: the branch's old head (``previous_head_id``) still opens the full path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from circle.domain.checkpoints import MAIN_BRANCH, Checkpoint
from circle.domain.messages import Message


@dataclass(frozen=True, slots=True)
class CompactionRecord:
    """One committed compaction.

    Attributes:
        summary_checkpoint_id: the summary's checkpoint, the root of the branch's new chain.
        replaced_ids: the checkpoints the summary stands for, oldest first.
        previous_head_id: the branch's head before; its path is the conversation as it was.
        history_file: where the full text of what was summarized was saved, if it was.
    """

    id: str
    session_id: str
    branch: str
    summary_checkpoint_id: str
    replaced_ids: tuple[str, ...]
    previous_head_id: str | None
    history_file: str | None
    created_at: float


class CompactionStore(Protocol):
    """Errors are :class:`~circle.domain.errors.StorageError`; a failed commit changes nothing."""

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
        """In one transaction: the summary as a new root, ``carried`` after it, the branch head
        moved to the last one, and the record. Returns the record and the new chain, oldest first.

        Raises:
            StorageError: no such session, or the branch's head is no longer ``previous_head_id``
                (something was appended meanwhile).
        """
        ...

    async def compactions(self, session_id: str) -> list[CompactionRecord]:
        """The session's compactions, oldest first."""
        ...

    async def aclose(self) -> None: ...


__all__ = ["CompactionRecord", "CompactionStore"]
