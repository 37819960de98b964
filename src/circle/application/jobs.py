"""Background jobs: commands (``execute`` with ``background: true``, or a command the person moved to
the background while it was waited on) and subagents (``task`` with ``background: true``).

A session has one :class:`JobManager`. Each job runs in a process group of its own (see
:meth:`ProcessRunner.start`), its output appended to ``<data>/background_jobs/<session>/job-N.log``.
At most :data:`MAX_JOBS` run at once. Ids go on from the highest log already in the folder, so a
resumed session never writes over an earlier job's output.

When a job ends by itself, a notice (its exit code and the last lines of its output) is queued and
the listeners are called; the session hands the notices to the model (see ``AgentSession``). A job
a ``wait_jobs`` call waits for (:meth:`JobManager.wait`) queues none: that call tells it. A job
stopped with :meth:`JobManager.stop` or :meth:`JobManager.stop_all` sends no notice: whoever stopped
it knows. Output shown to the model passes through ``mask`` (saved secrets and passwords hidden).

A foreground command of a session with jobs runs through :meth:`JobManager.run_waited`: started like a
job (its output to ``job-N.log``, also kept in memory as ``ProcessRunner.run`` keeps it) and waited on
with the timeout, so that :meth:`JobManager.move_waiting_to_background` (ctrl+b, the RPC ``background``
command) can make it a job without restarting it. A command that ends while waited on gives its id
back when no later job took one, and its file is deleted, as if it had run with ``ProcessRunner.run``.

A subagent job (:meth:`JobManager.start_agent`) runs a coroutine; its output file holds a line while
it works and its report once it ends, and its notice carries the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from circle.domain.errors import ToolError
from circle.domain.messages import Usage

from .job_work import (
    AgentReport,
    AgentWork,
    Job,
    JobKind,
    JobStatus,
    JobWork,
    MovedToBackground,
    OutputFollower,
)
from .ports.file_system import FileSystem
from .ports.process_runner import ProcessResult, ProcessRunner, RunningProcess

MAX_JOBS = 16
NOTICE_LINES = 10
LINE_WIDTH = 300
REPORT_LIMIT = 30_000
DRAIN_GRACE_S = 0.5
_LOG_NAME = re.compile(r"job-(\d+)\.log")


@dataclass
class _Waiting:
    """A foreground command being waited on (see :meth:`JobManager.run_waited`)."""

    job_id: str
    command: str
    started: float
    path: str
    process: RunningProcess
    moved: asyncio.Event = field(default_factory=asyncio.Event)
    job: Job | None = None


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
        self._started_listeners: list[Callable[[Job], None]] = []
        self._usage_listeners: list[Callable[[Usage], None]] = []
        self._watchers: set[asyncio.Task[None]] = set()
        self._waiting: list[_Waiting] = []

    def on_started(self, listener: Callable[[Job], None]) -> None:
        """Call ``listener`` with each job as it starts (the model's, a subagent, a moved command)."""
        self._started_listeners.append(listener)

    def on_ended(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` each time a job ends by itself (its notice is then waiting)."""
        self._listeners.append(listener)

    def on_usage(self, listener: Callable[[Usage], None]) -> None:
        """Call ``listener`` with the tokens of each subagent job that ends (also when stopped), so
        that they count in the session as a foreground subagent's do."""
        self._usage_listeners.append(listener)

    @property
    def jobs(self) -> list[Job]:
        return list(self._jobs.values())

    @property
    def running(self) -> list[Job]:
        return [job for job in self._jobs.values() if job.status == "running"]

    @property
    def waiting(self) -> list[str]:
        """The foreground commands being waited on now (what ctrl+b would move)."""
        return [waiting.command for waiting in self._waiting]

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

    def _check_room(self) -> None:
        if len(self.running) >= self.max_jobs:
            raise ToolError(
                f"{self.max_jobs} background jobs are running, the most at once: "
                "wait for one to end or stop one with stop_job"
            )

    async def start(self, command: str, *, cwd: str, env: Mapping[str, str] | None = None) -> Job:
        """Start ``command``; a :class:`ToolError` when :attr:`max_jobs` already run."""
        self._check_room()
        job_id = await self._new_id()
        path = posixpath.join(self.folder, f"{job_id}.log")
        process = await self._processes.start(command, cwd=cwd, output_path=path, env=env)
        job = Job(job_id, command, self._now(), path, work=process, process=process)
        self._watch_job(job)
        return job

    async def start_agent(self, label: str, run: Callable[[], Awaitable[AgentReport]]) -> Job:
        """Run ``run()`` (a subagent) as a job labelled ``label``; its report becomes the notice.

        Raises:
            ToolError: :attr:`max_jobs` already run (``run`` is then never called).
        """
        self._check_room()
        job_id = await self._new_id()
        path = posixpath.join(self.folder, f"{job_id}.log")
        with contextlib.suppress(OSError):
            await self._files.write_bytes(
                path, f"subagent {label}\n(working; its report comes here)\n".encode()
            )
        work = AgentWork(run, name=f"circle-{job_id}")
        self._watch_job(Job(job_id, label, self._now(), path, work=work, kind="agent"))
        return self._jobs[job_id]

    async def run_waited(
        self,
        command: str,
        *,
        cwd: str,
        timeout_s: float,
        output_limit: int,
        env: Mapping[str, str] | None = None,
        on_output: Callable[[str], None] | None = None,
    ) -> ProcessResult | MovedToBackground:
        """Run ``command`` in the foreground as ``ProcessRunner.run`` does (the same timeout, limit and
        process-group handling, cancellation included), unless the person moves it to the background
        meanwhile (:meth:`move_waiting_to_background`): then it goes on as a job, returned at once.

        ``on_output`` is told the output so far (all of it, kept as ``run`` keeps it) as the command
        starts, each time it has changed (checked every ``OUTPUT_POLL_S`` seconds while it is waited
        on), and once more as it ends if it changed since (see :class:`OutputFollower`)."""
        job_id = await self._new_id()
        path = posixpath.join(self.folder, f"{job_id}.log")
        try:
            process = await self._processes.start(
                command, cwd=cwd, output_path=path, env=env, output_limit=output_limit
            )
        except BaseException:
            self._give_back(job_id)
            raise
        waiting = _Waiting(job_id, command, self._now(), path, process)
        self._waiting.append(waiting)
        follower = None if on_output is None else OutputFollower(process, on_output)
        following = None if follower is None else asyncio.ensure_future(follower.follow())
        try:
            code = await self._wait_for(waiting, timeout_s)
        finally:
            if follower is not None and following is not None:
                following.cancel()
                follower.flush()
            if waiting in self._waiting:
                self._waiting.remove(waiting)
        if waiting.job is not None:
            return MovedToBackground(waiting.job, process.output())
        output = process.output()
        with contextlib.suppress(OSError):
            await self._files.delete(path)
        self._give_back(job_id)
        return ProcessResult(exit_code=code, output=output, timed_out=code is None)

    async def _wait_for(self, waiting: _Waiting, timeout_s: float) -> int | None:
        """The command's exit code, None when it timed out (then stopped) or was moved."""
        process = waiting.process
        exited = asyncio.ensure_future(process.exited())
        moved = asyncio.ensure_future(waiting.moved.wait())
        try:
            try:
                await asyncio.wait([exited, moved], timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if waiting.job is None:
                    self._waiting.remove(waiting)  # from here on it can no longer be moved
                code = exited.result() if exited.done() and not exited.cancelled() else None
                exited.cancel()
                moved.cancel()
            if waiting.job is not None:
                return None
            if code is None:
                await process.stop()
                return None
            ending = asyncio.ensure_future(process.wait())
            await asyncio.wait([ending], timeout=DRAIN_GRACE_S)
            if not ending.done():  # something it started still holds the output: as ``run`` does
                await process.stop()
            await ending
            return code
        except asyncio.CancelledError:
            if waiting.job is None:
                await asyncio.shield(process.stop())
            raise

    async def move_waiting_to_background(self) -> int:
        """Make every foreground command being waited on a background job (ctrl+b, the RPC
        ``background`` command), without restarting it; how many were moved (0: none waited).

        Each waiting ``execute`` call then returns at once, saying the command goes on as its job and
        giving its output so far; its end sends a notice like any job's. The person's move is not held
        to :attr:`max_jobs`.
        """
        moved, self._waiting = self._waiting, []
        for waiting in moved:
            job = Job(
                waiting.job_id,
                waiting.command,
                waiting.started,
                waiting.path,
                work=waiting.process,
                process=waiting.process,
            )
            self._watch_job(job)
            waiting.job = job
            waiting.moved.set()
        return len(moved)

    async def stop(self, job_id: str) -> Job:
        """Stop one job with its process group (a job that has ended keeps its status)."""
        job = self.get(job_id)
        if job.status == "running":
            job.status = "stopped"
        await job.work.stop()
        return job

    async def stop_all(self) -> int:
        """Stop every job's process group; how many were still running."""
        running = self.running
        for job in running:
            job.status = "stopped"
        await asyncio.gather(*(job.work.stop() for job in self._jobs.values()))
        for watcher in list(self._watchers):
            watcher.cancel()
        return len(running)

    async def wait(self, jobs: Sequence[Job], *, timeout_s: float) -> None:
        """Wait until every one of ``jobs`` has ended, or ``timeout_s`` seconds have passed.

        A job that ends meanwhile by itself queues no notice: its end (``Job.notice``) is the
        waiter's to tell. One still running at the deadline goes on, and its end is a notice again.
        """
        for job in jobs:
            job.awaited += 1
        try:
            ends = [asyncio.ensure_future(job.ended.wait()) for job in jobs]
            try:
                if ends:
                    await asyncio.wait(ends, timeout=timeout_s)
            finally:
                for end in ends:
                    end.cancel()
        finally:
            for job in jobs:
                job.awaited -= 1

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

    def _watch_job(self, job: Job) -> None:
        self._jobs[job.id] = job
        for listener in list(self._started_listeners):
            listener(job)
        watcher = asyncio.create_task(self._watch(job), name=f"circle-watch-{job.id}")
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def _watch(self, job: Job) -> None:
        try:
            await self._see_end(job)
        finally:
            job.ended.set()

    async def _see_end(self, job: Job) -> None:
        code = await job.work.wait()
        if isinstance(job.work, AgentWork) and job.work.report is not None and job.work.report.usage:
            for count in list(self._usage_listeners):
                count(job.work.report.usage)
        if job.status != "running":
            return
        job.status, job.exit_code = "exited", code
        if isinstance(job.work, AgentWork):
            job.notice = await self._agent_notice(job, job.work.report or AgentReport("", failed=True))
        else:
            job.notice = await self._command_notice(job)
        if not job.awaited:  # a wait_jobs call waiting for it is told instead
            self._notices.append(job.notice)
        for listener in list(self._listeners):
            listener()

    async def _command_notice(self, job: Job) -> str:  # the shape notice_for_person reads
        tail = await self.tail(job, lines=NOTICE_LINES)
        last = f"; last lines of {job.output_path}:\n{tail}" if tail else "; it wrote no output"
        command = job.command if len(job.command) <= 200 else job.command[:200] + " …"
        return f"[{job.id} ({self._mask(command)}) {job.describe()}{last}]"

    async def _agent_notice(self, job: Job, report: AgentReport) -> str:
        text = report.text.strip() or "(the subagent gave no answer)"
        with contextlib.suppress(OSError):
            await self._files.write_bytes(job.output_path, (text + "\n").encode())
        if len(text) > REPORT_LIMIT:
            text = f"{text[:REPORT_LIMIT]}\n… {len(text) - REPORT_LIMIT} more characters in the output file"
        where = job.output_path
        return f"[{job.id} (subagent {job.command}) {job.describe()}; its report (also in {where}):\n{text}]"

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

    def _give_back(self, job_id: str) -> None:
        """Let the next job have ``job_id`` again when no later id was given meanwhile."""
        if self._next is not None and job_id == f"job-{self._next - 1}":
            self._next -= 1


_NOTICE = re.compile(
    r"\[(?P<head>[^\n]*?); (?:last lines of [^\n]*|its report \(also in [^\n]*\)):\n(?P<body>.*)\]", re.S
)


def notice_for_person(notice: str) -> str:
    """A job's notice as the person reads it on its row: the job, what it ran and how it ended,
    then the lines it ended with, without the brackets and the output file's path the model is
    given (/jobs and the strip show where it is)."""
    found = _NOTICE.fullmatch(notice)
    if found is not None:
        return f"{found['head']}\n{found['body']}"
    if notice.startswith("[") and notice.endswith("]"):
        return notice[1:-1]
    return notice


__all__ = [
    "MAX_JOBS",
    "AgentReport",
    "Job",
    "JobKind",
    "JobManager",
    "JobStatus",
    "JobWork",
    "MovedToBackground",
    "notice_for_person",
]
