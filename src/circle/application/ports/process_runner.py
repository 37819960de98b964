"""ProcessRunner: shell commands in their own process group, run to the end or started to run on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ProcessResult:
    exit_code: int | None
    output: str
    timed_out: bool = False
    truncated: bool = False
    stderr: str = ""
    """The error stream, when the run asked for it apart (``separate_stderr``); else empty."""


class RunningProcess(Protocol):
    """A command :meth:`ProcessRunner.start` left running, its output going to a file."""

    @property
    def pid(self) -> int:
        """The command's process id, which is also its process group's."""
        ...

    async def exited(self) -> int:
        """Its exit code as soon as the command itself has exited, even while something it started
        still holds its output (:meth:`wait` waits for that too)."""
        ...

    def output(self) -> str:
        """What it wrote so far, kept as :meth:`ProcessRunner.run` keeps it: up to the ``output_limit``
        given to :meth:`ProcessRunner.start`, the head and the tail around a ``… N characters cut …``
        line; empty when ``start`` was given no limit (the output file has it all)."""
        ...

    async def wait(self) -> int:
        """Its exit code, once it has exited and nothing it started still writes its output.

        A command killed by a signal reports the negative signal number (128 + it in the sandbox).
        """
        ...

    async def stop(self) -> None:
        """Stop the whole process group (SIGTERM, then SIGKILL), whether the command itself still
        runs or not, and wait for it; stopping again does nothing."""
        ...


class ProcessRunner(Protocol):
    """Runs ``command`` with the shell; stdout and stderr interleaved in ``output``.

    With ``separate_stderr`` the error stream goes to ``stderr`` instead, each stream kept to
    ``output_limit``. ``stdin`` is written to the command's input, which is then closed (without it
    the command reads nothing). On timeout, and when the awaiting task is cancelled, the whole
    process group is killed (cancellation then propagates).
    """

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
    ) -> ProcessResult: ...

    async def start(
        self,
        command: str,
        *,
        cwd: str,
        output_path: str,
        env: Mapping[str, str] | None = None,
        output_limit: int = 0,
    ) -> RunningProcess:
        """Start ``command`` in a process group of its own and return at once.

        Its stdout and stderr are appended to ``output_path`` (its folder made) as they come; its
        input is empty. It runs until it ends or :meth:`RunningProcess.stop`; nothing times it out.
        With ``output_limit`` the output is also kept in memory as ``run`` keeps it
        (:meth:`RunningProcess.output`), so a caller may wait on it as on ``run`` and still let it go on.
        """
        ...
