"""What the interface does before its first frame imports no session machinery, nor Typer or
pydantic (bench/bench_paint.py times the paint; here only what is loaded is checked)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

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


RESUMED = """
import io, sys, threading
from pathlib import Path

heavy = ("circle.entrypoints.headless", "circle.application.runtime", "circle.domain.messages", "pydantic")
on_main: list[str] = []


class Watch:  # the tail read ahead imports the marker it sums by once the tails are read, on its thread
    def find_spec(self, name, path=None, target=None):
        if name in heavy and threading.current_thread() is threading.main_thread():
            on_main.append(name)
        return None


sys.meta_path.insert(0, Watch())

from circle.entrypoints._options import RunOptions
from circle.entrypoints.tui import _in_sessions_folder

err = io.StringIO()
sys.stderr = err
moved = _in_sessions_folder(RunOptions(workspace=Path.cwd(), message="", mode="tui", session=sys.argv[1]), {
    "CIRCLE_HOME": sys.argv[2]
})
sys.stderr = sys.__stderr__
print(moved.workspace, err.getvalue().strip(), " ".join(on_main), sep="|")
"""


def test_the_folder_of_a_resumed_session_is_found_without_the_session_modules(tmp_path: Path) -> None:
    import asyncio

    from circle.adapters.storage.sqlite_store import SqliteSessionStore

    async def store() -> str:
        made = SqliteSessionStore(tmp_path / "home" / "circle.sqlite")
        info = await made.create_session(workspace=str(tmp_path))
        await made.aclose()
        return info.id

    session_id = asyncio.run(store())
    args = [sys.executable, "-c", RESUMED, session_id, str(tmp_path / "home")]
    done = subprocess.run(args, capture_output=True, text=True, check=True, cwd="/")

    workspace, said, loaded = done.stdout.strip().split("|")
    assert (workspace, loaded) == (str(tmp_path), "")
    assert said == f"circle: session {session_id} works in {tmp_path}, its own folder"


def test_a_bad_approval_mode_is_still_refused() -> None:
    code = (
        "from circle.entrypoints._run import check_values\n"
        "check_values(thinking=None, approval_mode='nope', tools=[])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0 and "approval-mode" in done.stderr


AT_FIRST_FRAME = """
import gc, json, os, sys
seen = {}
write = os.write
def watched_write(fd, data):
    if b"\\x1b]11;?" in data:  # the theme question
        seen["textual_loaded_when_asked"] = "textual" in sys.modules
    return write(fd, data)
os.write = watched_write
class Tap:
    def __init__(self, inner):
        self.inner = inner
    def write(self, text):
        if "Starting" in text:
            seen["loaded"] = [name for name in ("typer", "click", "pydantic") if name in sys.modules]
            seen["theme"] = [o.theme for o in gc.get_objects() if type(o).__name__ == "CircleApp"]
            with open(os.environ["SEEN_AT_FIRST_FRAME"], "w") as out:
                json.dump(seen, out)
            os._exit(0)
        return self.inner.write(text)
    def __getattr__(self, name):
        return getattr(self.inner, name)
sys.__stderr__ = Tap(sys.__stderr__)  # where Textual writes its frames
sys.argv = ["circle", *sys.argv[1:]]
from circle.entrypoints.cli import main
main()
"""
LIGHT_REPLY = b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\"


def seen_at_first_frame(
    tmp_path: Path, *args: str, theme: str = "dark", answer: bytes = b""
) -> dict[str, Any]:
    """What the real ``circle`` in a pseudo-terminal had loaded when it wrote its first frame (of
    Typer, Click and pydantic), its theme then, and whether Textual was loaded when it asked the
    terminal's background; the terminal gives ``answer`` to that question."""
    found = tmp_path / "seen.json"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_", "ANTHROPIC_"))},
        "CIRCLE_HOME": str(tmp_path / "home"),
        "CIRCLE_THEME": theme,
        "TERM": "xterm-256color",
        "SEEN_AT_FIRST_FRAME": str(found),
    }
    env.pop("COLORFGBG", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: circle
        os.execve(sys.executable, [sys.executable, "-c", AT_FIRST_FRAME, *args], env)
    try:
        while select.select([fd], [], [], 30)[0]:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:  # the child is gone
                break
            if not chunk:
                break
            if b"\x1b]11;?" in chunk and answer:
                os.write(fd, answer)
    finally:
        os.close(fd)
        os.waitpid(pid, 0)
    seen: dict[str, Any] = json.loads(found.read_text())
    return seen


def test_the_first_frame_comes_before_typer_and_pydantic_load(tmp_path: Path) -> None:
    assert seen_at_first_frame(tmp_path)["loaded"] == []
    assert seen_at_first_frame(tmp_path, "--model", "m", "hello")["loaded"] == []


def test_the_terminal_is_asked_its_background_before_textual_loads(tmp_path: Path) -> None:
    """Textual loads while the terminal answers, so a terminal that never does (tmux 3.3) costs the
    first frame nothing; the answer still picks the theme."""
    seen = seen_at_first_frame(tmp_path, theme="", answer=LIGHT_REPLY)
    assert seen["textual_loaded_when_asked"] is False
    assert seen["theme"] == ["textual-light"]
