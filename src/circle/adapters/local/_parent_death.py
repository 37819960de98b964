"""A foreground command ends with Circle, even when Circle is killed with SIGKILL.

Circle cannot answer SIGKILL, so it cannot stop the command's process group then. On Linux the
kernel can: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` in the child, between fork and exec, asks for the
command's shell (or bwrap, which passes the same on with ``--die-with-parent``) to be killed when
the thread that started it goes. What the shell had started itself and is still running stops at
its next write to the closed output pipe. Elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import signal
import sys
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        prctl: Callable[..., int] = libc.prctl
    except (OSError, AttributeError):
        return None
    return prctl


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that sets the child's parent-death signal; None where there is none."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def in_child() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # Circle died before the signal was asked for
            os._exit(137)

    return in_child


__all__ = ["die_with_parent"]
