"""LocalProcessRunner: the ``ProcessRunner`` port with bash, each command in its own process group.

The command runs as ``bash -c`` (``sh -c`` where there is no bash) in a new session, so its process
group holds everything it starts. stdout and stderr share one pipe, so their lines keep their order.

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
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Mapping

from circle.application.ports.process_runner import ProcessResult

TERM_GRACE_S = 1.0
CANCEL_GRACE_S = 0.2
DRAIN_GRACE_S = 0.5
_CHUNK = 65536


class LocalProcessRunner:
    """The ``ProcessRunner`` port over ``asyncio`` subprocesses."""

    def __init__(self, *, shell: str | None = None) -> None:
        """Args:
        shell: The shell to run commands with; ``/bin/bash``, else ``/bin/sh``.
        """
        self._shell = shell

    async def run(
        self,
        command: str,
        *,
        cwd: str,
        timeout_s: float,
        output_limit: int,
        env: Mapping[str, str] | None = None,
    ) -> ProcessResult:
        shell = self._shell or ("/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh")
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
        try:
            try:
                proc = await asyncio.create_subprocess_exec(
                    shell,
                    "-c",
                    command,
                    cwd=cwd,
                    env=dict(env) if env is not None else None,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=write_fd,
                    stderr=asyncio.subprocess.STDOUT,
                    start_new_session=True,
                )
            finally:
                os.close(write_fd)
            return await _supervise(proc, reader, timeout_s=timeout_s, output_limit=output_limit)
        finally:
            transport.close()


async def _supervise(
    proc: asyncio.subprocess.Process, reader: asyncio.StreamReader, *, timeout_s: float, output_limit: int
) -> ProcessResult:
    """Collect the output while the command runs; stop its group on timeout or cancellation."""
    output = _Output(output_limit)
    reading = asyncio.create_task(_read_all(reader, output))
    try:
        try:
            async with asyncio.timeout(timeout_s):
                await proc.wait()
        except TimeoutError:
            await _stop_group(proc, grace=TERM_GRACE_S)
            await _finish_reading(reading, proc.pid)
            return ProcessResult(
                exit_code=None, output=output.text(), timed_out=True, truncated=output.truncated
            )
        await _finish_reading(reading, proc.pid)
        return ProcessResult(exit_code=proc.returncode, output=output.text(), truncated=output.truncated)
    except BaseException:  # cancelled (or failed): take the whole group down with us
        await _stop_group(proc, grace=CANCEL_GRACE_S)
        raise
    finally:
        reading.cancel()
        await asyncio.wait([reading])


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


__all__ = ["LocalProcessRunner"]
