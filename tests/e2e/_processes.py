"""Processes a test started, found through /proc: whether they still run, and the tree below one."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Proc:
    """One process, named by its pid and start time (a pid alone may be another process later)."""

    pid: int
    started: int
    command: str

    def running(self) -> bool:
        """It runs (a zombie nobody reaped has ended; a new process with its pid is not it)."""
        found = _read(self.pid)
        return found is not None and found[2] not in ("Z", "X") and found[1] == self.started

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            if self.running():
                os.kill(self.pid, signal.SIGKILL)


def _read(pid: int) -> tuple[int, int, str] | None:
    """The parent, start time and state of ``pid``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[19]), fields[0]


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def descendants(root: int) -> list[Proc]:
    """Every running process below ``root`` (not ``root`` itself)."""
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (found := _read(int(entry.name))) is not None and found[2] != "Z":
            children.setdefault(found[0], []).append(int(entry.name))
            started[int(entry.name)] = found[1]
    below, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        below.append(Proc(pid, started[pid], _command(pid)))
        todo += children.get(pid, [])
    return below


def circles_and_theirs(root: int) -> list[Proc]:
    """The `circle` processes at or below ``root``, and everything below them (commands, jobs)."""
    found = _read(root)
    tree = descendants(root) + ([Proc(root, found[1], _command(root))] if found is not None else [])
    circles = [p for p in tree if "bin/circle" in p.command]
    return circles + [below for c in circles for below in descendants(c.pid) if below not in circles]


def left_running(procs: list[Proc], *, within: float) -> list[Proc]:
    """Those of ``procs`` still running after up to ``within`` seconds."""
    deadline = time.monotonic() + within
    while (alive := [p for p in procs if p.running()]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


__all__ = ["Proc", "circles_and_theirs", "descendants", "left_running"]
