"""The always-ask places, watched around every command the person did not approve for them.

What a command writes can be hidden from the classifier (a path built at run time, an interpreter's
``open()``, a symlink made on the way). So the execute tool takes a :class:`PlacesSnapshot` of the
places whose change always asks before the command runs, and after it puts back whatever changed
(files written, made or removed), telling the model and the person what it undid. The places:

- the workspace's ``.git/config`` (only its keys that run a program or include a file: a command may
  set an upstream or a name there), ``.git/hooks/``, ``.gitmodules`` and ``.circle/``; a ``.git``
  folder the command made itself (``git init``) is the command's own and is left alone;
- Circle's data folder's control files (settings, approvals, hooks, secrets, credentials,
  endpoints, key bindings; the session database is checked statically only, by the words that name it);
- the person's ``~/.circle`` (extensions, skills, agents, commands).

Files larger than :data:`MAX_FILE_BYTES` and folders past :data:`MAX_FILES` entries are watched by
size and time only: changed, they are reported but cannot be put back.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from circle.application.ports.file_system import FileInfo, FileSystem

from .git_review import config_program_keys

MAX_FILES = 400
MAX_FILE_BYTES = 1_000_000
DATA_FILES = (
    "settings.json",
    "approvals.json",
    "hooks.json",
    "hooks_approved.json",
    "secrets.json",
    "credentials.json",
    "endpoints.json",
    "keybindings.json",
)


@dataclass(frozen=True, slots=True)
class _Kept:
    size: int
    mtime: float
    data: bytes | None
    """None: too large to keep."""


@dataclass(slots=True)
class PlacesSnapshot:
    """The watched files as they were: path -> what was kept."""

    files: dict[str, _Kept] = field(default_factory=dict)
    folders: tuple[str, ...] = ()
    repositories: frozenset[str] = frozenset()
    """The ``.git`` folders that existed."""


def watched(workspace: str, *, data_dir: str | None, home: str | None) -> tuple[list[str], list[str]]:
    """The watched single files and folders (absolute)."""
    files = [posixpath.join(workspace, ".git", "config"), posixpath.join(workspace, ".gitmodules")]
    folders = [posixpath.join(workspace, ".git", "hooks"), posixpath.join(workspace, ".circle")]
    if data_dir:
        files += [posixpath.join(data_dir, name) for name in DATA_FILES]
    if home and home != "~":
        folders.append(posixpath.join(home, ".circle"))
    return files, folders


async def take_snapshot(fs: FileSystem, files: list[str], folders: list[str]) -> PlacesSnapshot:
    repositories = set()
    for path in files:
        if posixpath.basename(path) == "config":
            git = posixpath.dirname(path)
            info = await _stat(fs, git)
            if info is not None and info.kind == "dir":
                repositories.add(git)
    snapshot = PlacesSnapshot(folders=tuple(folders), repositories=frozenset(repositories))
    for path in files:
        await _keep(fs, path, snapshot)
    for folder in folders:
        for path in await _below(fs, folder):
            await _keep(fs, path, snapshot)
    return snapshot


async def restore_changes(fs: FileSystem, before: PlacesSnapshot, files: list[str]) -> list[str]:
    """Put back every watched file that changed since ``before``; the changes, for a person."""
    now = await take_snapshot(fs, files, list(before.folders))
    undone: list[str] = []
    for path, kept in before.files.items():
        current = now.files.get(path)
        if current is not None and _same(kept, current, config=_is_config(path)):
            continue
        if kept.data is None:
            undone.append(f"{path} changed (too large to put back)")
            continue
        try:
            await fs.write_bytes(path, kept.data)
        except OSError as exc:
            undone.append(f"{path} changed and could not be put back ({exc.strerror or exc})")
            continue
        undone.append(f"{path} {'removed' if current is None else 'changed'}: put back")
    for path in sorted(now.files.keys() - before.files.keys()):
        if _in_new_repository(path, before) or (
            _is_config(path) and _same(_EMPTY, now.files[path], config=True)
        ):
            continue
        try:
            await fs.delete(path)
            undone.append(f"{path} made: removed")
        except OSError as exc:
            undone.append(f"{path} made and could not be removed ({exc.strerror or exc})")
    return sorted(undone)


_EMPTY = _Kept(0, 0.0, b"")


def _is_config(path: str) -> bool:
    return path.endswith("/.git/config")


def _in_new_repository(path: str, before: PlacesSnapshot) -> bool:
    """A file of a ``.git`` folder that did not exist before the command."""
    parts = path.split("/")
    if ".git" not in parts:
        return False
    git = "/".join(parts[: parts.index(".git") + 1])
    return git not in before.repositories


def _same(a: _Kept, b: _Kept, *, config: bool = False) -> bool:
    if a.data is not None and b.data is not None:
        if config:
            return config_program_keys(_text(a.data)) == config_program_keys(_text(b.data))
        return a.data == b.data
    return (a.size, a.mtime) == (b.size, b.mtime)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


async def _stat(fs: FileSystem, path: str) -> FileInfo | None:
    try:
        return await fs.stat(path)
    except OSError:
        return None


async def _keep(fs: FileSystem, path: str, snapshot: PlacesSnapshot) -> None:
    try:
        info = await fs.stat(path)
        if info is None or info.kind != "file":
            return
        data = await fs.read_bytes(path) if info.size <= MAX_FILE_BYTES else None
    except OSError:
        return
    snapshot.files[path] = _Kept(info.size, info.mtime, data)


async def _below(fs: FileSystem, folder: str) -> list[str]:
    """Files below ``folder``, at most :data:`MAX_FILES`, without following folder links."""
    found: list[str] = []
    pending = [folder]
    while pending and len(found) < MAX_FILES:
        current = pending.pop()
        try:
            entries = await fs.list_dir(current)
        except OSError:
            continue
        for entry in entries:
            if entry.kind == "dir":
                if await fs.resolve(entry.path) == entry.path:
                    pending.append(entry.path)
            elif entry.kind == "file":
                found.append(entry.path)
    return found[:MAX_FILES]


__all__ = ["DATA_FILES", "PlacesSnapshot", "restore_changes", "take_snapshot", "watched"]
