"""Background jobs: commands the model started with ``execute`` and ``background: true``.

A session has one :class:`JobManager`. Each job runs in a process group of its own (see
:meth:`ProcessRunner.start`), its output appended to ``<data>/background_jobs/<session>/job-N.log``.
At most :data:`MAX_JOBS` run at once. Ids go on from the highest log already in the folder, so a
resumed session never writes over an earlier job's output.

When a job ends by itself, a notice (its exit code and the last lines of its output) is queued and
the listeners are called; the session hands the notices to the model (see ``AgentSession``). A job
stopped with :meth:`JobManager.stop` or :meth:`JobManager.stop_all` sends no notice: whoever stopped
it knows. Output shown to the model passes through ``mask`` (saved secrets and passwords hidden).
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from circle.domain.errors import ToolError

from .ports.file_system import FileSystem
from .ports.process_runner import ProcessRunner, RunningProcess

MAX_JOBS = 16
NOTICE_LINES = 10
LINE_WIDTH = 300
JobStatus = Literal["running", "exited", "stopped"]
_LOG_NAME = re.compile(r"job-(\d+)\.log")


@dataclass
class Job:
    """One background job and what became of it."""

    id: str
    command: str
    started: float
    output_path: str
    process: RunningProcess
    status: JobStatus = "running"
    exit_code: int | None = None

    def describe(self) -> str:
        """``running``, ``stopped`` or how it ended."""
        if self.status != "exited" or self.exit_code is None:
            return self.status
        if self.exit_code < 0:
            return f"killed by signal {-self.exit_code}"
        return f"exited with code {self.exit_code}"


class JobManager:
    """Starts, lists and stops a session's background jobs and queues a notice when one ends."""

    def __init__(
        self,
        processes: ProcessRunner,
        files: FileSystem,
        *,
        folder: str,
        max_jobs: int = MAX_JOBS,
        mask: Callable[[str], str] = str,
        now: Callable[[], float] = time.time,
    ) -> None:
        """Args:
        processes: Where the jobs run.
        files: For reading the output files back.
        folder: The session's folder of output files (``background_jobs/<session>``).
        max_jobs: How many may run at once.
        mask: Applied to every output shown to the model.
        now: The clock for start times.
        """
        self._processes = processes
        self._files = files
        self.folder = folder
        self.max_jobs = max_jobs
        self._mask = mask
        self._now = now
        self._jobs: dict[str, Job] = {}
        self._next: int | None = None
        self._notices: list[str] = []
        self._listeners: list[Callable[[], None]] = []
        self._watchers: set[asyncio.Task[None]] = set()

    def on_ended(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` each time a job ends by itself (its notice is then waiting)."""
        self._listeners.append(listener)

    @property
    def jobs(self) -> list[Job]:
        return list(self._jobs.values())

    @property
    def running(self) -> list[Job]:
        return [job for job in self._jobs.values() if job.status == "running"]

    @property
    def has_notices(self) -> bool:
        return bool(self._notices)

    def take_notices(self) -> list[str]:
        """The notices of jobs that ended since the last call, oldest first."""
        notices, self._notices = self._notices, []
        return notices

    def get(self, job_id: str) -> Job:
        job = self._jobs.get(job_id.strip())
        if job is None:
            known = ", ".join(self._jobs) or "none has been started"
            raise ToolError(f"no background job {job_id!r} (the jobs: {known})")
        return job

    async def start(self, command: str, *, cwd: str, env: Mapping[str, str] | None = None) -> Job:
        """Start ``command``; a :class:`ToolError` when :attr:`max_jobs` already run."""
        if len(self.running) >= self.max_jobs:
            raise ToolError(
                f"{self.max_jobs} background jobs are running, the most at once: "
                "wait for one to end or stop one with stop_job"
            )
        job_id = await self._new_id()
        path = posixpath.join(self.folder, f"{job_id}.log")
        process = await self._processes.start(command, cwd=cwd, output_path=path, env=env)
        job = Job(id=job_id, command=command, started=self._now(), output_path=path, process=process)
        self._jobs[job_id] = job
        watcher = asyncio.create_task(self._watch(job), name=f"circle-{job_id}")
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
        return job

    async def stop(self, job_id: str) -> Job:
        """Stop one job with its process group (a job that has ended keeps its status)."""
        job = self.get(job_id)
        if job.status == "running":
            job.status = "stopped"
        await job.process.stop()
        return job

    async def stop_all(self) -> int:
        """Stop every job's process group; how many were still running."""
        running = self.running
        for job in running:
            job.status = "stopped"
        await asyncio.gather(*(job.process.stop() for job in self._jobs.values()))
        for watcher in list(self._watchers):
            watcher.cancel()
        return len(running)

    async def tail(self, job: Job, *, lines: int) -> str:
        """The last ``lines`` lines of the job's output, each cut to :data:`LINE_WIDTH`, masked."""
        try:
            data = await self._files.read_bytes(job.output_path)
        except OSError:
            return ""
        text = data.decode("utf-8", errors="replace").rstrip("\n")
        last = text.split("\n")[-lines:] if text else []
        cut = [line if len(line) <= LINE_WIDTH else line[:LINE_WIDTH] + " …" for line in last]
        return self._mask("\n".join(cut))

    async def _watch(self, job: Job) -> None:
        code = await job.process.wait()
        if job.status != "running":
            return
        job.status, job.exit_code = "exited", code
        tail = await self.tail(job, lines=NOTICE_LINES)
        last = f"; last lines of {job.output_path}:\n{tail}" if tail else "; it wrote no output"
        command = job.command if len(job.command) <= 200 else job.command[:200] + " …"
        self._notices.append(f"[{job.id} ({self._mask(command)}) {job.describe()}{last}]")
        for listener in list(self._listeners):
            listener()

    async def _new_id(self) -> str:
        if self._next is None:
            self._next = 1
            with contextlib.suppress(OSError):
                for info in await self._files.list_dir(self.folder):
                    if found := _LOG_NAME.fullmatch(posixpath.basename(info.path)):
                        self._next = max(self._next, int(found.group(1)) + 1)
        job_id = f"job-{self._next}"
        self._next += 1
        return job_id


__all__ = ["MAX_JOBS", "Job", "JobManager", "JobStatus"]
