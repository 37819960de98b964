"""A background job (see :mod:`circle.application.jobs`) and what it runs besides a command: a subagent.

A command job runs a :class:`~circle.application.ports.process_runner.RunningProcess`; a subagent job
runs a coroutine that ends with an :class:`AgentReport`, wrapped in an :class:`AgentWork`. Both are
:class:`JobWork`: something to wait for (an exit code) and to stop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from circle.domain.messages import Usage

from .ports.process_runner import RunningProcess

log = logging.getLogger("circle.jobs")
STOPPED_CODE = -15
JobStatus = Literal["running", "exited", "stopped"]
JobKind = Literal["command", "agent"]


class JobWork(Protocol):
    """What a job runs: a started command (:class:`RunningProcess`) or a subagent."""

    async def wait(self) -> int:
        """Its exit code once it has ended (0 for a subagent that reported, 1 for one that failed)."""
        ...

    async def stop(self) -> None:
        """End it (a command with its whole process group) and wait for it; again does nothing."""
        ...


@dataclass(frozen=True, slots=True)
class AgentReport:
    """What a background subagent came back with."""

    text: str
    failed: bool = False
    usage: Usage | None = None
    """The tokens the subagent's answers took (None: none counted)."""


class AgentWork:
    """A subagent's coroutine run as a task; its report kept once it ends."""

    def __init__(self, run: Callable[[], Awaitable[AgentReport]], *, name: str) -> None:
        self.report: AgentReport | None = None
        self._task = asyncio.create_task(self._run(run), name=name)

    @staticmethod
    async def _run(run: Callable[[], Awaitable[AgentReport]]) -> AgentReport:
        return await run()

    async def wait(self) -> int:
        await asyncio.wait([self._task])
        if self._task.cancelled():
            self.report = AgentReport("(the subagent was stopped before it reported)", failed=True)
            return STOPPED_CODE
        if (exc := self._task.exception()) is not None:
            log.error("a background subagent failed", exc_info=exc)
            self.report = AgentReport(f"the subagent failed: {type(exc).__name__}: {exc}", failed=True)
            return 1
        self.report = self._task.result()
        return 1 if self.report.failed else 0

    async def stop(self) -> None:
        self._task.cancel()
        await asyncio.wait([self._task])


@dataclass
class Job:
    """One background job and what became of it.

    Attributes:
        command: The command, or for a subagent ``<type>: <description>``.
        kind: ``command`` or ``agent`` (a subagent).
        process: The command's process; None for a subagent.
        notice: What the model is told of its end (kept once it has ended by itself).
        awaited: How many ``wait_jobs`` calls wait for it now: while one does, its end is told to
            that call instead of being queued as a notice for the session.
        ended: Set once it has ended and its notice (if any) is written.
    """

    id: str
    command: str
    started: float
    output_path: str
    work: JobWork
    kind: JobKind = "command"
    process: RunningProcess | None = None
    status: JobStatus = "running"
    exit_code: int | None = None
    notice: str | None = None
    awaited: int = 0
    ended: asyncio.Event = field(default_factory=asyncio.Event, repr=False, compare=False)

    def describe(self) -> str:
        """``running``, ``stopped`` or how it ended."""
        if self.status != "exited" or self.exit_code is None:
            return self.status
        if self.kind == "agent":
            return "finished" if self.exit_code == 0 else "failed"
        if self.exit_code < 0:
            return f"killed by signal {-self.exit_code}"
        return f"exited with code {self.exit_code}"


@dataclass(frozen=True, slots=True)
class MovedToBackground:
    """A waited-on command the person moved to the background: it goes on as ``job``."""

    job: Job
    output: str
    """What it wrote before it was moved (kept to the limit it was run with), unmasked."""


OUTPUT_POLL_S = 0.2
"""How often a waited-on command's output is looked at for ``JobManager.run_waited``."""


class OutputFollower:
    """Tells ``on_output`` a waited-on process's output so far: empty as it starts, then each time
    it has changed (looked at every ``OUTPUT_POLL_S`` seconds by :meth:`follow`), and a last time
    with all of it (:meth:`flush`, as it ends)."""

    def __init__(self, process: RunningProcess, on_output: Callable[[str], None]) -> None:
        self.process = process
        self.on_output = on_output
        self._told: str | None = None

    def flush(self) -> None:
        """Tell the output now, when it changed since it was last told."""
        output = self.process.output()
        if output != self._told:
            self._told = output
            self.on_output(output)

    async def follow(self) -> None:
        """Tell an empty output at once (the command started), then the output as it changes,
        until cancelled."""
        self._told = ""
        self.on_output("")
        while True:
            await asyncio.sleep(OUTPUT_POLL_S)
            self.flush()


__all__ = [
    "OUTPUT_POLL_S",
    "AgentReport",
    "AgentWork",
    "Job",
    "JobKind",
    "JobStatus",
    "JobWork",
    "MovedToBackground",
    "OutputFollower",
]
