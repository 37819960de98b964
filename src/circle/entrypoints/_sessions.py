"""`circle sessions delete ID` and `circle sessions show ID`: what the listing's neighbours do."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from typing import TextIO

import typer

from circle.domain.checkpoint_tree import tree_order
from circle.domain.checkpoints import Checkpoint
from circle.domain.errors import StorageError
from circle.domain.messages import Message, ToolResultPart


def human_size(size: int) -> str:
    """Bytes as a person reads them: 812 B, 4.2 KB, 1.3 MB."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _confirmed(question: str, stdin: TextIO | None) -> bool | None:
    """The person's answer on the terminal; None when stdin is not one (nobody to ask)."""
    if stdin is None or not stdin.isatty():
        return None
    typer.echo(question, nl=False, err=True)
    return stdin.readline().strip().lower() in ("y", "yes")


async def delete(path: Path, session_id: str, *, yes: bool, stdin: TextIO | None = None) -> int:
    """Delete a session after asking (``yes`` skips the question); refused while another Circle
    has it open."""
    from circle.adapters.storage.session_lock import SqliteSessionLease
    from circle.adapters.storage.sqlite_store import SqliteSessionStore

    store = SqliteSessionStore(path)
    try:
        info = await store.get_session(session_id) if path.exists() else None
        if info is None:
            raise StorageError(f"no session {session_id}: `circle sessions` lists them")
        if not yes:
            question = f"delete session {session_id} ({info.message_count} messages)? [y/N] "
            answer = _confirmed(question, stdin or sys.stdin)
            if answer is None:
                typer.echo(
                    f"circle: not deleting session {session_id}: answer on a terminal, or pass --yes",
                    err=True,
                )
                return 1
            if not answer:
                typer.echo(f"kept session {session_id}")
                return 0
        lease = SqliteSessionLease(store)
        await lease.acquire(session_id)  # SessionBusyError while another Circle has it open
        await store.delete_session(session_id)
    finally:
        await store.aclose()
    typer.echo(f"deleted session {session_id} ({info.message_count} messages)")
    return 0


def _first_line(message: Message) -> str:
    text = message.text.strip()
    if not text:
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        text = results[0].text.strip() if results else ""
    line = text.splitlines()[0] if text else ""
    calls = ", ".join(f"{call.name}(…)" for call in message.tool_calls)
    shown = " ".join(part for part in (line, calls) if part)
    return shown if len(shown) <= 72 else shown[:71] + "…"


def tree_lines(checkpoints: list[Checkpoint], marks: dict[str, list[str]]) -> list[str]:
    """One line a checkpoint, as :func:`~circle.domain.checkpoint_tree.tree_order` lays them out."""
    lines = []
    for checkpoint, guides in tree_order(checkpoints):
        tags = "".join(f"  [{mark}]" for mark in marks.get(checkpoint.id, []))
        text = _first_line(checkpoint.message)
        lines.append(f"{guides}{checkpoint.id}  {checkpoint.message.role:<9} {text}{tags}")
    return lines


async def show(path: Path, session_id: str) -> int:
    """Print the session's checkpoint tree briefly, with branch heads and labels."""
    from circle.adapters.storage.sqlite_store import SqliteSessionStore

    store = SqliteSessionStore(path)
    try:
        info = await store.get_session(session_id) if path.exists() else None
        if info is None:
            raise StorageError(f"no session {session_id}: `circle sessions` lists them")
        checkpoints = await store.checkpoints(session_id)
        branches = await store.branches(session_id)
        labels = await store.labels(session_id)
    finally:
        await store.aclose()
    marks: dict[str, list[str]] = defaultdict(list)
    for branch in branches:
        if branch.head_id is not None:
            marks[branch.head_id].append(f"{branch.name} head")
    for label in labels:
        marks[label.checkpoint_id].append(label.text)
    header = f"session {info.id}"
    if info.name:
        header += f" ({info.name})"
    header += f"  {info.workspace}  {info.message_count} messages  {human_size(info.size_bytes)}"
    if info.forked_from:
        header += f"  forked from {info.forked_from}" + (f" at {info.forked_at}" if info.forked_at else "")
    typer.echo(header)
    if len(branches) > 1:
        names = sorted((b.name for b in branches), key=lambda name: (name != "main", name))
        typer.echo(f"branches: {', '.join(names)}  (go on from any checkpoint: --session {info.id}:ID)")
    for line in tree_lines(checkpoints, marks):
        typer.echo(line)
    return 0


async def label(path: Path, target: str, text: str) -> int:
    """Label a checkpoint (``ID:CHECKPOINT``), or the head the session goes on from (``ID``)."""
    from circle.adapters.storage.sqlite_store import SqliteSessionStore
    from circle.application.session_branches import latest_branch

    session_id, _, at = target.partition(":")
    if not text.strip():
        raise StorageError("a label needs some text")
    store = SqliteSessionStore(path)
    try:
        if not path.exists() or await store.get_session(session_id) is None:
            raise StorageError(f"no session {session_id}: `circle sessions` lists them")
        if not at:
            heads = {b.name: b.head_id for b in await store.branches(session_id)}
            at = heads.get(await latest_branch(store, session_id)) or ""
            if not at:
                raise StorageError(f"session {session_id} has no messages to label yet")
        elif at not in {cp.id for cp in await store.checkpoints(session_id)}:
            raise StorageError(f"no checkpoint {at} in session {session_id}")
        await store.add_label(at, text.strip())
    finally:
        await store.aclose()
    typer.echo(f"labelled {at} of session {session_id}: {text.strip()}")
    return 0


__all__ = ["delete", "human_size", "label", "show", "tree_lines"]
