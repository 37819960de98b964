"""ProcessRunner: shell commands in their own process group."""

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
