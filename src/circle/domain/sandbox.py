"""The optional OS sandbox: which mode, and the exact bubblewrap (``bwrap``) arguments for it.

Circle's approval policy is a policy boundary; this is an operating-system one, off by default.

- ``off``: commands run with the person's full rights (approvals still apply).
- ``workspace-write``: the whole file system is mounted read-only except the workspace and the
  extra ``writable`` folders (Circle's job folders); ``/tmp`` is an empty private tmpfs, new for each
  command and gone when it ends, so scratch files work but never reach the host.
- ``read-only``: nothing on the host can be written, not even the workspace; ``/tmp`` is the same
  empty private tmpfs (writes there land in memory and vanish with the command).

In both modes the network is cut (a network namespace of its own, where even loopback is another
host's) unless ``network`` is set, and the command gets its own PID, IPC and UTS namespaces, so it
cannot see or signal the host's processes. Every capability is dropped (``--cap-drop ALL``): run as
root, bwrap otherwise keeps them and a command could simply remount ``/`` read-write. ``/proc/sys``
and ``/proc/sysrq-trigger`` are mounted read-only over the fresh ``/proc``, which bwrap leaves
writable for root. ``--new-session`` is not used: it would take the command out of the process group
Circle kills on timeout or cancellation; the runner already starts bwrap in a session of its own,
with no controlling terminal, which is what ``--new-session`` protects (TIOCSTI). ``--die-with-parent``
takes the sandbox down when bwrap itself is killed.

What no command may read is covered in both modes, so a path built at run time reads nothing
either: the home folder's credential places (:data:`HOME_CREDENTIALS`), Circle's data folder (all
but the writable job folders bound back into it) and the credential files the runner finds in the
workspace (:func:`circle.domain.credentials.is_credential_path`). A folder gets an empty read-only
tmpfs, a file an empty read-only file. In ``workspace-write`` the always-ask places found
(``.git/hooks``, ``.git/info``, ``.git/config``, ``.gitmodules`` and ``.circle/`` of the workspace and of the
repositories inside it, Circle's data folder, ``~/.circle``) are mounted read-only, and the folders
between the workspace and them are bound onto themselves so that none can be moved away and made
anew (a mount point cannot be renamed or removed). The runner finds these paths on the real file
system (see :class:`SandboxMounts`); :func:`bwrap_argv` only orders the mounts.

What this does not stop: reading what the person can read elsewhere (another project's ``.env``, a
key outside the home folder's known places), connecting to Unix sockets on the file system (a
Docker socket, say), which a read-only mount does not prevent, and creating an always-ask place
that does not exist yet inside the workspace (a first ``.circle/``): paths that do not exist are
left alone, never created on the host.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .credentials import HOME_CREDENTIAL_PLACES
from .errors import ConfigError

SandboxMode = Literal["off", "read-only", "workspace-write"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("off", "read-only", "workspace-write")

HOME_CREDENTIALS: tuple[str, ...] = HOME_CREDENTIAL_PLACES
"""Places below the home folder that hold credentials; the sandbox shows each one empty."""

REPOSITORY_ALWAYS_ASK: tuple[str, ...] = (".git/hooks", ".git/info", ".git/config", ".gitmodules", ".circle")
"""A repository's (and the workspace's) always-ask places; read-only in ``workspace-write``."""


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """Where sandboxed commands may write and whether they reach the network.

    Attributes:
        mode: ``off``, ``read-only`` or ``workspace-write``.
        workspace: The workspace folder, resolved (writable in ``workspace-write`` only).
        writable: More folders writable in ``workspace-write`` (Circle's job folders); ignored in
            ``read-only``. Ones that do not exist are left out.
        network: Keep the network (else the command gets a network namespace of its own).
        data_dir: Circle's data folder, hidden from commands but for ``writable`` folders in it.
    """

    mode: SandboxMode
    workspace: str
    writable: tuple[str, ...] = ()
    network: bool = False
    data_dir: str | None = None

    @property
    def active(self) -> bool:
        return self.mode != "off"


@dataclass(frozen=True, slots=True)
class SandboxMounts:
    """Paths found on the real file system (each one exists, symlinks resolved) that the sandbox
    covers.

    Attributes:
        hidden_folders: Shown as empty read-only folders.
        hidden_files: Shown as empty read-only files.
        read_only: Always-ask places, mounted read-only in ``workspace-write``.
    """

    hidden_folders: tuple[str, ...] = ()
    hidden_files: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()


def parse_sandbox(text: str) -> SandboxMode:
    """The mode named by ``text``.

    Raises:
        ConfigError: not one of ``off``, ``read-only``, ``workspace-write``.
    """
    lowered = text.strip().lower()
    for mode in SANDBOX_MODES:
        if mode == lowered:
            return mode
    raise ConfigError(f"unknown sandbox mode {text!r}: use {', '.join(SANDBOX_MODES)}")


def sandbox_policy(
    mode: SandboxMode,
    *,
    workspace: str,
    writable: Sequence[str] = (),
    network: bool = False,
    data_dir: str | None = None,
) -> SandboxPolicy | None:
    """The policy for ``mode``, or None when it is ``off``."""
    if mode == "off":
        return None
    return SandboxPolicy(
        mode, workspace=workspace, writable=tuple(writable), network=network, data_dir=data_dir
    )


def bwrap_argv(
    policy: SandboxPolicy,
    command: Sequence[str],
    *,
    cwd: str,
    bwrap: str = "bwrap",
    mounts: SandboxMounts | None = None,
    empty_file: str = "/dev/null",
) -> list[str]:
    """The full argument list running ``command`` in ``cwd`` under ``policy`` (mode not ``off``).

    Later mounts cover earlier ones. First everything read-only, a fresh ``/dev`` and ``/proc`` and
    the private ``/tmp``; then, shallower paths before deeper ones (so the most specific mount wins,
    and at one path a hide beats a read-only mount, which beats a bind): the workspace and the
    writable folders (which may lie below ``/tmp``, or below a hidden folder), a workspace or
    ``cwd`` that the private ``/tmp`` would hide mounted back read-only, the always-ask places, and
    the hidden paths. A path that an earlier hidden folder (or the private ``/tmp``) already covers
    is left out, so nothing is created in an empty folder. Hidden folders are made read-only last.

    Args:
        policy: The sandbox.
        command: The program and its arguments.
        cwd: The folder it runs in.
        bwrap: The ``bwrap`` program.
        mounts: What to hide and protect (see :class:`SandboxMounts`).
        empty_file: An empty read-only file on the host that hidden files are bound to; the default
            ``/dev/null`` hides them too, but cannot be opened in the sandbox (no devices there).
    """
    if not policy.active:
        raise ValueError("bwrap_argv needs a sandbox mode other than off")
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--ro-bind", "/proc/sys", "/proc/sys"]
    argv += ["--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger"]
    argv += ["--tmpfs", "/tmp"]
    layers = _visible_layers(_layers(policy, mounts or SandboxMounts(), cwd=cwd, empty_file=empty_file))
    for layer in layers:
        argv += layer.args
    argv += [
        arg
        for layer in layers
        if layer.kind == _HIDE and layer.folder
        for arg in ("--remount-ro", layer.path)
    ]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not policy.network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--cap-drop", "ALL", "--chdir", posixpath.normpath(cwd), "--", *command]
    return argv


_BIND, _PIN, _PROTECT, _HIDE = range(4)
"""What a layer does; at one path a later kind covers an earlier one."""


@dataclass(frozen=True, slots=True)
class _Layer:
    path: str
    kind: int
    args: tuple[str, ...]
    folder: bool = False

    @property
    def order(self) -> tuple[int, int]:
        return (self.path.count("/") if self.path != "/" else 0, self.kind)


def _layers(policy: SandboxPolicy, mounts: SandboxMounts, *, cwd: str, empty_file: str) -> list[_Layer]:
    """Every mount after the fixed ones, in the order asked (not yet sorted or pruned)."""
    workspace = posixpath.normpath(policy.workspace)
    writing = policy.mode == "workspace-write"
    layers: list[_Layer] = []
    visible = [workspace]
    if writing:
        layers.append(_Layer(workspace, _BIND, ("--bind", workspace, workspace)))
        for folder in map(posixpath.normpath, policy.writable):
            layers.append(_Layer(folder, _BIND, ("--bind-try", folder, folder)))
            visible.append(folder)
    elif _within(workspace, "/tmp"):
        layers.append(_Layer(workspace, _BIND, ("--ro-bind", workspace, workspace)))
    cwd = posixpath.normpath(cwd)
    if _within(cwd, "/tmp") and not any(_within(cwd, folder) for folder in visible):
        layers.append(_Layer(cwd, _BIND, ("--ro-bind", cwd, cwd)))
    if writing:
        for place in map(posixpath.normpath, mounts.read_only):
            layers += [
                _Layer(between, _PIN, ("--bind", between, between)) for between in _between(workspace, place)
            ]
            layers.append(_Layer(place, _PROTECT, ("--ro-bind", place, place)))
    for folder in map(posixpath.normpath, mounts.hidden_folders):
        layers.append(_Layer(folder, _HIDE, ("--tmpfs", folder), folder=True))
    for file in map(posixpath.normpath, mounts.hidden_files):
        layers.append(_Layer(file, _HIDE, ("--ro-bind", empty_file, file)))
    return layers


def _visible_layers(layers: list[_Layer]) -> list[_Layer]:
    """``layers`` sorted shallow to deep, without repeats and without the ones a hidden folder (or
    the private ``/tmp``) above them already covers."""
    kept: list[_Layer] = [_Layer("/", _BIND, ()), _Layer("/tmp", _HIDE, (), folder=True)]
    seen: set[tuple[str, int]] = set()
    for layer in sorted(layers, key=lambda layer: layer.order):
        if (layer.path, layer.kind) in seen:
            continue
        seen.add((layer.path, layer.kind))
        above = next(other for other in reversed(kept) if _within(layer.path, other.path))
        if layer.kind != _BIND and above.kind == _HIDE and above.folder:
            continue
        kept.append(layer)
    return kept[2:]


def _between(workspace: str, place: str) -> list[str]:
    """The folders strictly between ``workspace`` and ``place`` (none when it lies outside)."""
    if place == workspace or not _within(place, workspace):
        return []
    parts = place[len(workspace.rstrip("/")) + 1 :].split("/")[:-1]
    return [posixpath.join(workspace, *parts[: n + 1]) for n in range(len(parts))]


def sandbox_note(policy: SandboxPolicy | None) -> str | None:
    """One line for the system prompt's environment section; None when commands run unsandboxed."""
    if policy is None or not policy.active:
        return None
    network = "the network is open" if policy.network else "no network"
    if policy.mode == "read-only":
        return (
            "Commands run in a read-only sandbox: nothing on disk can be changed, not even the "
            "workspace (/tmp is an empty scratch folder for each command); credential files and "
            f"Circle's data folder look empty; {network}."
        )
    return (
        "Commands run in a sandbox: the file system is read-only except the workspace and /tmp "
        "(/tmp is empty for each command and cleared after it); credential files and Circle's data "
        "folder look empty, and .git/hooks, .git/info, .git/config, .gitmodules and .circle/ are "
        f"read-only; {network}."
    )


def _within(path: str, folder: str) -> bool:
    return folder == "/" or path == folder or path.startswith(folder.rstrip("/") + "/")


__all__ = [
    "HOME_CREDENTIALS",
    "REPOSITORY_ALWAYS_ASK",
    "SANDBOX_MODES",
    "SandboxMode",
    "SandboxMounts",
    "SandboxPolicy",
    "bwrap_argv",
    "parse_sandbox",
    "sandbox_note",
    "sandbox_policy",
]
