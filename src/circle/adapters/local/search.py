"""RipgrepSearch: the ``TextSearch`` port with the ``rg`` binary and its ``--json`` output.

What is searched: ripgrep's defaults (``.gitignore``, ``.ignore`` and ``.rgignore`` respected, binary
files skipped; no ``RIPGREP_CONFIG_PATH`` file is read) plus hidden files and folders (``--hidden``),
except ``.git`` itself, since dot-files such as ``.github/`` or ``.env.example`` are often what a
person asks about. Unreadable files are skipped silently (``--no-messages``); pattern and glob errors
are still reported, as ``ValueError``. A file given as ``path`` is searched whatever ``glob`` says.

``rg`` runs in the searched folder: ripgrep matches a ``glob`` holding ``/`` against the path relative
to its working directory, so ``src/*.py`` means the same as it does to ``FileSystem.glob``. One without
``/`` matches file names at any depth (``*.py``); ``!`` excludes. ``exclude_globs`` go last, as
``--iglob '!…'``, so they win over ``glob`` and ignore case.

The result is sorted by path, then line, so it does not depend on ripgrep's threads. ``max_matches``
bounds the matching lines: on the next match ripgrep is stopped and ``truncated`` set; the trailing
context of the last kept match is kept. ``counts`` holds the matching lines kept, per file.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
import signal
import sys
from dataclasses import dataclass, field

from circle.application.ports.text_search import GrepLine, GrepQuery, GrepResult
from circle.domain.errors import ToolError

_CHUNK = 65536


class RipgrepSearch:
    """The ``TextSearch`` port over ripgrep."""

    def __init__(self, *, rg_path: str | None = None) -> None:
        """Args:
        rg_path: The ``rg`` binary; by default the one beside the Python interpreter (the ``ripgrep``
            package installs it there), else the first on ``PATH``.
        """
        self._rg_path = rg_path

    def _binary(self) -> str:
        if self._rg_path is not None:
            if os.access(self._rg_path, os.X_OK):
                return self._rg_path
        else:
            beside = os.path.join(os.path.dirname(sys.executable), "rg")
            if os.access(beside, os.X_OK):
                return beside
            if found := shutil.which("rg"):
                return found
        raise ToolError(
            "ripgrep (rg) was not found: install the 'ripgrep' package or put rg on PATH; "
            "until then search with the execute tool (grep -rn)"
        )

    async def grep(self, query: GrepQuery) -> GrepResult:
        path = os.path.normpath(query.path)
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", query.path)
        proc = await asyncio.create_subprocess_exec(
            self._binary(),
            *_arguments(query, path),
            cwd=path if os.path.isdir(path) else os.path.dirname(path),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert proc.stdout is not None
        assert proc.stderr is not None
        errors = asyncio.create_task(proc.stderr.read())
        collector = _Collector(max_matches=query.max_matches, context=query.context)
        try:
            await _collect(proc.stdout, collector)
            if collector.truncated:
                _kill(proc)
            code = await proc.wait()
            stderr = await errors
        finally:
            if proc.returncode is None:
                _kill(proc)
                await asyncio.shield(proc.wait())
            errors.cancel()
            await asyncio.wait([errors])
        if code == 2 and not collector.truncated and stderr.strip():
            raise ValueError(_one_line(stderr.decode("utf-8", errors="replace")))
        return collector.result()


def _kill(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL ``rg``; not ``proc.kill()``, whose ``Popen.poll()`` would reap the child under asyncio's
    child watcher (which then warns of an unknown child and reports exit code 255)."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)


def _arguments(query: GrepQuery, path: str) -> list[str]:
    args = ["--no-config", "--json", "--no-messages", "--hidden", "--glob", "!.git"]
    if query.literal:
        args.append("--fixed-strings")
    if query.case_insensitive:
        args.append("--ignore-case")
    if query.context > 0:
        args += ["--context", str(query.context)]
    if query.glob:
        args += ["--glob", query.glob]
    for excluded in query.exclude_globs:
        args += ["--iglob", f"!{excluded}"]
    return [*args, "--regexp", query.pattern, "--", path]


async def _collect(stdout: asyncio.StreamReader, collector: _Collector) -> None:
    """Feed ripgrep's JSON lines to ``collector`` until the end or until it has enough."""
    pending = b""
    while chunk := await stdout.read(_CHUNK):
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            if collector.feed(line):
                return
    if pending.strip():
        collector.feed(pending)


@dataclass
class _Collector:
    max_matches: int
    context: int
    lines: list[GrepLine] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    matches: int = 0
    truncated: bool = False
    _last: GrepLine | None = None

    def feed(self, raw: bytes) -> bool:
        """Take one JSON message; True once the next match is past ``max_matches``."""
        try:
            message = json.loads(raw)
        except json.JSONDecodeError:  # not ripgrep's JSON: nothing to take
            return False
        kind = message.get("type")
        if kind not in ("match", "context"):
            return False
        data = message["data"]
        line = GrepLine(
            path=_text(data["path"]),
            line=int(data["line_number"]),
            text=_text(data["lines"]).removesuffix("\n").removesuffix("\r"),
            is_match=kind == "match",
        )
        if line.is_match:
            if self.matches >= self.max_matches:
                self.truncated = True
                return True
            self.matches += 1
            self.counts[line.path] = self.counts.get(line.path, 0) + 1
            self._last = line
        elif self.matches >= self.max_matches and not self._after_last_match(line):
            return False
        self.lines.append(line)
        return False

    def _after_last_match(self, line: GrepLine) -> bool:
        last = self._last
        return last is not None and line.path == last.path and 0 < line.line - last.line <= self.context

    def result(self) -> GrepResult:
        lines = sorted(self.lines, key=lambda g: (g.path, g.line))
        counts = {path: self.counts[path] for path in sorted(self.counts)}
        return GrepResult(lines=lines, counts=counts, truncated=self.truncated)


def _text(value: dict[str, str]) -> str:
    """ripgrep's ``{"text": ...}``, or ``{"bytes": base64}`` for what is not UTF-8."""
    if "text" in value:
        return value["text"]
    return base64.b64decode(value["bytes"]).decode("utf-8", errors="replace")


def _one_line(stderr: str) -> str:
    """``rg: regex parse error: … error: unclosed group`` -> ``regex parse error: unclosed group``."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    first = lines[0].removeprefix("rg: ").rstrip(":")
    last = lines[-1]
    if len(lines) > 1 and last.startswith("error:"):
        return f"{first}: {last.removeprefix('error:').strip()}"
    return first


__all__ = ["RipgrepSearch"]
