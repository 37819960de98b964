"""How the person runs this Circle again, for the lines that tell them a command to type.

Quick start runs Circle from a virtual environment that is not on ``PATH``, so a bare ``circle``
would find nothing (or another install). The command named is ``circle`` only when ``PATH`` finds
the very script that is running; otherwise it is that script's absolute path, quoted for the shell.
Run as ``python -m circle``, it is that Python's path with ``-m circle`` (``circle`` when ``PATH``
finds the script installed beside that Python).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable

NAME = "circle"


def circle_command(
    *,
    argv0: str | None = None,
    which: Callable[[str], str | None] = shutil.which,
    executable: str | None = None,
) -> str:
    """The command that starts this Circle from any folder.

    Args:
        argv0: How the running program was started (default ``sys.argv[0]``).
        which: Finds a program on ``PATH`` (default :func:`shutil.which`).
        executable: The Python running it (default ``sys.executable``), for ``python -m circle``.

    Returns:
        ``circle`` when ``PATH`` finds the running script (or Circle runs as something else, such as
        a test runner); for ``python -m circle``, that Python and ``-m circle``; else the running
        script's absolute path, shell-quoted.
    """
    script = os.path.abspath(argv0 if argv0 is not None else sys.argv[0])
    if _is_package_main(script):
        python = os.path.abspath(executable if executable is not None else sys.executable)
        found = which(NAME)
        if found is not None and os.path.dirname(os.path.abspath(found)) == os.path.dirname(python):
            return NAME  # the script PATH finds is this Python's own
        return f"{shlex.quote(python)} -m {NAME}"
    if os.path.basename(script) != NAME or not os.path.isfile(script):
        return NAME
    found = which(NAME)
    if found is not None and os.path.realpath(found) == os.path.realpath(script):
        return NAME
    return shlex.quote(script)


def _is_package_main(script: str) -> bool:
    """``script`` is Circle's own ``__main__.py`` (``python -m circle``)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the circle package
    return os.path.basename(script) == "__main__.py" and os.path.dirname(script) == here


__all__ = ["circle_command"]
