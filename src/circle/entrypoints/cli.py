"""The `circle` command line.

``circle --version`` answers before anything heavy loads; subcommands (trust, sessions) and the
root command (print mode, JSON events) each import only what they use, and a common command line
(``circle``, ``circle -p MESSAGE``, see :mod:`._argv`) runs without importing Typer at all.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING

from circle import __version__

if TYPE_CHECKING:
    from ._run import Choices

SUBCOMMANDS = frozenset({"trust", "settings", "sessions", "models", "export", "import", "rewind"})


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        sys.stdout.write(f"circle {__version__}\n")
        return
    if not args and argv is None:  # the interface: the keys typed from now on are its own, unedited
        from .tui import _keys_mode  # (the interface gives the terminal back; so does _exit_now)

        _keys_mode.take()
    try:
        _main(args)
    except KeyboardInterrupt:  # ctrl+c while Circle loads, before a mode could take it
        sys.stderr.write("circle: interrupted\n")
        _exit_now(130)
    finally:  # whatever went wrong on the way, the terminal is left as it was
        if (keys := sys.modules.get("circle.entrypoints.tui._keys_mode")) is not None:
            keys.give_back()


def _main(args: list[str]) -> None:
    from ._log_lines import install

    install()  # a logged warning is one line on stderr, never a traceback
    if args and args[0] in SUBCOMMANDS:
        from ._commands import commands

        _invoke(commands, args)
        return
    from ._argv import common_choices

    choices = common_choices(args)
    if choices is not None:
        _run_without_typer(choices)
        return
    from ._root import root, show_commands_in_help

    if {"-h", "--help"} & set(args):
        show_commands_in_help()
    _invoke(root, args)


def _invoke(app: object, args: list[str]) -> None:
    import typer

    assert isinstance(app, typer.Typer)
    code: object = 0
    try:
        code = app(args=args, prog_name="circle", standalone_mode=False)
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("circle: interrupted\n")
        code = 130
    except typer.TyperException as exc:  # bad usage (exit code 2) and the command line's other errors
        code = getattr(exc, "exit_code", 1)
        show = getattr(exc, "format_message", None)
        said = _one_line(show() if callable(show) else str(exc)).removeprefix("Invalid value: ")
        sys.stderr.write(f"circle: {said}{' (see circle --help)' if code == 2 else ''}\n")
    except SystemExit as exit_:
        code = exit_.code
    _exit_now(code if isinstance(code, int | str) else 0)


def _run_without_typer(choices: Choices) -> None:
    """A common command line (see :mod:`._argv`): run as Typer runs it, refusals said as it says them."""
    from ._run import BadUsage, run_choices

    code: int | str | None = 0
    try:
        code = run_choices(choices)
    except KeyboardInterrupt:  # as Typer: an interruption the mode did not catch leaves quietly
        code = 130
    except BadUsage as exc:
        sys.stderr.write(f"circle: {_one_line(exc.said())} (see circle --help)\n")
        code = 2
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int | str) else 0
    _exit_now(code)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _exit_now(code: int | str | None) -> None:
    """Leave without tearing the interpreter down: every write is committed and flushed by now,
    and freeing thousands of SDK objects one by one costs a quarter of a second."""
    import logging
    import os
    import signal

    # the outcome is settled: a ctrl+c from here on must not end it with a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if (keys := sys.modules.get("circle.entrypoints.tui._keys_mode")) is not None:
        keys.give_back()  # taken for the interface (see main): the terminal as it was
    if isinstance(code, str):
        sys.stderr.write(code + "\n")
        code = 1
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code or 0)
