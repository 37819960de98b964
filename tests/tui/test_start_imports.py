"""What the interface does before its first frame imports no session machinery, nor Typer or
pydantic (bench/bench_paint.py times the paint; here only what is loaded is checked)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

BEFORE_PAINT = """
import sys
from pathlib import Path

from circle.entrypoints._options import RunOptions
from circle.entrypoints._run import check_values
from circle.entrypoints.tui import _in_sessions_folder

check_values(thinking=None, approval_mode=None, tools=[])
_in_sessions_folder(RunOptions(workspace=Path.cwd(), message="", mode="tui"), {})
heavy = ("circle.entrypoints.headless", "circle.application.approvals", "circle.application.runtime")
print(" ".join(name for name in heavy if name in sys.modules))
"""


def test_the_options_of_a_new_session_are_settled_without_the_session_modules() -> None:
    done = subprocess.run([sys.executable, "-c", BEFORE_PAINT], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_a_bad_approval_mode_is_still_refused() -> None:
    code = (
        "from circle.entrypoints._run import check_values\n"
        "check_values(thinking=None, approval_mode='nope', tools=[])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0 and "approval-mode" in done.stderr


AT_FIRST_FRAME = """
import os, sys
class Tap:
    def __init__(self, inner):
        self.inner = inner
    def write(self, text):
        if "Starting" in text:
            loaded = [name for name in ("typer", "click", "pydantic") if name in sys.modules]
            with open(os.environ["LOADED_AT_FIRST_FRAME"], "w") as out:
                out.write(" ".join(loaded) or "none")
            os._exit(0)
        return self.inner.write(text)
    def __getattr__(self, name):
        return getattr(self.inner, name)
sys.__stderr__ = Tap(sys.__stderr__)  # where Textual writes its frames
sys.argv = ["circle", *sys.argv[1:]]
from circle.entrypoints.cli import main
main()
"""


def loaded_at_first_frame(tmp_path: Path, *args: str) -> str:
    """Which of Typer, Click and pydantic are loaded when the real ``circle`` in a pseudo-terminal
    writes its first frame."""
    found = tmp_path / "loaded.txt"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_", "ANTHROPIC_"))},
        "CIRCLE_HOME": str(tmp_path / "home"),
        "CIRCLE_THEME": "dark",
        "TERM": "xterm-256color",
        "LOADED_AT_FIRST_FRAME": str(found),
    }
    pid, fd = pty.fork()
    if pid == 0:  # the child: circle
        os.execve(sys.executable, [sys.executable, "-c", AT_FIRST_FRAME, *args], env)
    try:
        while select.select([fd], [], [], 30)[0]:
            try:
                if not os.read(fd, 1 << 16):
                    break
            except OSError:  # the child is gone
                break
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    return found.read_text()


def test_the_first_frame_comes_before_typer_and_pydantic_load(tmp_path: Path) -> None:
    assert loaded_at_first_frame(tmp_path) == "none"
    assert loaded_at_first_frame(tmp_path, "--model", "m", "hello") == "none"
