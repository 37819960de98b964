"""The last line of defence: an unexpected error is logged in the data folder, and the person told where."""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Callable


def guard(run: Callable[[], int]) -> int:
    try:
        return run()
    except KeyboardInterrupt:
        sys.stderr.write("circle: interrupted\n")
        return 130
    except BrokenPipeError:  # as the command line's own help does: quiet, and 1 (not all was written)
        _drop_stdout()
        return 1
    except Exception as exc:
        path = write_crash_log()
        where = f" (details in {path})" if path else ""
        sys.stderr.write(f"circle: internal error: {type(exc).__name__}: {exc}{where}\n")
        return 1


def _drop_stdout() -> None:
    """The reader of stdout went away (``| head``): what is left to print goes nowhere, so the
    interpreter's last flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def write_crash_log() -> str | None:
    from circle.adapters._shared.private_files import private_folder
    from circle.adapters._shared.settings_files import data_dir

    try:
        folder = private_folder(data_dir(os.environ)) / "logs"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        path.write_text(traceback.format_exc(), encoding="utf-8")
        return str(path)
    except OSError:
        return None
