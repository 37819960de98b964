"""The terminal as the driver's output thread writes to it: once the terminal hangs up (a real pty
whose other end closed), writes fail quietly, and the driver is told once."""

from __future__ import annotations

import contextlib
import os

from circle.entrypoints.tui._hangup import TerminalOutput


def test_writes_to_a_hung_up_terminal_are_dropped_and_said_once() -> None:
    master, slave = os.openpty()
    told: list[str] = []
    file = open(slave, "w", buffering=1, closefd=True)  # noqa: SIM115 - closed below, where it may fail
    try:
        output = TerminalOutput(file, on_gone=lambda: told.append("gone"))
        output.write("before\n")
        output.flush()
        assert not output.gone and os.read(master, 100) == b"before\r\n"
        os.close(master)  # the terminal goes away

        assert output.write("after\n") == len("after\n")
        output.flush()
        output.write("and more\n")

        assert output.gone
    finally:
        with contextlib.suppress(OSError):  # what the terminal never took is flushed once more
            file.close()
    assert told == ["gone"]


def test_end_of_input_tells_the_driver_once_too() -> None:
    told: list[str] = []
    master, slave = os.openpty()
    with open(slave, "w", closefd=True) as file:
        output = TerminalOutput(file, on_gone=lambda: told.append("gone"))
        output.lose()
        output.lose()
    os.close(master)
    assert output.gone and told == ["gone"]
