"""WorkspaceSnapshots: the digest of every file of a workspace, each content kept in the journal's blobs.

Taken before and after each command, so that what a command changed can be put back: the
snapshot keeps every file's content in the same content-addressed store the
:class:`~circle.application.ports.file_journal.FileJournal` reads from. Files whose size and
modification time did not change since the last snapshot are not read again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Absolute path -> content digest, for the files the snapshot covers.

    ``complete`` is False when the workspace was too large to snapshot (then nothing is compared).
    """

    files: Mapping[str, str] = field(default_factory=dict)
    complete: bool = True


class WorkspaceSnapshots(Protocol):
    async def snapshot(self, workspace: str) -> Snapshot:
        """The files below ``workspace`` now (version-control and cache folders left out)."""
        ...


def changed_paths(before: Snapshot, after: Snapshot) -> list[tuple[str, str | None, str | None]]:
    """``(path, before digest, after digest)`` for every file that differs, sorted; ``None`` is absent."""
    if not (before.complete and after.complete):
        return []
    paths = sorted(set(before.files) | set(after.files))
    return [
        (path, before.files.get(path), after.files.get(path))
        for path in paths
        if before.files.get(path) != after.files.get(path)
    ]


__all__ = ["Snapshot", "WorkspaceSnapshots", "changed_paths"]
