"""A listing read by ``| head`` (its reader gone before it is all written) ends quietly."""

from __future__ import annotations

import os
import subprocess

import pytest

from circle._testing.gateway import chat_text

from .conftest import Circle, circle_command


def _into_a_closed_pipe(cli: Circle, *args: str) -> subprocess.CompletedProcess[str]:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line is written
    try:
        return subprocess.run(
            [circle_command(), *args],
            cwd=cli.workspace,
            env=cli.env(),
            stdin=subprocess.DEVNULL,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [("sessions",), ("models",), ("--help",), ("-p", "hello")])
def test_a_closed_stdout_ends_quietly(cli: Circle, args: tuple[str, ...]) -> None:
    if args[0] == "-p":
        cli.gateway.enqueue(chat_text("hello to you"))
    done = _into_a_closed_pipe(cli, *args)
    assert done.stderr == "", done.stderr
    assert done.returncode == 1  # not all was written, as click says it for --help
