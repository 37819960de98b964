"""Fakes of the local ports: files, processes, text search and the clock.

Each keeps its state in plain attributes for tests to set up and assert on, and follows the same
contract as its real adapter in ``circle.adapters.local`` (``tests/contract`` holds both to it).
"""

from __future__ import annotations

import asyncio
import errno
import fnmatch
import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from circle.application.ports.file_system import FileInfo, LineWindow
from circle.application.ports.process_runner import ProcessResult
from circle.application.ports.text_search import GrepLine, GrepQuery, GrepResult

SKIPPED_FOLDERS = frozenset({".git", "node_modules", ".venv", "__pycache__"})


def _error(cls: type[OSError], code: int, path: str) -> OSError:
    return cls(code, os.strerror(code), path)


class InMemoryFileSystem:
    """The ``FileSystem`` port over dictionaries, with the real one's semantics and errors.

    Attributes:
        files: Real path -> content. Folders are implied by the paths of files, links and ``dirs``.
        dirs: Folders made explicitly (empty ones).
        symlinks: Link path -> target, absolute or relative to the link's folder; followed by every
            operation but ``delete``, which removes the link itself.
        mtimes: Path -> modification time. Each write advances an internal clock by one second.
        writes: Real paths written through the port, in order.
        deleted: Paths deleted through the port, in order.
    """

    def __init__(
        self, files: Mapping[str, bytes | str] | None = None, *, symlinks: Mapping[str, str] | None = None
    ) -> None:
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = set()
        self.symlinks: dict[str, str] = dict(symlinks or {})
        self.mtimes: dict[str, float] = {}
        self.writes: list[str] = []
        self.deleted: list[str] = []
        self._time = 1_700_000_000.0
        for path, data in (files or {}).items():
            self.put(path, data)

    # Set-up helpers (synchronous, not part of the port).

    def put(self, path: str, data: bytes | str, *, mtime: float | None = None) -> None:
        """Create or replace a file without recording a write."""
        path = posixpath.normpath(path)
        self._time += 1
        self.files[path] = data.encode() if isinstance(data, str) else data
        self.mtimes[path] = self._time if mtime is None else mtime

    def mkdir(self, path: str) -> None:
        self.dirs.add(posixpath.normpath(path))

    def symlink(self, link: str, target: str) -> None:
        self.symlinks[posixpath.normpath(link)] = target

    # The port.

    async def resolve(self, path: str) -> str:
        return self._resolve(path)

    async def stat(self, path: str) -> FileInfo | None:
        real = self._resolve(path)
        if real in self.files:
            return FileInfo(path=path, kind="file", size=len(self.files[real]), mtime=self.mtimes[real])
        if self._is_dir(real):
            return FileInfo(path=path, kind="dir", size=0, mtime=self.mtimes.get(real, 0.0))
        return None

    async def list_dir(self, path: str) -> list[FileInfo]:
        real = self._existing(path, want_dir=True)
        prefix = real.rstrip("/") + "/"
        names = {key[len(prefix) :].split("/")[0] for key in self._keys() if key.startswith(prefix)}
        infos = []
        for name in sorted(names):
            child = posixpath.join(path, name)
            infos.append(await self.stat(child) or FileInfo(path=child, kind="other", size=0, mtime=0.0))
        return infos

    async def read_bytes(self, path: str, *, limit: int | None = None) -> bytes:
        data = self.files[self._existing(path, want_dir=False)]
        return data if limit is None else data[: max(limit, 0)]

    async def read_lines(self, path: str, *, offset: int, limit: int) -> LineWindow:
        if offset < 1 or limit < 0:
            raise ValueError(f"offset must be 1 or more and limit 0 or more, not {offset} and {limit}")
        lines = _split_lines(self.files[self._existing(path, want_dir=False)])
        window = lines[offset - 1 : offset - 1 + limit]
        return LineWindow(lines=window, offset=offset, more=len(lines) > offset - 1 + limit)

    async def write_bytes(self, path: str, data: bytes) -> None:
        real = self._resolve(path)
        if self._is_dir(real):
            raise _error(IsADirectoryError, errno.EISDIR, path)
        self._check_parents(real, path)
        self._time += 1
        self.files[real] = bytes(data)
        self.mtimes[real] = self._time
        self.writes.append(real)

    async def delete(self, path: str) -> None:
        where = posixpath.join(self._resolve(posixpath.dirname(path)), posixpath.basename(path))
        if where in self.symlinks:
            del self.symlinks[where]
        elif where in self.files:
            del self.files[where]
            self.mtimes.pop(where, None)
        elif self._is_dir(where):
            raise _error(IsADirectoryError, errno.EISDIR, path)
        else:
            raise _error(FileNotFoundError, errno.ENOENT, path)
        self.deleted.append(path)

    async def glob(self, root: str, pattern: str, *, limit: int) -> list[str]:
        real = self._existing(root, want_dir=True)
        base = posixpath.normpath(root)
        patterns = [_parts(p) for p in _expand_braces(pattern)]
        patterns = [p for p in patterns if p]
        allowed = SKIPPED_FOLDERS.intersection(part for parts in patterns for part in parts)
        found: list[tuple[float, str]] = []
        for rel in self._files_below(real):
            parts = rel.split("/")
            if any(d in SKIPPED_FOLDERS and d not in allowed for d in parts[:-1]):
                continue
            if any(_match_parts(p, parts) for p in patterns):
                target = self._resolve(posixpath.join(real, rel))
                found.append((self.mtimes.get(target, 0.0), posixpath.join(base, rel)))
        found.sort(key=lambda item: (-item[0], item[1]))
        return [path for _, path in found[: max(limit, 0)]]

    # Internals.

    def _keys(self) -> set[str]:
        return {*self.files, *self.dirs, *self.symlinks}

    def _is_dir(self, real: str) -> bool:
        prefix = real.rstrip("/") + "/"
        return real == "/" or real in self.dirs or any(k.startswith(prefix) for k in self._keys())

    def _files_below(self, real: str) -> list[str]:
        """Paths relative to ``real`` of the files, and the links to files, below it."""
        prefix = real.rstrip("/") + "/"
        rels = [k[len(prefix) :] for k in self.files if k.startswith(prefix)]
        links = [k[len(prefix) :] for k in self.symlinks if k.startswith(prefix)]
        return rels + [rel for rel in links if self._resolve(prefix + rel) in self.files]

    def _existing(self, path: str, *, want_dir: bool) -> str:
        """The real path of an existing file (or folder), else the error the OS would give."""
        real = self._resolve(path)
        if real in self.files:
            if want_dir:
                raise _error(NotADirectoryError, errno.ENOTDIR, path)
            return real
        if self._is_dir(real):
            if not want_dir:
                raise _error(IsADirectoryError, errno.EISDIR, path)
            return real
        self._check_parents(real, path)
        raise _error(FileNotFoundError, errno.ENOENT, path)

    def _check_parents(self, real: str, path: str) -> None:
        parent = posixpath.dirname(real)
        while parent != "/":
            if parent in self.files:
                raise _error(NotADirectoryError, errno.ENOTDIR, path)
            parent = posixpath.dirname(parent)

    def _resolve(self, path: str) -> str:
        """``os.path.realpath`` over ``symlinks``: links followed part by part, a missing tail kept."""
        if not path.startswith("/"):
            raise ValueError(f"paths are absolute: {path!r}")
        pending = list(reversed(path.split("/")))
        resolved = "/"
        hops = 0
        while pending:
            part = pending.pop()
            if part in ("", "."):
                continue
            if part == "..":
                resolved = posixpath.dirname(resolved)
                continue
            candidate = posixpath.join(resolved, part)
            target = self.symlinks.get(candidate)
            if target is None or hops >= 40:  # not a link, or a loop: keep it as written
                resolved = candidate
                continue
            hops += 1
            if target.startswith("/"):
                resolved = "/"
            pending.extend(reversed(target.split("/")))
        return resolved


def _split_lines(data: bytes) -> list[str]:
    if not data:
        return []
    raw = data.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    return [line.removesuffix(b"\r").decode("utf-8", errors="replace") for line in raw]


def _parts(pattern: str) -> list[str]:
    return [part for part in pattern.removeprefix("./").split("/") if part and part != "."]


def _match_parts(pattern: list[str], parts: list[str]) -> bool:
    """Glob parts against path parts; ``**`` takes any number of folders (last: at least one part)."""
    if not pattern:
        return not parts
    if pattern[0] == "**":
        if len(pattern) == 1:
            return bool(parts)
        return any(_match_parts(pattern[1:], parts[i:]) for i in range(len(parts)))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _match_parts(pattern[1:], parts[1:])


def _expand_braces(pattern: str) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd``; braces without a comma stay as written."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [out for choice in match.group(1).split(",") for out in _expand_braces(head + choice + tail)]


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
