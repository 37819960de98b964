"""The interface's frame cap: 120 frames a second unless the person set ``TEXTUAL_FPS``, and the
variable not left behind for the commands Circle runs (a fresh interpreter each: Textual fixes its
rate when it is first imported, and this process imported it long ago)."""

from __future__ import annotations

import os
import subprocess
import sys

from circle.entrypoints.tui._frames import FRAMES_PER_S

STARTED = """
import os
from circle.entrypoints.tui._frames import set_frame_rate

set_frame_rate()
import textual.screen

print(round(1 / textual.screen.UPDATE_PERIOD), os.environ.get("TEXTUAL_FPS", "unset"))
"""


def started(env: dict[str, str]) -> list[str]:
    args = [sys.executable, "-c", STARTED]
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=True)
    return done.stdout.split()


def test_textual_draws_up_to_120_frames_a_second_and_commands_do_not_inherit_the_variable() -> None:
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    assert started(env) == [str(FRAMES_PER_S), "unset"]
    assert FRAMES_PER_S == 120


def test_the_persons_own_frame_rate_is_kept() -> None:
    assert started({**os.environ, "TEXTUAL_FPS": "30"}) == ["30", "30"]
