"""LocalProcessRunner: the ``ProcessRunner`` port with bash, each command in its own process group.

The command runs as ``bash -c`` (``sh -c`` where there is no bash) in a new session, so its process
group holds everything it starts. stdout and stderr share one pipe, so their lines keep their order;
with ``separate_stderr`` stderr has a pipe of its own. ``stdin`` is written to the command's input
while it runs, then closed (a command that does not read it is fine); without it the input is
``/dev/null``.

- Output is read as it comes; past ``output_limit`` characters only the head and the tail are kept,
  joined by a line ``… N characters cut …``, and ``truncated`` is set.
- On timeout the group gets SIGTERM, then SIGKILL after up to ``TERM_GRACE_S``; the result has
  ``timed_out=True``, ``exit_code=None`` and the output captured so far.
- When the awaiting task is cancelled the group is killed the same way (a shorter grace), the child is
  reaped and the cancellation propagates.
- When the command exits while something it started still holds the output pipe, reading stops after
  ``DRAIN_GRACE_S`` and the group is killed, so ``run`` never hangs on a background child. A child that
  has let go of the pipe (``server >log 2>&1 &``) is left running.
- A command killed by a signal reports the negative signal number as its exit code, as ``asyncio`` does.
- Circle killed with SIGKILL takes the command's shell along, a started one's too
  (:mod:`._parent_death`, Linux); a Circle that has to leave at once (``entrypoints/_exit_guard.py``)
  kills the groups of the commands and jobs still running (:mod:`._exit_stop`).

``start`` leaves a command running (a background job) in the same kind of group: its output goes
through a pipe that Circle appends to the output file as it comes, so the job counts as running until
the command has exited and nothing it started holds the output any more. ``stop`` signals the group
even after the command itself has exited, so what it left behind goes too. With ``output_limit`` the
output is also kept in memory as ``run`` keeps it (``output()``), and ``exited()`` tells when the
command itself ended: enough for a caller to wait on a started command as ``run`` does.

With a ``sandbox`` policy (see :mod:`circle.domain.sandbox`) every command runs as
``bwrap … -- bash -c COMMAND``: bwrap leads the process group, so timeouts and cancellation still
stop everything. In the sandbox a command's own PID namespace ends with it, so a background child
never outlives the command, and a command killed by a signal reports 128 + the signal number, as
bwrap does. Where ``bwrap`` is not on the command's PATH the command is refused with a
``ToolError``, never run unsandboxed. What the sandbox hides and keeps read-only is looked for anew
before each command (:func:`~circle.adapters.local.sandbox.find_mounts`, in a worker thread).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Mapping
from typing import BinaryIO

from circle.application.ports.process_runner import ProcessResult
from circle.domain.errors import ToolError
from circle.domain.sandbox import SandboxPolicy, bwrap_argv

from ._exit_stop import forget, track
from ._parent_death import die_with_parent
from .sandbox import NOT_INSTALLED, empty_file, find_bwrap, find_mounts, resolved

TERM_GRACE_S = 1.0
CANCEL_GRACE_S = 0.2
DRAIN_GRACE_S = 0.5
_CHUNK = 65536


class LocalProcessRunner:
    """The ``ProcessRunner`` port over ``asyncio`` subprocesses."""

    def __init__(self, *, shell: str | None = None, sandbox: SandboxPolicy | None = None) -> None:
        """Args:
        shell: The shell to run commands with; ``/bin/bash``, else ``/bin/sh``.
        sandbox: Run every command under bubblewrap with this policy (None or mode ``off``: not).
        """
        self._shell = shell
        self._sandbox = sandbox if sandbox is not None and sandbox.active else None

    async def run(
        self,
        command: str,
        *,
        cwd: str,
        timeout_s: float,
        output_limit: int,
        env: Mapping[str, str] | None = None,
        stdin: str | None = None,
        separate_stderr: bool = False,
    ) -> ProcessResult:
        shell = self._shell or ("/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh")
        argv = await self._argv([shell, "-c", command], cwd=cwd, env=env)
        transports: list[asyncio.BaseTransport] = []
        write_fds: list[int] = []
        try:
            try:
                out = await _open_pipe(transports, write_fds)
                err = await _open_pipe(transports, write_fds) if separate_stderr else None
                proc = await asyncio.create_subprocess_exec(
                    *argv,
                    cwd=cwd,
                    env=dict(env) if env is not None else None,
                    stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
                    stdout=write_fds[0],
                    stderr=asyncio.subprocess.STDOUT if err is None else write_fds[1],
                    start_new_session=True,
                    preexec_fn=die_with_parent(),  # SIGKILLed, Circle takes it along
                )
            finally:
                for fd in write_fds:
                    os.close(fd)
            streams = [(out, _Output(output_limit))]
            if err is not None:
                streams.append((err, _Output(output_limit)))
            feed = None if stdin is None or proc.stdin is None else (proc.stdin, stdin.encode())
            track(proc.pid)  # its group, killed should Circle have to leave before it ends
            try:
                return await _supervise(proc, streams, feed=feed, timeout_s=timeout_s)
            finally:
                forget(proc.pid)
        finally:
            for transport in transports:
                transport.close()

    async def start(
        self,
        command: str,
        *,
        cwd: str,
        output_path: str,
        env: Mapping[str, str] | None = None,
        output_limit: int = 0,
    ) -> LocalRunningProcess:
        shell = self._shell or ("/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh")
        argv = await self._argv([shell, "-c", command], cwd=cwd, env=env)
        os.makedirs(os.path.dirname(output_path) or ".", exist_ok=True)
        sink = open(output_path, "ab", buffering=0)  # noqa: SIM115 - closed by the handle
        transports: list[asyncio.BaseTransport] = []
        write_fds: list[int] = []
        try:
            try:
                out = await _open_pipe(transports, write_fds)
                proc = await asyncio.create_subprocess_exec(
                    *argv,
                    cwd=cwd,
                    env=dict(env) if env is not None else None,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=write_fds[0],
                    stderr=asyncio.subprocess.STDOUT,
                    start_new_session=True,
                    preexec_fn=die_with_parent(),  # its output goes through Circle: unwatched without it
                )
            finally:
                for fd in write_fds:
                    os.close(fd)
        except BaseException:
            for transport in transports:
                transport.close()
            sink.close()
            raise
        track(proc.pid)  # its group, killed at exit if the program never stops it
        return LocalRunningProcess(
            proc,
            out,
            sink=sink,
            transport=transports[0],
            kept=_Output(output_limit) if output_limit else None,
        )

    async def _argv(self, command: list[str], *, cwd: str, env: Mapping[str, str] | None) -> list[str]:
        """``command``, or the bwrap command line running it sandboxed."""
        policy = self._sandbox
        if policy is None:
            return command
        bwrap = find_bwrap(env)
        if bwrap is None:
            raise ToolError(f"the sandbox cannot start: {NOT_INSTALLED}; the command did not run")
        if policy.mode == "workspace-write":
            for folder in policy.writable:
                with contextlib.suppress(OSError):
                    os.makedirs(folder, exist_ok=True)
        policy = resolved(policy)
        mounts = await asyncio.to_thread(find_mounts, policy, env=env)
        try:
            empty = empty_file()
        except OSError as exc:
            raise ToolError(
                f"the sandbox cannot start: no empty file to hide files with ({exc}); the command did not run"
            ) from exc
        cwd = os.path.realpath(cwd)
        return bwrap_argv(policy, command, cwd=cwd, bwrap=bwrap, mounts=mounts, empty_file=empty)


class LocalRunningProcess:
    """A background command: its output copied to its file until every holder of the pipe lets go."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        out: asyncio.StreamReader,
        *,
        sink: BinaryIO,
        transport: asyncio.BaseTransport,
        kept: _Output | None = None,
    ) -> None:
        self._proc = proc
        self._sink = sink
        self._transport = transport
        self._kept = kept
        self._copying = asyncio.create_task(_copy(out, sink, kept))

    @property
    def pid(self) -> int:
        return self._proc.pid

    async def exited(self) -> int:
        return await asyncio.shield(self._proc.wait())

    def output(self) -> str:
        return self._kept.text() if self._kept is not None else ""

    async def wait(self) -> int:
        code = await asyncio.shield(self._proc.wait())
        await asyncio.wait([self._copying])
        self._close()
        return code

    async def stop(self) -> None:
        _signal_group(self._proc.pid, signal.SIGTERM)
        ending = asyncio.ensure_future(self._ended())
        await asyncio.wait([ending], timeout=TERM_GRACE_S)
        ending.cancel()
        _signal_group(self._proc.pid, signal.SIGKILL)
        await asyncio.shield(self._proc.wait())
        await asyncio.wait([self._copying], timeout=DRAIN_GRACE_S)  # a child outside the group may hold it
        self._close()

    async def _ended(self) -> None:
        await self._proc.wait()
        await asyncio.wait([self._copying])

    def _close(self) -> None:
        forget(self._proc.pid)
        if not self._copying.done():
            self._copying.cancel()
        self._transport.close()
        self._sink.close()


async def _copy(reader: asyncio.StreamReader, sink: BinaryIO, kept: _Output | None) -> None:
    while chunk := await reader.read(_CHUNK):
        if kept is not None:
            kept.feed(chunk)
        with contextlib.suppress(OSError):  # a full disk: keep draining so the job never blocks
            sink.write(chunk)
    if kept is not None:
        kept.feed(b"", final=True)


async def _open_pipe(transports: list[asyncio.BaseTransport], write_fds: list[int]) -> asyncio.StreamReader:
    """A pipe whose read end feeds the returned reader; its transport and write end go to the lists."""
    read_fd, write_fd = os.pipe()
    reader = asyncio.StreamReader(limit=_CHUNK)
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    try:
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
    except BaseException:
        pipe.close()
        os.close(write_fd)
        raise
    transports.append(transport)
    write_fds.append(write_fd)
    return reader


async def _supervise(
    proc: asyncio.subprocess.Process,
    streams: list[tuple[asyncio.StreamReader, _Output]],
    *,
    feed: tuple[asyncio.StreamWriter, bytes] | None,
    timeout_s: float,
) -> ProcessResult:
    """Collect the output while the command runs; stop its group on timeout or cancellation."""
    reading = asyncio.create_task(_read_streams(streams))
    feeding = asyncio.create_task(_feed(*feed)) if feed is not None else None
    output = streams[0][1]
    errors = streams[1][1] if len(streams) > 1 else None
    try:
        try:
            async with asyncio.timeout(timeout_s):
                await proc.wait()
        except TimeoutError:
            await _stop_group(proc, grace=TERM_GRACE_S)
            await _finish_reading(reading, proc.pid)
            return _result(None, output, errors, timed_out=True)
        await _finish_reading(reading, proc.pid)
        return _result(proc.returncode, output, errors, timed_out=False)
    except BaseException:  # cancelled (or failed): take the whole group down with us
        await _stop_group(proc, grace=CANCEL_GRACE_S)
        raise
    finally:
        tasks = [reading] if feeding is None else [reading, feeding]
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks)


def _result(
    exit_code: int | None, output: _Output, errors: _Output | None, *, timed_out: bool
) -> ProcessResult:
    return ProcessResult(
        exit_code=exit_code,
        output=output.text(),
        timed_out=timed_out,
        truncated=output.truncated or (errors is not None and errors.truncated),
        stderr=errors.text() if errors is not None else "",
    )


async def _feed(stdin: asyncio.StreamWriter, data: bytes) -> None:
    """Write ``data`` to the command's input and close it; a command that stops reading is fine."""
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(data)
        await stdin.drain()
    stdin.close()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        await stdin.wait_closed()


class _Output:
    """The first and last characters of a stream, and how many were cut between them."""

    def __init__(self, limit: int) -> None:
        self._head_size = max(limit, 0) // 2
        self._tail_size = max(limit, 0) - self._head_size
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self._total = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes, *, final: bool = False) -> None:
        text = self._decoder.decode(data, final)
        self._total += len(text)
        if self._head_len < self._head_size:
            take = text[: self._head_size - self._head_len]
            self._head.append(take)
            self._head_len += len(take)
            text = text[len(take) :]
        if text and self._tail_size:
            self._tail += text
            if len(self._tail) > 2 * self._tail_size:
                self._tail = self._tail[-self._tail_size :]

    @property
    def truncated(self) -> bool:
        return self._total > self._head_size + self._tail_size

    def text(self) -> str:
        head = "".join(self._head)
        if not self.truncated:
            return head + self._tail
        tail = self._tail[-self._tail_size :] if self._tail_size else ""
        cut = self._total - len(head) - len(tail)
        gap = "" if not head or head.endswith("\n") else "\n"
        return f"{head}{gap}… {cut} characters cut …\n{tail}"


async def _read_all(reader: asyncio.StreamReader, output: _Output) -> None:
    while chunk := await reader.read(_CHUNK):
        output.feed(chunk)
    output.feed(b"", final=True)


async def _read_streams(streams: list[tuple[asyncio.StreamReader, _Output]]) -> None:
    await asyncio.gather(*(_read_all(reader, output) for reader, output in streams))


async def _finish_reading(reading: asyncio.Task[None], pgid: int) -> None:
    """Wait for the rest of the output; kill the group if a background child keeps the pipe open."""
    await asyncio.wait([reading], timeout=DRAIN_GRACE_S)
    if not reading.done():
        _signal_group(pgid, signal.SIGKILL)
        await asyncio.wait([reading], timeout=DRAIN_GRACE_S)  # a child outside the group may hold it
    if reading.done() and not reading.cancelled():
        reading.result()


async def _stop_group(proc: asyncio.subprocess.Process, *, grace: float) -> None:
    """SIGTERM the group, give the command ``grace`` seconds, SIGKILL the group and reap the command."""
    if proc.returncode is None:
        _signal_group(proc.pid, signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(proc.wait()), grace)
    _signal_group(proc.pid, signal.SIGKILL)
    await asyncio.shield(proc.wait())


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


__all__ = ["LocalProcessRunner", "LocalRunningProcess"]
