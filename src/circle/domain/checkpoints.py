"""The checkpoint tree: each stored message is a checkpoint with a parent.

A session is a tree. A branch names a head checkpoint; the conversation on that branch is the
path from the root to the head. Labels name checkpoints for people. Nothing here does I/O:
the store loads checkpoints and these functions reason about them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .messages import Message

MAIN_BRANCH = "main"


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """One stored message and its place in the tree."""

    id: str
    session_id: str
    parent_id: str | None
    seq: int
    message: Message
    created_at: float


@dataclass(frozen=True, slots=True)
class Branch:
    session_id: str
    name: str
    head_id: str | None


@dataclass(frozen=True, slots=True)
class Label:
    checkpoint_id: str
    text: str


def path_to(by_id: Mapping[str, Checkpoint], head_id: str | None) -> list[Checkpoint]:
    """The checkpoints from the root to ``head_id``, oldest first.

    Raises:
        ValueError: a parent is missing, or the parents form a cycle.
    """
    path: list[Checkpoint] = []
    seen: set[str] = set()
    current = head_id
    while current is not None:
        if current in seen:
            raise ValueError(f"checkpoint cycle at {current}")
        seen.add(current)
        checkpoint = by_id.get(current)
        if checkpoint is None:
            raise ValueError(f"missing checkpoint {current}")
        path.append(checkpoint)
        current = checkpoint.parent_id
    path.reverse()
    return path


def check_tree(
    checkpoints: Iterable[Checkpoint],
    branches: Iterable[Branch] = (),
    labels: Iterable[Label] = (),
) -> list[str]:
    """Every way the checkpoints, branches and labels fail to fit together (empty when sound)."""
    by_id: dict[str, Checkpoint] = {}
    problems: list[str] = []
    for cp in checkpoints:
        if cp.id in by_id:
            problems.append(f"duplicate checkpoint {cp.id}")
        by_id[cp.id] = cp
    sessions = {cp.session_id for cp in by_id.values()}
    if len(sessions) > 1:
        problems.append(f"checkpoints from several sessions: {sorted(sessions)}")
    for cp in by_id.values():
        parent = by_id.get(cp.parent_id) if cp.parent_id is not None else None
        if cp.parent_id is not None and parent is None:
            problems.append(f"checkpoint {cp.id} has a missing parent {cp.parent_id}")
        elif parent is not None and parent.seq >= cp.seq:
            problems.append(f"checkpoint {cp.id} is not newer than its parent {parent.id}")
    for branch in branches:
        if branch.head_id is not None and branch.head_id not in by_id:
            problems.append(f"branch {branch.name!r} points at a missing checkpoint {branch.head_id}")
            continue
        try:
            path_to(by_id, branch.head_id)
        except ValueError as exc:
            problems.append(f"branch {branch.name!r}: {exc}")
    for label in labels:
        if label.checkpoint_id not in by_id:
            problems.append(f"label {label.text!r} names a missing checkpoint {label.checkpoint_id}")
    return problems


__all__ = ["MAIN_BRANCH", "Branch", "Checkpoint", "Label", "check_tree", "path_to"]
