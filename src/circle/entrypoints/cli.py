"""The `circle` command line.

``circle --version`` answers before anything heavy loads; subcommands (trust, sessions) and the
root command (print mode, JSON events) each import only what they use.
"""

from __future__ import annotations

import sys

from circle import __version__

SUBCOMMANDS = frozenset({"trust", "sessions", "models"})


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        sys.stdout.write(f"circle {__version__}\n")
        return
    if args and args[0] in SUBCOMMANDS:
        from ._commands import commands

        _invoke(commands, args)
        return
    from ._root import root

    _invoke(root, args)


def _invoke(app: object, args: list[str]) -> None:
    import typer

    assert isinstance(app, typer.Typer)
    try:
        app(args=args, prog_name="circle", standalone_mode=True)
    except KeyboardInterrupt:
        sys.stderr.write("circle: interrupted\n")
        raise SystemExit(130) from None
