"""Syncing a store's WAL to disk on a thread of its own, right after each commit.

The store runs SQLite in WAL mode with ``synchronous=NORMAL``: a commit is written to the WAL
(in the OS's cache) before COMMIT returns, so it survives the process dying at any point; the
file is never left inconsistent, whatever stops. What NORMAL alone leaves open is an OS crash
or power cut rolling back the commits since the WAL was last synced (at a checkpoint). A
:class:`WalSyncer` closes most of that: each commit asks it to ``fdatasync`` the WAL, which it
does on its own thread :data:`GATHER_S` after the commit that asked (the commits in between are
synced with it: one sync a tool round, where there were three), so a commit costs the caller a
write, not a wait for the disk (1 ms on a quiet disk, hundreds on a busy one). Commits made
while a sync runs are covered by one more.

Durability by ``synchronous`` level, in WAL mode (README, "Reliability"):

- OFF: a process crash loses nothing committed; an OS crash or power cut can lose recent
  commits and may corrupt the file.
- NORMAL: the same for a process crash; an OS crash or power cut can roll back the commits
  since the last WAL sync, and the file stays whole. With the syncer: those of the last
  moments only (the last few milliseconds and the sync under way).
- FULL and EXTRA: every commit is synced before COMMIT returns, so it survives an OS crash
  or power cut too (where the disk honours flushes), at one disk wait per commit.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

Sync = Callable[[Path], None]
GATHER_S = 0.004
"""How long a sync waits after the commit that asked for it, so that the commits of one tool round
(the answer, the call's start, its result: about 3 ms) share one sync instead of three."""
_fdatasync: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)


def sync_file(path: Path) -> None:
    """Flush ``path``'s data to the disk; a file that is gone (the WAL of a closed store) is skipped."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        with contextlib.suppress(OSError):
            _fdatasync(fd)
    finally:
        os.close(fd)


class WalSyncer:
    """Syncs one WAL file whenever asked, on a daemon thread started on the first request.

    Args:
        wal: the ``-wal`` file.
        sync: what syncs it (:func:`sync_file`; tests pass one that records).
    """

    def __init__(self, wal: Path, *, sync: Sync = sync_file) -> None:
        self.wal = wal
        self._sync = sync
        self._wanted = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def request(self) -> None:
        """Ask for a sync of everything committed so far; returns at once."""
        self._wanted.set()
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name=f"circle-wal-sync {self.wal.name}", daemon=True
                    )
                    self._thread.start()

    def sync_now(self) -> None:
        """Sync the WAL on the calling thread, now (before a process leaves at once)."""
        self._sync(self.wal)

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            time.sleep(GATHER_S)  # the commits right behind this one are synced with it
            self._wanted.clear()  # a commit from now on asks again, and gets a sync after this one
            self._sync(self.wal)


_syncers: dict[tuple[Path, Sync], WalSyncer] = {}
_syncers_lock = threading.Lock()


def syncer_for(path: Path, *, sync: Sync = sync_file) -> WalSyncer:
    """The one syncer of the database ``path`` in this process (every store on the file shares it)."""
    key = (Path(f"{path}-wal"), sync)
    with _syncers_lock:
        found = _syncers.get(key)
        if found is None:
            found = _syncers[key] = WalSyncer(key[0], sync=sync)
        return found


def sync_all() -> None:
    """Sync every WAL of this process now, on the calling thread (``entrypoints/_exit_guard.py``)."""
    if not _syncers_lock.acquire(timeout=1):
        return
    try:
        found = list(_syncers.values())
    finally:
        _syncers_lock.release()
    for syncer in found:
        syncer.sync_now()


__all__ = ["Sync", "WalSyncer", "sync_all", "sync_file", "syncer_for"]
