"""Leaving: once the outcome is settled, a ctrl+c arriving while Circle flushes its logs and streams
ends nothing with a traceback, and the exit code stays the one settled."""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import logging, os, signal, sys

class Interrupting(logging.Handler):
    def emit(self, record): pass
    def flush(self):
        os.kill(os.getpid(), signal.SIGINT)  # the person's ctrl+c lands while the logs flush

logging.getLogger().addHandler(Interrupting())
from circle.entrypoints.cli import _exit_now
_exit_now(int(sys.argv[1]))
"""


def test_a_ctrl_c_while_leaving_keeps_the_exit_code_and_prints_no_traceback() -> None:
    for code in (0, 3):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(code)], capture_output=True, text=True, timeout=60
        )
        assert "Traceback" not in done.stderr, done.stderr
        assert "KeyboardInterrupt" not in done.stderr, done.stderr
        assert done.returncode == code
