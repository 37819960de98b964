"""Fakes of the local ports: files, processes, text search and the clock.

Each keeps its state in plain attributes for tests to set up and assert on, and follows the same
contract as its real adapter in ``circle.adapters.local`` (``tests/contract`` holds both to it).
"""

from __future__ import annotations

import asyncio
import fnmatch
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from circle.application.ports.process_runner import ProcessResult
from circle.application.ports.text_search import GrepLine, GrepQuery, GrepResult

from .files import InMemoryFileSystem, _expand_braces, _match_parts, _parts, _split_lines


class InMemoryTextSearch:
    """The ``TextSearch`` port over an ``InMemoryFileSystem``, with Python's ``re``.

    Follows ripgrep's rules as ``RipgrepSearch`` uses it: hidden files searched, ``.git`` and files
    with a NUL byte skipped, a ``glob`` without ``/`` matched against file names, ``!`` negating,
    ``exclude_globs`` matched against every part of the path, ignoring case.

    Attributes:
        queries: Every query received, in order.
    """

    def __init__(self, files: InMemoryFileSystem) -> None:
        self.files = files
        self.queries: list[GrepQuery] = []

    async def grep(self, query: GrepQuery) -> GrepResult:
        self.queries.append(query)
        source = re.escape(query.pattern) if query.literal else query.pattern
        try:
            regex = re.compile(source, re.IGNORECASE if query.case_insensitive else 0)
        except re.error as exc:
            raise ValueError(f"regex parse error: {exc}") from None
        out = GrepResult()
        for path, data in self._targets(query):
            if b"\0" in data:
                continue
            lines = _split_lines(data)
            if not _grep_file(path, lines, regex, query, out):
                return GrepResult(lines=out.lines, counts=out.counts, truncated=True)
        return out

    def _targets(self, query: GrepQuery) -> list[tuple[str, bytes]]:
        fs = self.files
        path = posixpath.normpath(query.path)
        real = fs._resolve(path)
        if not fs._is_dir(real):
            return [(path, fs.files[fs._existing(path, want_dir=False)])]
        targets = []
        for rel in sorted(fs._files_below(real)):
            if ".git" in rel.split("/")[:-1] or (query.glob and not _rg_glob(query.glob, rel)):
                continue
            if any(_rg_excluded(glob, rel) for glob in query.exclude_globs):
                continue
            if posixpath.join(real, rel) in fs.files:  # ripgrep does not follow links
                targets.append((posixpath.join(path, rel), fs.files[posixpath.join(real, rel)]))
        return targets


def _rg_glob(glob: str, rel: str) -> bool:
    negate = glob.startswith("!")
    glob = glob.removeprefix("!")
    parts = rel.split("/")
    hit = any(
        _match_parts(_parts(g), parts) if "/" in g else fnmatch.fnmatchcase(parts[-1], g)
        for g in _expand_braces(glob)
    )
    return hit != negate


def _rg_excluded(glob: str, rel: str) -> bool:
    """ripgrep's ``--iglob '!glob'``: a glob without ``/`` names any part of the path (a folder
    excludes what is below it), one with ``/`` the whole path; case ignored."""
    parts = rel.lower().split("/")
    for g in _expand_braces(glob.lower()):
        if "/" in g:
            if _match_parts(_parts(g), parts):
                return True
        elif any(fnmatch.fnmatchcase(part, g) for part in parts):
            return True
    return False


def _grep_file(
    path: str, lines: list[str], regex: re.Pattern[str], query: GrepQuery, out: GrepResult
) -> bool:
    """Add one file's lines to ``out``; False when a match beyond ``max_matches`` was met."""
    matches = {n for n, text in enumerate(lines, start=1) if regex.search(text)}
    wanted = sorted(
        {n for m in matches for n in range(m - query.context, m + query.context + 1) if 1 <= n <= len(lines)}
    )
    kept = sum(out.counts.values())
    last: int | None = None
    for n in wanted:
        if n in matches:
            if kept >= query.max_matches:
                return False
            kept += 1
            out.counts[path] = out.counts.get(path, 0) + 1
            last = n
        elif kept >= query.max_matches and not (last is not None and 0 < n - last <= query.context):
            continue
        out.lines.append(GrepLine(path=path, line=n, text=lines[n - 1], is_match=n in matches))
    return True


@dataclass(frozen=True, slots=True)
class Hang:
    """A scripted command that does not end by itself: it times out, or its caller cancels it."""

    output: str = ""


@dataclass(frozen=True, slots=True)
class ProcessCall:
    command: str
    cwd: str
    timeout_s: float
    output_limit: int
    env: dict[str, str] | None
    stdin: str | None = None
    separate_stderr: bool = False


Script = Mapping[str, ProcessResult | Hang] | Callable[[str], ProcessResult | Hang]


class FakeRunningProcess:
    """A started command of :class:`FakeProcessRunner`: it runs until ``finish`` or ``stop``.

    Attributes:
        command, cwd, output_path, env, output_limit: What it was started with.
        exit_code: Set when it ended (-15 when stopped). stopped: Whether ``stop`` ended it.
    """

    def __init__(
        self,
        runner: FakeProcessRunner,
        command: str,
        *,
        cwd: str,
        output_path: str,
        env: dict[str, str] | None,
        pid: int,
        output_limit: int = 0,
    ) -> None:
        self._runner = runner
        self.command = command
        self.cwd = cwd
        self.output_path = output_path
        self.env = env
        self.pid = pid
        self.output_limit = output_limit
        self.exit_code: int | None = None
        self.stopped = False
        self._ended = asyncio.Event()
        self._written = ""

    @property
    def running(self) -> bool:
        return self.exit_code is None

    def write(self, text: str) -> None:
        """Append ``text`` to the output file, as the command would."""
        self._written += text
        self._runner.append_output(self.output_path, text)

    def output(self) -> str:
        return _cap(self._written, self.output_limit)[0] if self.output_limit else ""

    async def exited(self) -> int:
        return await self.wait()

    def finish(self, exit_code: int = 0, output: str = "") -> None:
        """End the command with ``exit_code``, ``output`` written first; nothing if it has ended."""
        if self.exit_code is not None:
            return
        if output:
            self.write(output)
        self.exit_code = exit_code
        self._ended.set()

    async def wait(self) -> int:
        await self._ended.wait()
        assert self.exit_code is not None
        return self.exit_code

    async def stop(self) -> None:
        if self.exit_code is None:
            self.stopped = True
            self.finish(-15)


class FakeProcessRunner:
    """The ``ProcessRunner`` port answering from a script instead of running anything.

    A scripted result's ``stderr`` stays apart when the call asks for ``separate_stderr``, and is
    appended to ``output`` when it does not. ``start`` follows the same script: a result is written
    to the output file and the command ends with its exit code at once; ``Hang()`` writes its output
    and runs until the test calls ``finish`` on it, or it is stopped.

    Args:
        script: Command -> result (or ``Hang()``), as a mapping or a function.
        default: The answer for a command the script does not know; without one, exit code 127.
        files: Where started commands write their output files; without one, only ``outputs``.

    Attributes:
        calls: Every call, in order. timed_out, cancelled: the commands that hung and ended so.
        started: Every started command, in order. outputs: Output path -> what was written there.
    """

    def __init__(
        self,
        script: Script | None = None,
        *,
        default: ProcessResult | None = None,
        files: InMemoryFileSystem | None = None,
    ) -> None:
        self.script: Script = script if script is not None else {}
        self.default = default
        self.files = files
        self.calls: list[ProcessCall] = []
        self.timed_out: list[str] = []
        self.cancelled: list[str] = []
        self.started: list[FakeRunningProcess] = []
        self.outputs: dict[str, str] = {}

    async def start(
        self,
        command: str,
        *,
        cwd: str,
        output_path: str,
        env: Mapping[str, str] | None = None,
        output_limit: int = 0,
    ) -> FakeRunningProcess:
        given_env = None if env is None else dict(env)
        process = FakeRunningProcess(
            self,
            command,
            cwd=cwd,
            output_path=output_path,
            env=given_env,
            pid=40_000 + len(self.started),
            output_limit=output_limit,
        )
        self.started.append(process)
        self.append_output(output_path, "")
        outcome = self._outcome(command)
        process.write(outcome.output + ("" if isinstance(outcome, Hang) else outcome.stderr))
        if isinstance(outcome, ProcessResult):
            process.finish(outcome.exit_code if outcome.exit_code is not None else -9)
        return process

    def append_output(self, path: str, text: str) -> None:
        self.outputs[path] = self.outputs.get(path, "") + text
        if self.files is not None:
            self.files.put(path, self.outputs[path])

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
        given_env = None if env is None else dict(env)
        self.calls.append(
            ProcessCall(command, cwd, timeout_s, output_limit, given_env, stdin, separate_stderr)
        )
        outcome = self._outcome(command)
        if isinstance(outcome, Hang):
            try:
                await asyncio.sleep(timeout_s)
            except asyncio.CancelledError:
                self.cancelled.append(command)
                raise
            self.timed_out.append(command)
            outcome = ProcessResult(exit_code=None, output=outcome.output, timed_out=True)
        stdout = outcome.output if separate_stderr else outcome.output + outcome.stderr
        output, truncated = _cap(stdout, output_limit)
        stderr, stderr_truncated = _cap(outcome.stderr, output_limit) if separate_stderr else ("", False)
        return ProcessResult(
            exit_code=outcome.exit_code,
            output=output,
            timed_out=outcome.timed_out,
            truncated=outcome.truncated or truncated or stderr_truncated,
            stderr=stderr,
        )

    def _outcome(self, command: str) -> ProcessResult | Hang:
        if callable(self.script):
            return self.script(command)
        if command in self.script:
            return self.script[command]
        return self.default or ProcessResult(exit_code=127, output=f"fake: no script for {command!r}\n")


def _cap(output: str, limit: int) -> tuple[str, bool]:
    """The head and tail of ``output`` around a ``… N characters cut …`` line, as the real runner does."""
    limit = max(limit, 0)
    if len(output) <= limit:
        return output, False
    head, tail = output[: limit // 2], output[len(output) - (limit - limit // 2) :] if limit else ""
    gap = "" if not head or head.endswith("\n") else "\n"
    return f"{head}{gap}… {len(output) - len(head) - len(tail)} characters cut …\n{tail}", True


class FakeClock:
    """The ``Clock`` port on manual time: ``sleep`` returns at once, moving time on.

    Attributes:
        sleeps: Every ``sleep`` asked for, in seconds, in order.
    """

    def __init__(self, *, now: float = 1_700_000_000.0, monotonic: float = 1000.0) -> None:
        self._now = now
        self._monotonic = monotonic
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        return self._monotonic

    def advance(self, seconds: float) -> None:
        self._now += seconds
        self._monotonic += seconds

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(max(seconds, 0.0))
        await asyncio.sleep(0)


__all__ = [
    "FakeClock",
    "FakeProcessRunner",
    "FakeRunningProcess",
    "Hang",
    "InMemoryFileSystem",
    "InMemoryTextSearch",
    "ProcessCall",
    "Script",
]
