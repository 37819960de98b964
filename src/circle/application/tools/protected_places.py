"""The always-ask places, watched around every command the person did not approve for them.

What a command writes can be hidden from the classifier (a path built at run time, an interpreter's
``open()``, a symlink made on the way). So the execute tool takes a :class:`PlacesSnapshot` of the
places whose change always asks before the command runs, and after it puts back whatever changed
(files written, made or removed), telling the model and the person what it undid. The places:

- the workspace's ``.git/config`` (only its keys that run a program or include a file: a command may
  set an upstream or a name there), ``.git/hooks/``, ``.git/info/`` (its ``attributes`` pick a
  config's filters), ``.gitmodules`` and ``.circle/``; a ``.git`` folder the command made itself
  (``git init``) is the command's own and is left alone;
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
    version: tuple[int, float, float, int, int]
    data: bytes | None
    """None: too large to keep."""


@dataclass(slots=True)
class PlacesSnapshot:
    """The watched files as they were: path -> what was kept."""

    files: dict[str, _Kept] = field(default_factory=dict)
    folders: tuple[str, ...] = ()
    repositories: frozenset[str] = frozenset()
    """The ``.git`` folders that existed."""


PlacesCache = dict[str, _Kept]
"""Contents already read, by path, kept while the file's version (:attr:`FileInfo.version`) holds:
a snapshot reads only what changed since the last one."""


def watched(workspace: str, *, data_dir: str | None, home: str | None) -> tuple[list[str], list[str]]:
    """The watched single files and folders (absolute)."""
    files = [posixpath.join(workspace, ".git", "config"), posixpath.join(workspace, ".gitmodules")]
    folders = [posixpath.join(workspace, ".git", name) for name in ("hooks", "info")]
    folders.append(posixpath.join(workspace, ".circle"))
    if data_dir:
        files += [posixpath.join(data_dir, name) for name in DATA_FILES]
    if home and home != "~":
        folders.append(posixpath.join(home, ".circle"))
    return files, folders


async def take_snapshot(
    fs: FileSystem, files: list[str], folders: list[str], *, cache: PlacesCache | None = None
) -> PlacesSnapshot:
    """What the watched files hold now. Files are listed a folder at a time; contents are read only
    where ``cache`` holds no copy of the same version."""
    infos = await _infos(fs, files, folders)
    repositories = frozenset(
        posixpath.dirname(path)
        for path in files
        if posixpath.basename(path) == "config" and posixpath.dirname(path) in infos.folders
    )
    snapshot = PlacesSnapshot(folders=tuple(folders), repositories=repositories)
    cache = {} if cache is None else cache
    for info in infos.files:
        kept = cache.get(info.path)
        if kept is None or kept.version != info.version:
            try:
                data = await fs.read_bytes(info.path) if info.size <= MAX_FILE_BYTES else None
            except OSError:
                continue
            kept = cache[info.path] = _Kept(info.version, data)
        snapshot.files[info.path] = kept
    return snapshot


@dataclass(slots=True)
class _Listed:
    files: list[FileInfo] = field(default_factory=list)
    folders: set[str] = field(default_factory=set)


async def _infos(fs: FileSystem, files: list[str], folders: list[str]) -> _Listed:
    """The watched files' stats: each single file's folder listed once, each folder scanned once."""
    listed = _Listed()
    wanted: dict[str, set[str]] = {}
    for path in files:
        wanted.setdefault(posixpath.dirname(path), set()).add(path)
    for parent, paths in wanted.items():
        try:
            entries = await fs.list_dir(parent)
        except OSError:
            continue
        listed.folders.add(parent)
        listed.files += [e for e in entries if e.path in paths and e.kind == "file"]
    for folder in folders:
        try:
            scan = await fs.scan(folder, keep=_everything, limit=MAX_FILES)
        except OSError:
            continue
        listed.files += [e for e in scan.files if e.kind == "file"][:MAX_FILES]
    return listed


def _everything(path: str) -> bool:
    return True


async def restore_changes(
    fs: FileSystem, before: PlacesSnapshot, files: list[str], *, cache: PlacesCache | None = None
) -> list[str]:
    """Put back every watched file that changed since ``before``; the changes, for a person."""
    now = await take_snapshot(fs, files, list(before.folders), cache=cache)
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


_EMPTY = _Kept((0, 0.0, 0.0, 0, 0), b"")


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
            from circle.domain.git_config import config_program_keys  # with the first config change

            return config_program_keys(_text(a.data)) == config_program_keys(_text(b.data))
        return a.data == b.data
    return a.version == b.version


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


__all__ = ["DATA_FILES", "PlacesCache", "PlacesSnapshot", "restore_changes", "take_snapshot", "watched"]
