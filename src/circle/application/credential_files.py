"""Credential files found by what a path is: its name, its real path, and the file behind it.

A name can be anything: a hard link to ``.env`` called ``notes.txt`` is the same file as ``.env``. So a
regular file with more than one link is compared by ``(device, inode)`` with the credential files
Circle knows: those named like one anywhere in the workspace (hidden and ignored ones included), those
in the home folder's known places (:data:`~circle.domain.credentials.HOME_CREDENTIAL_PLACES`) and
Circle's own in its data folder. A file with one link has no other name, so no search is made for it.

The search is bounded and kept for :data:`CACHE_SECONDS`. When it could not look everywhere (the
workspace is too large, a folder is unreadable), a file with several links is taken for a credential
file: what Circle cannot see, it refuses.
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Callable
from dataclasses import dataclass

from circle.application.ports.file_system import FileInfo, FileSystem
from circle.domain.credentials import DATA_CREDENTIAL_PLACES, HOME_CREDENTIAL_PLACES, is_credential_path

WORKSPACE_SCAN_LIMIT = 200_000
"""Entries of the workspace looked at, at most, for credential-named files."""
PLACE_SCAN_LIMIT = 10_000
"""Entries looked at, at most, in each known folder (``~/.ssh``, ``~/.gnupg``, ...)."""
CACHE_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class _Known:
    identities: frozenset[tuple[int, int]]
    complete: bool
    at: float


def _everything(path: str) -> bool:
    return True


class CredentialFiles:
    """Tells whether a path is a credential file, by name, by real path and by inode.

    Args:
        files: The file system the paths are on.
        workspace: The workspace, searched for credential-named files.
        home: The person's home folder (absolute), or None to leave it out.
        data_dir: Circle's data folder, or None.
        clock: Seconds, for how long a search is kept.
        workspace_limit: Entries of the workspace looked at, at most.
    """

    def __init__(
        self,
        files: FileSystem,
        *,
        workspace: str,
        home: str | None,
        data_dir: str | None,
        clock: Callable[[], float] = time.monotonic,
        workspace_limit: int = WORKSPACE_SCAN_LIMIT,
    ) -> None:
        self._files = files
        self._workspace = workspace
        self._home = home if home and home.startswith("/") else None
        self._data_dir = data_dir
        self._clock = clock
        self._workspace_limit = workspace_limit
        self._known: _Known | None = None
        self.searches = 0
        """How many times the known credential files were looked for (a search is kept a while)."""

    async def is_credential(self, path: str, *, info: FileInfo | None = None) -> bool:
        """Whether the absolute ``path`` is a credential file: as written, resolved, or by inode.

        ``info`` is the ``stat`` the caller holds the file to (and will read it with); without it the
        resolved path is stat'ed here.
        """
        if is_credential_path(path):
            return True
        resolved = await self._files.resolve(path)
        if is_credential_path(resolved):
            return True
        if info is None:
            info = await self._files.stat(resolved)
        return info is not None and await self.is_linked_credential(info)

    async def is_linked_credential(self, info: FileInfo) -> bool:
        """Whether the file ``info`` describes is a second name of a known credential file."""
        if info.kind != "file" or info.links <= 1:
            return False
        if not info.inode:  # the file system cannot tell which file it is
            return True
        known = await self._current()
        return info.identity in known.identities or not known.complete

    async def is_known(self, info: FileInfo) -> bool:
        """Whether ``info`` (a ``stat`` through symlinks) is one of the known credential files, by
        inode, whatever its link count: a symlink to one is stat'ed as the file itself."""
        if info.kind != "file" or not info.inode:
            return False
        return info.identity in (await self._current()).identities

    async def _current(self) -> _Known:
        now = self._clock()
        if self._known is None or now - self._known.at > CACHE_SECONDS:
            self._known = await self._search(now)
        return self._known

    async def _search(self, now: float) -> _Known:
        self.searches += 1
        found: set[tuple[int, int]] = set()
        scan = await self._files.scan(self._workspace, keep=is_credential_path, limit=self._workspace_limit)
        complete = scan.complete
        found.update(info.identity for info in scan.files)
        places = [posixpath.join(self._home, place) for place in HOME_CREDENTIAL_PLACES] if self._home else []
        if self._data_dir:
            places += [posixpath.join(self._data_dir, place) for place in DATA_CREDENTIAL_PLACES]
        for place in places:
            info = await self._files.stat(place)
            if info is None:
                continue
            if info.kind == "file":
                found.add(info.identity)
            elif info.kind == "dir":
                below = await self._files.scan(place, keep=_everything, limit=PLACE_SCAN_LIMIT)
                complete = complete and below.complete
                found.update(each.identity for each in below.files)
        return _Known(identities=frozenset(found), complete=complete, at=now)


__all__ = ["CACHE_SECONDS", "PLACE_SCAN_LIMIT", "WORKSPACE_SCAN_LIMIT", "CredentialFiles"]
