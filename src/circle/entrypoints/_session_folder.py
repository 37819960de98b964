"""A session works in its own folder: ``--session ID`` started elsewhere moves there, in every mode.

Light on purpose: the interface runs it before its first frame, so it reads one row of the store
and loads neither the session modules nor the settings' types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from circle.adapters._shared.data_folder import data_dir

from ._options import RunOptions


def in_sessions_folder(opts: RunOptions, env: Mapping[str, str], err: TextIO) -> RunOptions:
    """``opts`` in the folder of the session ``--session`` opens, when that is another one (and
    still there): a session works in its own folder, and says so on ``err``.

    Raises:
        StorageError: the store cannot be read.
    """
    path = data_dir(env) / "circle.sqlite"
    if not opts.session or not path.exists():
        return opts
    from circle.adapters.storage.session_folder import stored_workspace

    session_id = opts.session.partition(":")[0]
    workspace = stored_workspace(path, session_id)
    if workspace is None or Path(workspace) == Path(opts.workspace) or not Path(workspace).is_dir():
        return opts
    err.write(f"circle: session {session_id} works in {workspace}, its own folder\n")
    return replace(opts, workspace=Path(workspace))


__all__ = ["in_sessions_folder"]
