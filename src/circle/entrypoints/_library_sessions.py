"""The library's stored sessions: listing them (``circle.Agent.sessions()``) and choosing which one
an agent opens (a new one, one by id, the latest, or a fork at a message)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from circle.adapters._shared.settings_files import data_dir
from circle.application.ports.session_store import SessionInfo, SessionStore
from circle.application.session_branches import latest_branch
from circle.domain.errors import ConfigError, SessionNotFoundError

from ._options import RunOptions


async def list_sessions(
    workspace: str | os.PathLike[str] | None,
    *,
    store: SessionStore | None,
    env: Mapping[str, str],
    limit: int,
) -> list[SessionInfo]:
    """The stored sessions, newest first: ``workspace``'s, or every folder's (None).

    Without ``store``, circle.sqlite in the data folder is read; none there yet means none stored.
    """
    folder = None if workspace is None else str(Path(workspace).resolve())
    if store is not None:
        return await store.list_sessions(workspace=folder, limit=limit)
    path = data_dir(env) / "circle.sqlite"
    if not path.exists():
        return []
    from circle.adapters.storage.sqlite_store import SqliteSessionStore

    sqlite = SqliteSessionStore(path)
    try:
        return await sqlite.list_sessions(workspace=folder, limit=limit)
    finally:
        await sqlite.aclose()


def choose_session(
    opts: RunOptions, *, session_id: str | None, continue_session: bool, fork_from: str | None
) -> None:
    """Put the library's session arguments into ``opts`` as the command line's would be.

    Raises:
        ConfigError: more than one of them is given.
    """
    given = [
        name
        for name, value in (
            ("session_id", session_id),
            ("continue_session", continue_session),
            ("fork_from", fork_from),
        )
        if value
    ]
    if len(given) > 1:
        raise ConfigError(f"give one of {' and '.join(given)}: each picks the session to open")
    opts.session = session_id
    opts.continue_last = continue_session
    opts.fork = fork_from


def opens_stored(opts: RunOptions) -> bool:
    """The agent opens (or forks) a stored session rather than starting a new one."""
    return bool(opts.session or opts.continue_last or opts.fork)


async def fork_point(store: SessionStore, opts: RunOptions, fork_at: int | None) -> None:
    """Turn ``fork_at`` (how many of the session's messages the fork keeps, as ``agent.messages``
    counts them) into the checkpoint ``opts.fork`` names.

    Raises:
        SessionNotFoundError: no session has that id.
        ConfigError: ``fork_at`` is not between 1 and the number of messages.
    """
    if fork_at is None or opts.fork is None:
        return
    source = opts.fork.partition(":")[0]
    if await store.get_session(source) is None:
        raise SessionNotFoundError(f"no session {source!r}: circle.Agent.sessions() lists them")
    history = await store.history(source, branch=await latest_branch(store, source))
    if not 1 <= fork_at <= len(history):
        raise ConfigError(f"fork_at={fork_at}: the session has {len(history)} messages (the first is 1)")
    opts.fork = f"{source}:{history[fork_at - 1].id}"


__all__ = ["choose_session", "fork_point", "list_sessions", "opens_stored"]
