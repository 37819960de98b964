"""What the interface does before its first frame imports no session machinery (bench/bench_tui.py
times the paint; here only what is loaded is checked)."""

from __future__ import annotations

import subprocess
import sys

BEFORE_PAINT = """
import sys
from pathlib import Path

from circle.entrypoints._options import RunOptions
from circle.entrypoints._root import _check_values
from circle.entrypoints.tui import _in_sessions_folder

_check_values(thinking=None, approval_mode=None, tools=[])
_in_sessions_folder(RunOptions(workspace=Path.cwd(), message="", mode="tui"), {})
heavy = ("circle.entrypoints.headless", "circle.application.approvals", "circle.application.runtime")
print(" ".join(name for name in heavy if name in sys.modules))
"""


def test_the_options_of_a_new_session_are_settled_without_the_session_modules() -> None:
    done = subprocess.run([sys.executable, "-c", BEFORE_PAINT], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_a_bad_approval_mode_is_still_refused() -> None:
    code = (
        "from circle.entrypoints._root import _check_values\n"
        "_check_values(thinking=None, approval_mode='nope', tools=[])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0 and "approval-mode" in done.stderr
