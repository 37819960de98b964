"""The full-screen interface (Textual). ``run_tui`` is what `circle` without -p runs.

Textual loads only when this package is used, never for print mode or the subcommands.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from circle.entrypoints.headless import RunOptions
    from circle.entrypoints.tui._backend import Backend


def run_tui(opts: RunOptions) -> int:
    """Run the interface until the person leaves; then print the jobs it stopped and the command
    that reopens the session. Returns the exit code (0, 1 when it could not start, 130 after
    ctrl+c twice)."""
    from circle.entrypoints.tui import _keys_mode as keys_mode

    keys_mode.take()  # first: keys typed from now on wait, unedited, for the input box
    try:
        return _run(opts)
    finally:
        keys_mode.give_back()


def _run(opts: RunOptions) -> int:
    from circle.entrypoints.tui import _keys_mode as keys_mode
    from circle.entrypoints.tui._frames import set_frame_rate
    from circle.entrypoints.tui._heap import hold_passes, let_passes
    from circle.entrypoints.tui._theme import TerminalQuestion

    hold_passes()  # until the interface has loaded: see _heap.py
    env = dict(os.environ)
    question = TerminalQuestion(env)  # asked now: the terminal answers while Textual loads
    set_frame_rate()  # as Textual starts to load
    try:
        from circle.entrypoints.tui.app import CircleApp
    finally:
        theme, typed = question.answer()  # typed: keys the terminal had, for the input box
    typed = keys_mode.typed_ahead() + typed
    opts = _in_sessions_folder(opts, env)

    def make_backend() -> Backend:
        from circle.entrypoints.tui._backend import LiveBackend

        return LiveBackend(opts, env)

    driver = None
    if sys.platform != "win32":  # a closed terminal ends Circle through this driver (``_hangup.py``)
        from circle.entrypoints.tui._driver import DiffingDriver

        driver = DiffingDriver
    app = CircleApp(None, opts, make_backend=make_backend, theme=theme, driver_class=driver, typed=typed)
    try:
        app.run()
    except KeyboardInterrupt:
        return 130
    finally:
        let_passes()  # it stopped before it loaded
    with contextlib.suppress(OSError):  # the terminal may be gone (it hung up)
        for line in app.exit_lines:
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
        if app.error:
            sys.stderr.write(f"circle: {app.error}\n")
    code = app.return_code
    return 1 if code is None and app.error else (code or 0)


def _in_sessions_folder(opts: RunOptions, env: dict[str, str]) -> RunOptions:
    """The session ``--session`` opens works in its own folder, as in every mode (and says so).

    Without ``--session`` nothing is imported: the first frame does not wait for the session modules."""
    if not opts.session:
        return opts
    from circle.domain.errors import CircleError
    from circle.entrypoints._session_folder import in_sessions_folder  # one row, no session modules

    try:
        moved = in_sessions_folder(opts, env, sys.stderr)
    except CircleError:  # the interface reports an unreadable store itself
        return opts
    _read_tail_ahead(opts.session, env)
    return moved


READ_AHEAD = 60
"""Messages of a resumed session's tail read ahead: :data:`~.widgets.earlier.TAIL`, which the
session opens with (not imported here: that module loads the session's types before the frame)."""


def _read_tail_ahead(session: str, env: dict[str, str]) -> None:
    """Walk the resumed session's tail in SQLite on a thread while the interface loads (see
    :mod:`circle.adapters.storage.tail_ahead`): in a 10,000-message session some 0.1 s."""
    from circle.adapters._shared.data_folder import data_dir
    from circle.adapters.storage.tail_ahead import read_ahead

    session_id, _, at = session.partition(":")
    if not at:  # from a checkpoint the session opens a branch of its own: nothing to read ahead
        read_ahead(data_dir(env) / "circle.sqlite", session_id, count=READ_AHEAD)


__all__ = ["run_tui"]
