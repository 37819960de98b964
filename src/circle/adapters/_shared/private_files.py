"""The data folder and the files Circle keeps in it are the person's alone: 0700 and 0600.

Every adapter that creates the data folder or a file in it goes through :func:`private_folder`
and :func:`private_file`, so the first writer (the session store, the setup, the catalog, a crash
log) makes it private, and a folder or file an older Circle left readable is tightened on use.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def private_folder(path: Path, *, tighten: bool = True) -> Path:
    """Create ``path`` (and its parents) if needed, 0700; with ``tighten``, an existing folder of
    the person's loses its group's and others' bits too.

    Raises:
        OSError: the folder cannot be created.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=FOLDER_MODE)
    except FileExistsError:
        if tighten:
            _tighten(path, FOLDER_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty if it is missing, 0600 from its first moment; tighten it if it exists.

    SQLite gives its ``-wal`` and ``-shm`` files the mode of the database file, so a store created
    through here keeps all three private. An existing file is never opened, only changed in mode:
    closing a descriptor of a database would drop the POSIX locks this process's SQLite
    connections hold on it.

    Raises:
        OSError: the file cannot be created.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        _tighten(path, FILE_MODE)
    else:
        os.close(fd)
    return path


def tighten_file(path: Path) -> None:
    """Leave an existing file of the person's 0600 at most; a missing one stays missing."""
    _tighten(path, FILE_MODE)


def _tighten(path: Path, mode: int) -> None:
    """Drop the group's and others' bits of a path the person owns; leave anyone else's as it is."""
    try:
        found = path.stat()
    except OSError:
        return
    if found.st_uid == os.getuid() and stat.S_IMODE(found.st_mode) & ~mode & 0o777:
        try:
            os.chmod(path, stat.S_IMODE(found.st_mode) & mode)
        except OSError:
            return


__all__ = ["FILE_MODE", "FOLDER_MODE", "private_file", "private_folder", "tighten_file"]
