"""The unified diff of a file change: what an approval card shows before a file tool runs, and
what the call's result keeps afterwards, so a redrawn conversation shows the change as it was."""

from __future__ import annotations

import difflib

DIFF_LIMIT = 200_000
"""The longest diff a call's result keeps (characters); a longer change keeps none."""


def unified_diff(before: str, after: str, path: str) -> str:
    """``before`` against ``after`` as ``a/path`` and ``b/path``, three lines of context, each line
    ending in a newline but the last."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
        n=3,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip("\n")


def change_diff(before: bytes | None, after: bytes | None, *, path: str) -> str | None:
    """The diff a change from ``before`` to ``after`` made (None for an absent file), decoded as
    UTF-8 with undecodable bytes replaced; None when it is longer than :data:`DIFF_LIMIT`."""
    if len(before or b"") + len(after or b"") > 4 * DIFF_LIMIT:
        return None
    old = (before or b"").decode("utf-8", errors="replace")
    new = (after or b"").decode("utf-8", errors="replace")
    diff = unified_diff(old, new, path)
    return diff if len(diff) <= DIFF_LIMIT else None


__all__ = ["DIFF_LIMIT", "change_diff", "unified_diff"]
