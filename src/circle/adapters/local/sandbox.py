"""Finding bubblewrap and checking, before anything runs, that it can start here.

Circle refuses to work sandboxed without it rather than run commands unsandboxed: the entrypoints
call :func:`check_bwrap` first and stop with its one-line reason, and the runner refuses a command
when ``bwrap`` has gone missing since.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping

from circle.domain.sandbox import SandboxPolicy, bwrap_argv

NOT_INSTALLED = "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
CHECK_TIMEOUT_S = 10.0
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
        policy: The policy to try (its workspace must exist); by default a read-only sandbox of
            ``/`` without network.
        timeout_s: How long the trial may take.
    """
    bwrap = find_bwrap(env)
    if bwrap is None:
        return NOT_INSTALLED
    policy = policy if policy is not None and policy.active else SandboxPolicy("read-only", workspace="/")
    argv = bwrap_argv(policy, _PROBE, cwd=policy.workspace, bwrap=bwrap)
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


__all__ = ["NOT_INSTALLED", "check_bwrap", "find_bwrap"]
