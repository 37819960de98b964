"""Which branch of a session a reopened conversation goes on: where it went on last, or a new
branch from any checkpoint (a tree within the one session, as pi keeps it)."""

from __future__ import annotations

from circle.domain.checkpoints import MAIN_BRANCH
from circle.domain.errors import SessionNotFoundError

from .ports.session_store import SessionStore

BRANCH_PREFIX = "branch-"


async def latest_branch(store: SessionStore, session_id: str) -> str:
    """The branch whose head was written last (main for a session with one branch or none)."""
    branches = await store.branches(session_id)
    if len(branches) <= 1:
        return branches[0].name if branches else MAIN_BRANCH
    seq: dict[str, int] = {}
    for branch in branches:  # each head alone: a long session's messages are not all read for it
        head = (await store.tail(session_id, branch=branch.name, count=1)).checkpoints
        seq[branch.name] = head[-1].seq if head else 0
    return max(branches, key=lambda b: (seq[b.name], b.name == MAIN_BRANCH)).name


async def pick_branch(store: SessionStore, session_id: str, *, at_checkpoint: str | None) -> str:
    """The branch to go on: the latest one, or (``at_checkpoint``) the branch whose head it is, else
    a new ``branch-N`` made there.

    Raises:
        SessionNotFoundError: the checkpoint is not one of the session's.
    """
    if at_checkpoint is None:
        return await latest_branch(store, session_id)
    if at_checkpoint not in {cp.id for cp in await store.checkpoints(session_id)}:
        raise SessionNotFoundError(f"no checkpoint {at_checkpoint} in session {session_id}")
    branches = await store.branches(session_id)
    at_head = next((b.name for b in branches if b.head_id == at_checkpoint), None)
    if at_head is not None:  # a branch's head: go on along that branch, no empty twin
        return at_head
    taken = {b.name for b in branches}
    number = 1
    while f"{BRANCH_PREFIX}{number}" in taken:
        number += 1
    name = f"{BRANCH_PREFIX}{number}"
    await store.create_branch(session_id, name, head_id=at_checkpoint)
    return name


__all__ = ["BRANCH_PREFIX", "latest_branch", "pick_branch"]
