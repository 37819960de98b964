"""TurnJournal: what the tools of one session's current turn changed, written to the file journal.

The loop starts each turn with :meth:`TurnJournal.begin`; the file tools call :meth:`record` with a
file's bytes before and after their change; ``execute`` takes a snapshot of the workspace before the
command (:meth:`before_command`) and records every file that differs after it (:meth:`after_command`).

Journaling never stops the work: a failure to journal is logged, and the change goes ahead without
its receipt (a rewind of that turn then cannot put that file back).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from uuid import uuid4

from .ports.file_journal import ChangeSource, FileJournal, Receipt
from .ports.workspace_snapshots import Snapshot, WorkspaceSnapshots, changed_paths

log = logging.getLogger("circle.journal")
MAX_LABEL_CHARS = 80


class TurnJournal:
    """Records the current turn's file changes for one session.

    Args:
        journal: where the receipts and contents go.
        session_id: the session whose turns these are.
        workspace: the folder the command snapshots cover.
        snapshots: workspace snapshots around commands; None: commands' changes are not journaled.
        clock: seconds since the epoch, for a turn's time.
    """

    def __init__(
        self,
        journal: FileJournal,
        *,
        session_id: str,
        workspace: str,
        snapshots: WorkspaceSnapshots | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.journal = journal
        self.session_id = session_id
        self.workspace = workspace
        self.snapshots = snapshots
        self._clock = clock
        self.turn_id = uuid4().hex
        self.label = ""

    def begin(self, turn_id: str | None = None, *, label: str = "") -> None:
        """Start a turn: later changes are recorded under ``turn_id`` (a new id when None)."""
        self.turn_id = turn_id or uuid4().hex
        first_line = label.strip().splitlines()[0] if label.strip() else ""
        self.label = first_line[:MAX_LABEL_CHARS]

    async def record(self, path: str, before: bytes | None, after: bytes | None) -> None:
        """A file tool changed ``path`` from ``before`` to ``after`` (None: absent)."""
        if before == after:
            return
        try:
            old = None if before is None else await self.journal.put_blob(before)
            new = None if after is None else await self.journal.put_blob(after)
            await self._receipt(path, old, new, "tool")
        except Exception:
            log.warning("the change to %s was not journaled", path, exc_info=True)

    async def before_command(self) -> Snapshot | None:
        """The workspace as the command finds it (its files' contents kept); None without snapshots."""
        if self.snapshots is None:
            return None
        try:
            return await self.snapshots.snapshot(self.workspace)
        except Exception:
            log.warning("the workspace could not be snapshotted before a command", exc_info=True)
            return None

    async def after_command(self, before: Snapshot | None) -> None:
        """Record every file the command created, changed or deleted since ``before``."""
        if before is None or self.snapshots is None or not before.complete:
            return
        try:
            after = await self.snapshots.snapshot(self.workspace)
            for path, old, new in changed_paths(before, after):
                await self._receipt(path, old, new, "command")
        except Exception:
            log.warning("the changes of a command were not journaled", exc_info=True)

    async def _receipt(self, path: str, before: str | None, after: str | None, source: ChangeSource) -> None:
        await self.journal.record(
            self.session_id,
            self.turn_id,
            Receipt(path, before, after, source),
            label=self.label,
            at=self._clock(),
        )


__all__ = ["TurnJournal"]
