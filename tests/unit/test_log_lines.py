"""A logged warning reaches the person as one line, a full disk said plainly, never a traceback."""

from __future__ import annotations

import errno
import io
import logging

from circle.domain.errors import StorageError
from circle.entrypoints._log_lines import install


def _warn(error: BaseException) -> str:
    stream = io.StringIO()
    handler = install(stream)
    try:
        try:
            raise error
        except BaseException:
            logging.getLogger("circle.journal").warning(
                "the changes of a command were not journaled", exc_info=True
            )
    finally:
        logging.getLogger("circle").removeHandler(handler)
    return stream.getvalue()


def test_a_full_disk_under_a_warning_is_one_line_naming_the_disk() -> None:
    said = _warn(OSError(errno.ENOSPC, "No space left on device", "/data/circle/blobs/ab/cd"))

    assert said == (
        "circle: warning: the changes of a command were not journaled: the disk holding"
        " /data/circle/blobs/ab is full: Circle could not write there; nothing stored was lost"
        " (free some space and run it again)\n"
    )


def test_a_circle_error_under_a_warning_is_its_message() -> None:
    said = _warn(StorageError("cannot write to the session store at /x: locked"))

    assert said == (
        "circle: warning: the changes of a command were not journaled:"
        " cannot write to the session store at /x: locked\n"
    )
    assert "Traceback" not in said
