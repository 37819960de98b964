"""Stored rows read back as domain values: sessions, and checkpoints each parsed when it is reached
(the parsing of a whole session done with the cyclic garbage collector paused)."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from pydantic import ValidationError

from circle.application.ports.session_store import SessionInfo
from circle.domain.checkpoints import Checkpoint
from circle.domain.errors import StorageError
from circle.domain.messages import Message

CheckpointTuple = tuple[str, str | None, int, str, float]
"""A row as ``CHECKPOINT_ROWS`` reads it: id, parent_id, seq, message_json, created_at."""


@contextmanager
def bulk_parsing() -> Iterator[None]:
    """Parse thousands of messages with the cyclic garbage collector paused: they hold no cycles,
    and its passes over the heap of a running interface took a third of a long session's load."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def to_checkpoint(session_id: str, row: CheckpointTuple) -> Checkpoint:
    checkpoint_id, parent_id, seq, message_json, created_at = row
    try:
        message = Message.model_validate_json(message_json)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise StorageError(
            f"checkpoint {checkpoint_id} of session {session_id} cannot be read"
            f" (written by a newer Circle?): {where}: {first['msg']}"
        ) from error
    return Checkpoint(
        id=checkpoint_id,
        session_id=session_id,
        parent_id=parent_id,
        seq=seq,
        message=message,
        created_at=created_at,
    )


class LazyCheckpoints(Mapping[str, Checkpoint]):
    """Checkpoint rows by id, each message parsed only when ``path_to`` reaches it."""

    def __init__(self, session_id: str, rows: Sequence[CheckpointTuple]) -> None:
        self._session_id = session_id
        self._rows = {row[0]: row for row in rows}

    def __getitem__(self, checkpoint_id: str) -> Checkpoint:
        return to_checkpoint(self._session_id, self._rows[checkpoint_id])

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


SessionTuple = tuple[str, str, str | None, float, float, int, str | None, str | None, str | None, int]


def session_infos(rows: list[SessionTuple]) -> list[SessionInfo]:
    """Session rows as ``GET_SESSION`` and the listings read them."""
    return [
        SessionInfo(
            id=session_id,
            workspace=workspace,
            title=title,
            created_at=created_at,
            updated_at=updated_at,
            message_count=int(message_count),
            name=name,
            forked_from=forked_from,
            forked_at=forked_at,
            size_bytes=int(size_bytes),
        )
        for (
            session_id,
            workspace,
            title,
            created_at,
            updated_at,
            message_count,
            name,
            forked_from,
            forked_at,
            size_bytes,
        ) in rows
    ]


__all__ = [
    "CheckpointTuple",
    "LazyCheckpoints",
    "SessionTuple",
    "bulk_parsing",
    "session_infos",
    "to_checkpoint",
]
