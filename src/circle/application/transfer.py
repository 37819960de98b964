"""Export a stored session, and import an exported one as a new session.

The import uses the store's ordinary methods: it creates the session, then appends every message
in ``seq`` order on the branch that owns it (:func:`~circle.domain.export.import_plan`), starting
a branch at its fork point with ``create_branch``, then names the remaining branches and labels,
and keeps the session's name and thinking level (``set_state``) when the archive has them.
The store gives the new session and each checkpoint a fresh id and its own clock readings, so the
round trip is exact up to those (:func:`~circle.domain.export.comparable_jsonl`).

The port has no transaction spanning several calls, so the whole file is read and checked before
the first write, and a store failure part way deletes the new session (``delete_session``).
"""

from __future__ import annotations

import contextlib
from typing import Protocol

from circle.domain.checkpoints import Branch, Label
from circle.domain.errors import ConfigError, StorageError
from circle.domain.export import ExportFormat, SessionArchive, import_plan, to_jsonl
from circle.domain.export_pages import to_html, to_markdown

from .ports.session_store import SessionInfo, SessionState, SessionStore


class TransferStore(SessionStore, Protocol):
    """The session store with the branch and label methods both stores have."""

    async def create_branch(self, session_id: str, name: str, *, head_id: str | None) -> Branch: ...

    async def add_label(self, checkpoint_id: str, text: str) -> Label: ...

    async def labels(self, session_id: str) -> list[Label]: ...


async def export_session(store: TransferStore, session_id: str) -> SessionArchive:
    """Everything stored of one session.

    Raises:
        ConfigError: there is no such session.
        StorageError: the store could not read it.
    """
    info = await store.get_session(session_id)
    if info is None:
        raise ConfigError(f"no session {session_id}")
    return SessionArchive(
        id=info.id,
        workspace=info.workspace,
        title=info.title,
        created_at=info.created_at,
        updated_at=info.updated_at,
        checkpoints=tuple(await store.checkpoints(session_id)),
        branches=tuple(await store.branches(session_id)),
        labels=tuple(await store.labels(session_id)),
        name=info.name,
        thinking=(await store.state(session_id)).thinking,
    )


def render(archive: SessionArchive, export_format: ExportFormat, *, branch: str | None = None) -> str:
    """The archive in ``export_format``; Markdown and HTML show ``branch`` (main by default)."""
    if export_format == "jsonl":
        return to_jsonl(archive)
    if export_format == "md":
        return to_markdown(archive, branch=branch)
    return to_html(archive, branch=branch)


async def import_session(
    store: TransferStore, archive: SessionArchive, *, workspace: str | None = None
) -> SessionInfo:
    """Store ``archive`` as a new session (in ``workspace``, else the archive's folder).

    Raises:
        ConfigError: a checkpoint of the archive is on no branch (nothing is written then).
        StorageError: the store failed; the partial session is deleted again.
    """
    steps = import_plan(archive)
    info = await store.create_session(workspace=workspace or archive.workspace, title=archive.title)
    try:
        new_ids: dict[str, str] = {}
        for step in steps:
            parent = step.checkpoint.parent_id
            if step.starts_branch and parent is not None:
                await store.create_branch(info.id, step.branch, head_id=new_ids[parent])
            stored = await store.append(info.id, step.checkpoint.message, branch=step.branch)
            new_ids[step.checkpoint.id] = stored.id
        named = {step.branch for step in steps}
        for branch in archive.branches:
            if branch.name not in named:
                head = new_ids[branch.head_id] if branch.head_id is not None else None
                await store.create_branch(info.id, branch.name, head_id=head)
        for label in archive.labels:
            await store.add_label(new_ids[label.checkpoint_id], label.text)
        if archive.name is not None:
            await store.set_name(info.id, archive.name)
        if archive.thinking is not None:
            await store.set_state(info.id, SessionState(thinking=archive.thinking))
    except BaseException as exc:
        await _discard(store, info.id)
        if isinstance(exc, StorageError):
            raise StorageError(f"the import failed, nothing was kept: {exc.message}") from exc
        raise
    return await store.get_session(info.id) or info


async def _discard(store: TransferStore, session_id: str) -> None:
    """Remove a half-imported session; a store failing again here keeps the first error to report."""
    with contextlib.suppress(StorageError):
        await store.delete_session(session_id)


__all__ = ["TransferStore", "export_session", "import_session", "render"]
