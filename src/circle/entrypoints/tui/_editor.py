"""/editor: the input box's text in the person's own editor ($VISUAL, else $EDITOR).

The interface steps aside (the terminal is the editor's while it runs), the text goes in a
temporary file, and what the file holds when the editor ends comes back into the input box. An
editor that exits with an error leaves the input as it was; so does one that cannot be started,
with one line saying why.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from textual.app import App, SuspendNotSupported

from circle.domain.errors import ConfigError

NO_EDITOR = "/editor opens $VISUAL or $EDITOR, and neither is set (export EDITOR=vim, for one)"


def editor_command(env: Mapping[str, str]) -> list[str]:
    """The person's editor as a command line. Raises ConfigError when none is set or it is malformed."""
    chosen = env.get("VISUAL", "").strip() or env.get("EDITOR", "").strip()
    if not chosen:
        raise ConfigError(NO_EDITOR)
    try:
        return shlex.split(chosen)
    except ValueError as exc:
        raise ConfigError(f"cannot read the editor command {chosen!r}: {exc}") from None


def edit(app: App[int], text: str, *, env: Mapping[str, str] | None = None) -> str | None:
    """Let the person edit ``text``; the edited text, or None when the editor failed (exit code not 0).

    Raises:
        ConfigError: no editor is set, or it cannot be started.
    """
    command = editor_command(os.environ if env is None else env)
    with tempfile.TemporaryDirectory(prefix="circle-edit-") as folder:
        path = Path(folder) / "message.md"
        ended = text if not text or text.endswith("\n") else text + "\n"  # as editors end a file
        path.write_text(ended, encoding="utf-8")
        try:
            with contextlib.ExitStack() as aside:
                with contextlib.suppress(SuspendNotSupported):  # headless: nothing to step aside from
                    aside.enter_context(app.suspend())
                code = subprocess.call([*command, str(path)])
        except OSError as exc:
            raise ConfigError(f"cannot start the editor {command[0]}: {exc.strerror or exc}") from None
        if code != 0:
            return None
        edited = path.read_text(encoding="utf-8", errors="replace")
    return edited[:-1] if edited.endswith("\n") and not text.endswith("\n") else edited


__all__ = ["NO_EDITOR", "edit", "editor_command"]
