"""`circle rewind`: list a session's turns that changed files, preview one, and put its changes back.

Without ``--yes`` the preview is shown and the person is asked on the terminal; where nobody can
answer (stdin is not a terminal) the preview is all that happens, and the exit code is 1.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from circle.adapters._shared.settings_files import data_dir
from circle.application.ports.file_journal import JournalTurn
from circle.application.rewind import Change, Rewind, action_of
from circle.domain.errors import StorageError
from circle.domain.workspace import relative_display

EXIT_OK, EXIT_FAILED = 0, 1
WHAT_REWIND_DOES = {
    "modified": "is put back as it was before the turn",
    "created": "is deleted (the turn created it)",
    "deleted": "comes back (the turn deleted it)",
}


@dataclass
class RewindRequest:
    folder: Path
    session: str | None = None
    list_turns: bool = False
    turn: int | None = None
    yes: bool = False


async def run_rewind(request: RewindRequest, *, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    """Do what ``request`` asks; the exit code. Errors are CircleError, reported by the caller."""
    from circle.adapters.local.files import LocalFileSystem
    from circle.adapters.storage.file_journal import SqliteFileJournal
    from circle.adapters.storage.sqlite_store import SqliteSessionStore

    data = data_dir(os.environ)
    path = data / "circle.sqlite"
    if not path.exists():
        err.write("circle: no sessions yet, so nothing to rewind\n")
        return EXIT_FAILED
    workspace = str(request.folder.resolve())
    session_id = request.session
    if session_id is None:
        store = SqliteSessionStore(path)
        try:
            recent = await store.list_sessions(workspace=workspace, limit=1)
        finally:
            await store.aclose()
        if not recent:
            raise StorageError(
                f"no session in {workspace}, so nothing to rewind: pass --session ID "
                "(`circle sessions` lists them)"
            )
        session_id = recent[0].id
    journal = SqliteFileJournal(path, blobs=data / "blobs")
    try:
        rewind = Rewind(journal, LocalFileSystem())
        if request.list_turns:
            return await _list(rewind, session_id, workspace, out)
        return await _rewind(rewind, session_id, workspace, request, out=out, err=err, stdin=stdin)
    finally:
        await journal.aclose()


async def _list(rewind: Rewind, session_id: str, workspace: str, out: TextIO) -> int:
    turns = await rewind.turns(session_id)
    if not turns:
        out.write(f"session {session_id} has no turn that changed files\n")
        return EXIT_OK
    out.write(f"session {session_id}, newest turn first:\n")
    for turn in turns:
        out.write(_turn_line(turn) + "\n")
        for receipt in turn.receipts:
            by = "  (by a command)" if receipt.source == "command" else ""
            out.write(f"    {action_of(receipt):<9} {_show(workspace, receipt.path)}{by}\n")
    return EXIT_OK


async def _rewind(
    rewind: Rewind,
    session_id: str,
    workspace: str,
    request: RewindRequest,
    *,
    out: TextIO,
    err: TextIO,
    stdin: TextIO | None,
) -> int:
    turn = await rewind.turn(session_id, request.turn)
    changes = await rewind.preview(session_id, turn.number)
    out.write(f"{_turn_line(turn)}\n")
    for change in changes:
        out.write(f"  {_show(workspace, change.path)} {WHAT_REWIND_DOES[change.action]}\n")
    conflicts = [c for c in changes if not c.current_matches_after]
    if conflicts:
        return _refused(turn, conflicts, workspace, err)
    if not request.yes:
        source = stdin or sys.stdin
        if source is None or not source.isatty():
            err.write("circle: not rewound: pass --yes to restore without asking\n")
            return EXIT_FAILED
        out.write(f"Rewind turn {turn.number}? [y/N] ")
        out.flush()
        if source.readline().strip().lower() not in ("y", "yes"):
            out.write("not rewound\n")
            return EXIT_FAILED
    outcome = await rewind.restore(session_id, turn.number)
    if not outcome.restored:
        return _refused(turn, list(outcome.conflicts), workspace, err)
    count = len(outcome.changes)
    out.write(f"rewound turn {turn.number}: {count} file{'s' if count != 1 else ''} put back\n")
    return EXIT_OK


def _refused(turn: JournalTurn, conflicts: list[Change], workspace: str, err: TextIO) -> int:
    many = len(conflicts) != 1
    err.write(
        f"circle: cannot rewind turn {turn.number}: {len(conflicts)} file{'s' if many else ''}"
        f" changed since; nothing was restored:\n"
    )
    for change in conflicts:
        err.write(f"  {_show(workspace, change.path)} {change.note}\n")
    return EXIT_FAILED


def _turn_line(turn: JournalTurn) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(turn.created_at))
    rewound = "  (rewound)" if turn.restored_at is not None else ""
    label = f"  {turn.label!r}" if turn.label else ""
    return f"turn {turn.number}  {when}{label}{rewound}"


def _show(workspace: str, path: str) -> str:
    return relative_display(workspace, path)


__all__ = ["RewindRequest", "run_rewind"]
