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
    except Exception as exc:
        path = write_crash_log()
        where = f" (details in {path})" if path else ""
        sys.stderr.write(f"circle: internal error: {type(exc).__name__}: {exc}{where}\n")
        return 1


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
