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

What this does not stop: reading anything the person can read, and connecting to Unix sockets on
the file system (a Docker socket, say), which a read-only mount does not prevent.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .errors import ConfigError

SandboxMode = Literal["off", "read-only", "workspace-write"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("off", "read-only", "workspace-write")


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """Where sandboxed commands may write and whether they reach the network.

    Attributes:
        mode: ``off``, ``read-only`` or ``workspace-write``.
        workspace: The workspace folder, resolved (writable in ``workspace-write`` only).
        writable: More folders writable in ``workspace-write`` (Circle's job folders); ignored in
            ``read-only``. Ones that do not exist are left out.
        network: Keep the network (else the command gets a network namespace of its own).
    """

    mode: SandboxMode
    workspace: str
    writable: tuple[str, ...] = ()
    network: bool = False

    @property
    def active(self) -> bool:
        return self.mode != "off"


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
    mode: SandboxMode, *, workspace: str, writable: Sequence[str] = (), network: bool = False
) -> SandboxPolicy | None:
    """The policy for ``mode``, or None when it is ``off``."""
    if mode == "off":
        return None
    return SandboxPolicy(mode, workspace=workspace, writable=tuple(writable), network=network)


def bwrap_argv(policy: SandboxPolicy, command: Sequence[str], *, cwd: str, bwrap: str = "bwrap") -> list[str]:
    """The full argument list running ``command`` in ``cwd`` under ``policy`` (mode not ``off``).

    Later mounts cover earlier ones, so the order is: everything read-only, a fresh ``/dev`` and
    ``/proc``, the private ``/tmp``, then the workspace and the writable folders (which may lie
    below ``/tmp``); a workspace or ``cwd`` that the private ``/tmp`` would hide is mounted back
    read-only.
    """
    if not policy.active:
        raise ValueError("bwrap_argv needs a sandbox mode other than off")
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--ro-bind", "/proc/sys", "/proc/sys"]
    argv += ["--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger"]
    argv += ["--tmpfs", "/tmp"]
    workspace = posixpath.normpath(policy.workspace)
    visible = [workspace]
    if policy.mode == "workspace-write":
        argv += ["--bind", workspace, workspace]
        for folder in policy.writable:
            folder = posixpath.normpath(folder)
            argv += ["--bind-try", folder, folder]
            visible.append(folder)
    elif _within(workspace, "/tmp"):
        argv += ["--ro-bind", workspace, workspace]
    cwd = posixpath.normpath(cwd)
    if _within(cwd, "/tmp") and not any(_within(cwd, folder) for folder in visible):
        argv += ["--ro-bind", cwd, cwd]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not policy.network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--cap-drop", "ALL", "--chdir", cwd, "--", *command]
    return argv


def sandbox_note(policy: SandboxPolicy | None) -> str | None:
    """One line for the system prompt's environment section; None when commands run unsandboxed."""
    if policy is None or not policy.active:
        return None
    network = "the network is open" if policy.network else "no network"
    if policy.mode == "read-only":
        return (
            "Commands run in a read-only sandbox: nothing on disk can be changed, not even the "
            f"workspace (/tmp is an empty scratch folder for each command); {network}."
        )
    return (
        "Commands run in a sandbox: the file system is read-only except the workspace and /tmp "
        f"(/tmp is empty for each command and cleared after it); {network}."
    )


def _within(path: str, folder: str) -> bool:
    return folder == "/" or path == folder or path.startswith(folder.rstrip("/") + "/")


__all__ = [
    "SANDBOX_MODES",
    "SandboxMode",
    "SandboxPolicy",
    "bwrap_argv",
    "parse_sandbox",
    "sandbox_note",
    "sandbox_policy",
]
