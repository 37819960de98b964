"""A `circle --mode rpc` child process on real pipes, for the RPC tests."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from .conftest import Circle, circle_command

Line = dict[str, Any]


class RpcProcess:
    """Writes commands to the child's stdin; a thread collects every stdout line as JSON."""

    def __init__(self, cli: Circle, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [circle_command(), "--mode", "rpc", *args],
            cwd=cli.workspace,
            env=env or cli.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: list[Line] = []
        self.raw: list[bytes] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._next_id = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            with self._cond:
                self.raw.append(raw)
                self.lines.append(json.loads(raw))
                self._cond.notify_all()

    def write(self, text: str | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode() if isinstance(text, str) else text)
        self.proc.stdin.flush()

    def send(self, command: Line) -> None:
        self.write(json.dumps(command) + "\n")

    def request(self, command_type: str, timeout: float = 20, **fields: Any) -> Line:
        """Send a command with a fresh id and return its response."""
        self._next_id += 1
        ident = f"r{self._next_id}"
        self.send({"id": ident, "type": command_type, **fields})
        return self.wait_for(lambda d: d.get("type") == "response" and d.get("id") == ident, timeout)

    def wait_for(self, match: Callable[[Line], bool], timeout: float = 20, *, after: int = 0) -> Line:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[after:]:
                    if match(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(f"no matching line within {timeout} s; got {self.lines}")
                self._cond.wait(min(left, 0.1))

    def event(self, event_type: str, timeout: float = 20, *, after: int = 0) -> Line:
        return self.wait_for(lambda d: d.get("type") == event_type, timeout, after=after)

    def nth(self, event_type: str, n: int, timeout: float = 20) -> Line:
        """The ``n``-th (1-based) line of ``event_type``, waiting for it."""
        deadline = time.monotonic() + timeout
        while len(found := self.events(event_type)) < n:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"fewer than {n} {event_type} lines; got {self.lines}")
            time.sleep(0.02)
        return found[n - 1]

    def events(self, event_type: str) -> list[Line]:
        with self._cond:
            return [line for line in self.lines if line.get("type") == event_type]

    def close(self, timeout: float = 30) -> int:
        """Close stdin and wait for the exit code."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return code

    @property
    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
