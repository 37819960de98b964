"""Warnings Circle logs reach the person as one line each on stderr, never as a traceback.

Without a handler, Python prints a logged warning with its whole traceback ("the changes of a
command were not journaled", then the stack). :func:`install` puts one handler on the ``circle``
loggers: ``circle: warning: <what>: <why>``, where the why is the exception's one line, a full
disk said as :mod:`circle.adapters._shared.disk_full` says it. Errors still reach the person the
usual way (one line from the entrypoint); the crash log keeps what is unexpected.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TextIO

from circle.adapters._shared.disk_full import disk_full_message, is_disk_full
from circle.domain.errors import CircleError


def reason(error: BaseException) -> str:
    """The one line saying why, for an exception met by a warning."""
    if isinstance(error, CircleError):
        return error.message
    where = getattr(error, "filename", None)
    if isinstance(error, OSError) and is_disk_full(error, where or "."):
        return disk_full_message(Path(where).parent, doing="write") if where else "the disk is full"
    text = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return text


class OneLineHandler(logging.Handler):
    """Writes each record at WARNING or above as one ``circle: warning:`` line."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__(logging.WARNING)
        self._stream = stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            said = " ".join(record.getMessage().split())
            if record.exc_info and record.exc_info[1] is not None:
                said = f"{said}: {reason(record.exc_info[1])}"
            stream = self._stream or sys.stderr
            stream.write(f"circle: warning: {said}\n")
            stream.flush()
        except Exception:  # a warning must never stop the work
            self.handleError(record)


def install(stream: TextIO | None = None) -> OneLineHandler:
    """Route the ``circle`` loggers' warnings through one :class:`OneLineHandler`."""
    logger = logging.getLogger("circle")
    for handler in list(logger.handlers):
        if isinstance(handler, OneLineHandler):
            logger.removeHandler(handler)
    handler = OneLineHandler(stream)
    logger.addHandler(handler)
    logger.propagate = False
    return handler


__all__ = ["OneLineHandler", "install", "reason"]
