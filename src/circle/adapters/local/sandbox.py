"""Finding bubblewrap, what it must hide and protect, and checking, before anything runs, that it
can start here.

Circle refuses to work sandboxed without it rather than run commands unsandboxed: the entrypoints
call :func:`check_bwrap` first and stop with its one-line reason, and the runner refuses a command
when ``bwrap`` has gone missing since.

:func:`find_mounts` looks, before each command, for what the sandbox covers (see
:mod:`circle.domain.sandbox`): the home folders' credential places, Circle's data folder and
``~/.circle``, and a scan of the workspace, hidden and git-ignored files included, for credential
files (:func:`~circle.domain.credentials.is_credential_path`, judged on the path and on a symlink's
target) and for the always-ask places of every repository in it (a ``.git`` file's ``gitdir:``
followed). The scan does not enter ``.git`` folders (their always-ask places are taken by name), nor
folders only tools fill (:data:`SKIPPED_FOLDERS`, a virtual environment), nor symlinked folders. It
stops at :data:`SCAN_LIMIT` entries: past that the command is refused, never run half-covered.

A name can be anything: a hard link in the workspace to ``~/.ssh/id_rsa`` called ``notes.txt`` is
the same file. So the files it hides for what they are (the home folders' credential places, at most
:data:`PLACE_SCAN_LIMIT` files below each, the data folder's own credential files and the workspace's
credential-named files) are known by ``(st_dev, st_ino)``, and a workspace file with several links (or
a symlink to a file) that is one of them is hidden too. When a place holds too many files to know
them all, every workspace file with several links is hidden.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import posixpath
import pwd
import shutil
import stat
import subprocess
import tempfile
from collections import deque
from collections.abc import Iterable, Mapping

from circle.domain.credentials import DATA_CREDENTIAL_PLACES, is_credential_path
from circle.domain.errors import ToolError
from circle.domain.sandbox import (
    HOME_CREDENTIALS,
    REPOSITORY_ALWAYS_ASK,
    SandboxMounts,
    SandboxPolicy,
    bwrap_argv,
)

NOT_INSTALLED = "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
CHECK_TIMEOUT_S = 10.0
SCAN_LIMIT = 100_000
"""Entries the workspace scan looks at before it gives up (and the command is refused)."""
PLACE_SCAN_LIMIT = 10_000
"""Files looked at, at most, below each hidden credential folder, to know its files by inode."""
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
"""Folders that tools fill, not people: the scan does not enter them."""
_PROBE = ["/bin/true"]


def find_bwrap(env: Mapping[str, str] | None = None) -> str | None:
    """The ``bwrap`` program on ``env``'s PATH (the process's own environment when None)."""
    path = (os.environ if env is None else env).get("PATH", os.defpath)
    return shutil.which("bwrap", path=path)


def check_bwrap(
    env: Mapping[str, str] | None = None,
    *,
    policy: SandboxPolicy | None = None,
    timeout_s: float = CHECK_TIMEOUT_S,
) -> str | None:
    """None when bwrap runs ``/bin/true`` under ``policy`` here; else why not, in one line.

    Args:
        env: The environment commands get (its PATH is searched); None means the process's own.
        policy: The policy to try, with what it hides and protects (its workspace must exist); by
            default a read-only sandbox of ``/`` without network, hiding nothing.
        timeout_s: How long the trial may take.
    """
    bwrap = find_bwrap(env)
    if bwrap is None:
        return NOT_INSTALLED
    mounts = SandboxMounts()
    if policy is None or not policy.active:
        policy = SandboxPolicy("read-only", workspace="/")
    else:
        policy = resolved(policy)
        try:
            mounts = find_mounts(policy, env=env)
        except ToolError as exc:
            return str(exc)
    try:
        empty = empty_file()
    except OSError as exc:
        return f"bwrap cannot start here: no empty file for hidden files ({exc.strerror or exc})"
    argv = bwrap_argv(policy, _PROBE, cwd=policy.workspace, bwrap=bwrap, mounts=mounts, empty_file=empty)
    try:
        done = subprocess.run(
            argv,
            env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"bwrap cannot start here: it did not finish within {timeout_s:g} s"
    except OSError as exc:
        return f"bwrap cannot start here: {exc.strerror or exc}"
    if done.returncode == 0:
        return None
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    return f"bwrap cannot start here: {lines[0] if lines else f'exit code {done.returncode}'}"


def empty_file() -> str:
    """An empty read-only file that hidden files are bound to, in a folder only this process's
    user can change; made once per process (and again if it went missing), removed at exit.

    Raises:
        OSError: it cannot be made.
    """
    global _empty
    if _empty is not None and os.path.isfile(_empty) and os.path.getsize(_empty) == 0:
        return _empty
    folder = tempfile.mkdtemp(prefix="circle-sandbox-")
    path = posixpath.join(folder, "empty")
    with open(path, "x"):
        pass
    os.chmod(path, 0o444)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _empty = path
    return path


_empty: str | None = None


def resolved(policy: SandboxPolicy) -> SandboxPolicy:
    """``policy`` with its folders' symlinks resolved, as the paths :func:`find_mounts` gives are
    (so that one path is not spelled two ways when the mounts are ordered)."""
    return dataclasses.replace(
        policy,
        workspace=os.path.realpath(policy.workspace),
        writable=tuple(os.path.realpath(folder) for folder in policy.writable),
        data_dir=os.path.realpath(policy.data_dir) if policy.data_dir else None,
    )


def find_mounts(policy: SandboxPolicy, *, env: Mapping[str, str] | None = None) -> SandboxMounts:
    """What the sandbox hides and protects for ``policy``, as found now on the real file system.

    Args:
        policy: The sandbox (its workspace is scanned; its data folder is hidden and protected).
        env: The command's environment: its ``HOME`` is a home folder too, besides the process's
            own and the account's.

    Raises:
        ToolError: the workspace holds more than :data:`SCAN_LIMIT` entries to look at.
    """
    found = _Found()
    for home in _homes(env):
        for name in HOME_CREDENTIALS:
            found.hide(posixpath.join(home, name), known=True)
        found.protect(posixpath.join(home, ".circle"))
    if policy.data_dir:
        found.hide(policy.data_dir)
        found.protect(policy.data_dir)
        for name in DATA_CREDENTIAL_PLACES:
            found.know(posixpath.join(policy.data_dir, name))
    _scan(policy.workspace, found)
    return SandboxMounts(
        hidden_folders=tuple(found.folders), hidden_files=tuple(found.files), read_only=tuple(found.read_only)
    )


class _Found:
    """Paths that exist, resolved, sorted into what is hidden and what is protected; and the
    ``(st_dev, st_ino)`` of the credential files hidden, to know their other names by."""

    def __init__(self) -> None:
        self.folders: list[str] = []
        self.files: list[str] = []
        self.read_only: list[str] = []
        self.identities: set[tuple[int, int]] = set()
        self.complete = True
        """Every file of the credential places is in :attr:`identities`."""

    def hide(self, path: str, *, known: bool = False) -> None:
        """Hide ``path``; ``known``: a credential place, whose files are known by inode too."""
        if real := _existing(path):
            (self.folders if os.path.isdir(real) else self.files).append(real)
            if known:
                self.know(real)

    def know(self, path: str) -> None:
        """Remember the identities of the file ``path``, or of the files below the folder ``path``."""
        if not os.path.isdir(path):
            with contextlib.suppress(OSError):
                info = os.stat(path)
                self.identities.add((info.st_dev, info.st_ino))
            return
        seen = 0
        for folder, _, names in os.walk(path):
            for name in names:
                seen += 1
                if seen > PLACE_SCAN_LIMIT:
                    self.complete = False
                    return
                with contextlib.suppress(OSError):
                    info = os.stat(posixpath.join(folder, name), follow_symlinks=False)
                    if stat.S_ISREG(info.st_mode):
                        self.identities.add((info.st_dev, info.st_ino))

    def is_known(self, info: os.stat_result) -> bool:
        """Whether a workspace file (stat'ed through symlinks) is a hidden credential file."""
        return (info.st_dev, info.st_ino) in self.identities or (not self.complete and info.st_nlink > 1)

    def protect(self, path: str) -> None:
        if real := _existing(path):
            self.read_only.append(real)


def _existing(path: str) -> str | None:
    """``path`` resolved, when it exists and is a folder or a regular file (never a device)."""
    try:
        real = os.path.realpath(path)
    except OSError:
        return None
    return real if os.path.isdir(real) or os.path.isfile(real) else None


def _homes(env: Mapping[str, str] | None) -> list[str]:
    homes = [os.path.expanduser("~"), (env or {}).get("HOME", "")]
    with contextlib.suppress(KeyError):
        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    return list(dict.fromkeys(posixpath.normpath(home) for home in homes if home.startswith("/")))


def _scan(workspace: str, found: _Found) -> None:
    """Breadth first through ``workspace``: credential files hidden, repositories' places protected."""
    folders = deque([os.path.realpath(workspace)])
    _repository(folders[0], found)
    seen = 0
    linked: list[tuple[str, os.stat_result]] = []
    while folders:
        folder = folders.popleft()
        for entry in _entries(folder):
            seen += 1
            if seen > SCAN_LIMIT:
                raise ToolError(
                    f"the sandbox cannot check the workspace for credential files: it holds more than "
                    f"{SCAN_LIMIT} files and folders; the command did not run"
                )
            if _is_credential(entry):
                found.hide(entry.path, known=True)
            elif not _is_folder(entry):
                if info := _linked(entry):
                    linked.append((entry.path, info))
            elif entry.name == ".git" or _skipped(entry):
                continue
            else:
                _repository(entry.path, found)
                folders.append(entry.path)
    for path, info in linked:
        if found.is_known(info):
            found.hide(path)


def _repository(folder: str, found: _Found) -> None:
    """Protect the always-ask places of ``folder`` (a ``.git`` file's gitdir followed)."""
    for place in REPOSITORY_ALWAYS_ASK:
        found.protect(posixpath.join(folder, place))
    git = posixpath.join(folder, ".git")
    if os.path.isfile(git):
        try:
            with open(git, encoding="utf-8", errors="replace") as file:
                line = file.readline(4096).strip()
        except OSError:
            return
        if line.startswith("gitdir:"):
            gitdir = posixpath.join(folder, line.removeprefix("gitdir:").strip())
            for name in ("hooks", "info", "config"):
                found.protect(posixpath.join(gitdir, name))


def _entries(folder: str) -> Iterable[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _is_credential(entry: os.DirEntry[str]) -> bool:
    if is_credential_path(entry.path):
        return True
    try:
        return entry.is_symlink() and is_credential_path(os.path.realpath(entry.path))
    except OSError:
        return False


def _linked(entry: os.DirEntry[str]) -> os.stat_result | None:
    """The ``stat`` of a regular file with other names (more than one link, or met through a
    symlink), which may be a credential file's; None for any other entry."""
    try:
        info = entry.stat()
        symlink = entry.is_symlink()
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) and (info.st_nlink > 1 or symlink) else None


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _skipped(entry: os.DirEntry[str]) -> bool:
    return entry.name in SKIPPED_FOLDERS or os.path.isfile(posixpath.join(entry.path, "pyvenv.cfg"))


__all__ = [
    "NOT_INSTALLED",
    "SCAN_LIMIT",
    "SKIPPED_FOLDERS",
    "check_bwrap",
    "find_bwrap",
    "find_mounts",
    "resolved",
]
