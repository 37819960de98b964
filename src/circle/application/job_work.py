"""What a background job runs besides a command: a subagent (see :mod:`circle.application.jobs`).

A command job runs a :class:`~circle.application.ports.process_runner.RunningProcess`; a subagent job
runs a coroutine that ends with an :class:`AgentReport`, wrapped in an :class:`AgentWork`. Both are
:class:`JobWork`: something to wait for (an exit code) and to stop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from circle.domain.messages import Usage

log = logging.getLogger("circle.jobs")
STOPPED_CODE = -15


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


__all__ = ["AgentReport", "AgentWork", "JobWork"]
