"""How soon the full-screen interface paints, and how soon RPC mode answers its first command.

Not a test: run it by hand, `.venv/bin/python bench/bench_tui.py [--runs 5]`. Each figure is the
median wall time of the runs after one warm-up, with its ratio to a baseline measured in the same run:

- ``circle`` in a pseudo-terminal (120x40), from the spawn until its first screen ("Starting
  Circle…") and until the session screen's footer (which names the model) are on the terminal,
  against a bare Textual app that paints one line;
- ``circle --mode rpc``, from the spawn until the response to ``get_state``, against
  ``python -c "import json"`` answering a line.

The endpoint is a scripted loopback gateway (TCP_NODELAY); the folder is trusted beforehand.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

PY = sys.executable
CIRCLE = str(Path(PY).parent / "circle")
BARE_APP = """
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self):
        yield Static("scripted · ready")
Bare().run()
"""
ECHO_JSON = "import json, sys\nfor line in sys.stdin:\n    print(json.dumps(json.loads(line)), flush=True)\n"


def paint_time(argv: list[str], *, env: dict[str, str], cwd: Path, marker: bytes) -> float:
    """Seconds from the spawn until ``marker`` has been written to the terminal."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the program in a 120x40 terminal
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    start = time.perf_counter()
    seen = b""
    try:
        while marker not in seen.replace(b"\x1b[", b""):
            if time.perf_counter() - start > 30:
                raise SystemExit(f"no paint within 30 s: {seen[-400:]!r}")
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                seen += chunk
                if b"\x1b[6n" in chunk or b"\x1b]11;?" in chunk:  # answer terminal queries at once
                    os.write(fd, b"\x1b[1;1R\x1b]11;rgb:0000/0000/0000\x07")
        return time.perf_counter() - start
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)


def rpc_time(argv: list[str], *, env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"id": 1, "type": "get_state"}\n')
    proc.stdin.flush()
    line = proc.stdout.readline()
    took = time.perf_counter() - start
    proc.stdin.close()
    proc.wait()
    if not line:
        raise SystemExit(f"no answer from {' '.join(argv)}")
    return took


def median(runs: int, measure: object) -> float:
    assert callable(measure)
    measure()
    return statistics.median(measure() for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[1]  # bytecode for the editable install, as bench_cli does
    subprocess.run([PY, "-m", "compileall", "-q", str(root / "src" / "circle")], check=True)
    gateway = subprocess.Popen([PY, "-m", "circle._testing.gateway", "--rounds", "0"], stdout=subprocess.PIPE)
    assert gateway.stdout is not None
    url = gateway.stdout.readline().decode().strip()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, work = Path(tmp, "home"), Path(tmp, "work")
            work.mkdir()
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_"))},
                "CIRCLE_HOME": str(home),
                "CIRCLE_BASE_URL": url,
                "CIRCLE_API_KEY": "k",
                "CIRCLE_MODEL": "bench-model",
                "CIRCLE_CATALOG_REFRESH": "0",
                "TERM": "xterm-256color",
                "CIRCLE_THEME": "dark",
            }
            subprocess.run([CIRCLE, "trust", str(work)], env=env, check=True, capture_output=True)
            bare = Path(tmp, "bare.py")
            bare.write_text(BARE_APP)
            echo = Path(tmp, "echo.py")
            echo.write_text(ECHO_JSON)
            first = median(args.runs, lambda: paint_time([CIRCLE], env=env, cwd=work, marker=b"Starting"))
            tui = median(args.runs, lambda: paint_time([CIRCLE], env=env, cwd=work, marker=b"bench-model"))
            base = median(args.runs, lambda: paint_time([PY, str(bare)], env=env, cwd=work, marker=b"ready"))
            rpc = median(args.runs, lambda: rpc_time([CIRCLE, "--mode", "rpc"], env=env, cwd=work))
            floor = median(args.runs, lambda: rpc_time([PY, str(echo)], env=env, cwd=work))
    finally:
        gateway.kill()
    print(f"{'measure':<40} {'median s':>9} {'baseline s':>11} {'ratio':>6}")
    print(f"{'TUI first paint':<40} {first:9.3f} {base:11.3f} {first / base:6.2f}  (bare Textual app)")
    print(f"{'TUI ready (footer with the model shown)':<40} {tui:9.3f} {base:11.3f} {tui / base:6.2f}")
    rpc_line = f"{'RPC: first response (get_state)':<40} {rpc:9.3f} {floor:11.3f} {rpc / floor:6.2f}"
    print(f"{rpc_line}  (python echo)")


if __name__ == "__main__":
    main()
