"""Rewind: a turn's file changes, previewed against the files as they are now, and put back.

A restore is checked: every file the turn changed must still be exactly as the turn left it (its
content's digest equal to the receipt's ``after``, or absent when the turn deleted it). If one is
not, nothing is touched and the conflicts are returned. Otherwise each file gets its content from
before the turn (a file the turn created is deleted, one it deleted comes back), all of them or
none: if a write fails on the way, the files already restored are put back as the turn left them.

Only the files in the turn's receipts are touched; a file the turn did not write is never read
for writing, whoever made it. Everything comes from the journal (circle.sqlite and the blob
store), so a rewind works in a new process after a restart. Folders a created file needed are
left in place, and a file's permission bits are not journaled.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from circle.domain.errors import StorageError

from .ports.file_journal import FileJournal, JournalTurn, Receipt, content_digest
from .ports.file_system import FileSystem

ChangeAction = Literal["created", "modified", "deleted"]


@dataclass(frozen=True, slots=True)
class Change:
    """What the turn did to ``path`` and whether the file is still as the turn left it."""

    path: str
    action: ChangeAction
    current_matches_after: bool
    source: str = "tool"
    note: str = ""
    """Why it does not match, when it does not."""


@dataclass(frozen=True, slots=True)
class RestoreOutcome:
    """A restore's result: the changes put back, or (when refused) the conflicts and nothing done."""

    turn: JournalTurn
    changes: tuple[Change, ...]
    restored: bool

    @property
    def conflicts(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if not c.current_matches_after)


def action_of(receipt: Receipt) -> ChangeAction:
    if receipt.before is None:
        return "created"
    if receipt.after is None:
        return "deleted"
    return "modified"


class Rewind:
    """Lists, previews and restores the journaled turns of a session, and does a rewound turn again."""

    def __init__(
        self, journal: FileJournal, files: FileSystem, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.journal = journal
        self.files = files
        self._clock = clock

    async def turns(self, session_id: str) -> list[JournalTurn]:
        """The session's turns that changed files, newest first."""
        return await self.journal.turns(session_id)

    async def turn(self, session_id: str, number: int | None = None) -> JournalTurn:
        """Turn ``number``, or the newest one not yet rewound. StorageError when there is none."""
        return (await self._find(session_id, number))[0]

    async def _find(self, session_id: str, number: int | None) -> tuple[JournalTurn, dict[str, int]]:
        """The turn, and for each path a later turn (not rewound) changed, the newest such turn."""
        turns = await self.journal.turns(session_id)
        found = self._pick(session_id, turns, number)
        later: dict[str, int] = {}
        for other in reversed(turns):  # oldest first, so the newest later turn is written last
            if other.number > found.number and other.restored_at is None:
                later.update({r.path: other.number for r in other.receipts})
        return found, later

    @staticmethod
    def _pick(session_id: str, turns: list[JournalTurn], number: int | None) -> JournalTurn:
        if number is None:
            found = next((t for t in turns if t.restored_at is None), None)
            if found is None:
                raise StorageError(f"session {session_id} has no turn that changed files to rewind")
            return found
        found = next((t for t in turns if t.number == number), None)
        if found is None:
            known = ", ".join(str(t.number) for t in turns) or "none"
            raise StorageError(
                f"session {session_id} has no turn {number} that changed files (turns: {known})"
            )
        return found

    async def preview(self, session_id: str, number: int | None = None) -> list[Change]:
        """Each change of the turn, with every file read again now."""
        turn, later = await self._find(session_id, number)
        return [await self._check(receipt, later) for receipt in turn.receipts]

    async def restore(self, session_id: str, number: int | None = None) -> RestoreOutcome:
        """Put back all of the turn's changes, or none when a file changed since (see the module doc).

        Raises:
            StorageError: a content is missing from the blob store (nothing touched), or a write
                failed (what was restored is put back; the message names any file that could not be).
        """
        turn, later = await self._find(session_id, number)
        changes = tuple([await self._check(receipt, later) for receipt in turn.receipts])
        if any(not c.current_matches_after for c in changes):
            return RestoreOutcome(turn, changes, restored=False)
        await self._switch(turn.receipts, back=True)
        await self.journal.mark_restored(session_id, turn.number, at=self._clock())
        return RestoreOutcome(turn, changes, restored=True)

    async def reapply(self, session_id: str, number: int) -> RestoreOutcome:
        """Do a rewound turn's changes again (redo): every file must still be as the rewind left
        it, that is as it was before the turn; otherwise nothing is touched and the conflicts are
        returned. ``current_matches_after`` then means "still as the rewind left it".

        Raises:
            StorageError: the turn is unknown or was not rewound, a content is missing, or a write
                failed (as :meth:`restore`).
        """
        turn = self._pick(session_id, await self.journal.turns(session_id), number)
        if turn.restored_at is None:
            raise StorageError(f"turn {number} was not rewound, so there is nothing to do again")
        changes = tuple([await self._check_before(receipt) for receipt in turn.receipts])
        if any(not c.current_matches_after for c in changes):
            return RestoreOutcome(turn, changes, restored=False)
        await self._switch(turn.receipts, back=False)
        await self.journal.mark_restored(session_id, turn.number, at=None)
        return RestoreOutcome(turn, changes, restored=True)

    async def _switch(self, receipts: tuple[Receipt, ...], *, back: bool) -> None:
        """Give each file its content from before the turn (``back``) or after it, all or none."""

        def wanted(receipt: Receipt) -> str | None:
            return receipt.before if back else receipt.after

        def present(receipt: Receipt) -> str | None:
            return receipt.after if back else receipt.before

        target = {r.path: await self.journal.get_blob(d) for r in receipts if (d := wanted(r)) is not None}
        try:
            now = {r.path: await self.files.read_bytes(r.path) for r in receipts if present(r) is not None}
        except OSError as exc:
            raise StorageError(
                f"cannot read {exc.filename}: {exc.strerror or exc}; nothing was restored"
            ) from exc
        done: list[Receipt] = []
        for receipt in receipts:
            try:
                await self._put(receipt.path, target.get(receipt.path))
            except OSError as exc:
                left = await self._undo(done, now)
                tail = f"; these could not be put back: {', '.join(left)}" if left else ""
                raise StorageError(
                    f"cannot restore {receipt.path}: {exc.strerror or exc}; nothing was restored{tail}"
                ) from exc
            done.append(receipt)

    async def _digest_now(self, path: str) -> str | None:
        """The file's content digest now: None when absent, "(not a file)" for a folder. OSError
        when it cannot be read."""
        info = await self.files.stat(path)
        if info is not None and info.kind != "file":
            return "(not a file)"
        return None if info is None else content_digest(await self.files.read_bytes(path))

    async def _check_before(self, receipt: Receipt) -> Change:
        """Whether the file is as it was before the turn (as a rewind left it)."""
        action = action_of(receipt)
        try:
            current = await self._digest_now(receipt.path)
        except OSError as exc:
            return Change(
                receipt.path, action, False, receipt.source, f"cannot be read: {exc.strerror or exc}"
            )
        if current == receipt.before:
            return Change(receipt.path, action, True, receipt.source)
        return Change(receipt.path, action, False, receipt.source, "was changed after the rewind")

    async def _check(self, receipt: Receipt, later: dict[str, int]) -> Change:
        action = action_of(receipt)
        try:
            current = await self._digest_now(receipt.path)
        except OSError as exc:
            return Change(
                receipt.path, action, False, receipt.source, f"cannot be read: {exc.strerror or exc}"
            )
        if current == receipt.after:
            return Change(receipt.path, action, True, receipt.source)
        if receipt.after is None:
            note = "was made again after the turn deleted it"
        elif current is None:
            note = "was deleted after the turn"
        else:
            note = "was changed after the turn"
        if receipt.path in later:
            note = f"was changed again by turn {later[receipt.path]}: rewind the later turns first"
        return Change(receipt.path, action, False, receipt.source, note)

    async def _put(self, path: str, data: bytes | None) -> None:
        if data is None:
            await self.files.delete(path)
        else:
            await self.files.write_bytes(path, data)

    async def _undo(self, done: list[Receipt], now: dict[str, bytes]) -> list[str]:
        """Put the restored files back as the turn left them; the paths that could not be."""
        left = []
        for receipt in reversed(done):
            try:
                await self._put(receipt.path, now.get(receipt.path))
            except OSError:
                left.append(receipt.path)
        return left


__all__ = ["Change", "ChangeAction", "RestoreOutcome", "Rewind", "action_of"]
