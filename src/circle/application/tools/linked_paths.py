"""A command's operands as the files they name through symlinks, for deny and ask rules.

``touch here/secret`` with ``here`` a link to ``.`` touches ``secret``, and ``touch alias`` with
``alias`` a link to ``secret`` does too: a deny rule of ``touch secret*`` must hold for both.
:func:`linked_commands` gives each simple command whose operands resolve through a symlink with
those operands as real paths (written below the workspace as given, where they are inside it);
the policy matches its deny and ask rules against them, never its allow rules
(:attr:`circle.application.ports.approver.ApprovalRequest.resolved`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from circle.application.ports.file_system import FileSystem
from circle.domain.workspace import is_inside, join_in_workspace

MAX_LINKED_WORDS = 64
"""At most this many operands of one command are looked up."""


async def linked_commands(
    words: Sequence[Sequence[str]], files: FileSystem, *, workspace: str
) -> tuple[tuple[str, ...], ...]:
    """The simple commands of ``words`` with each operand that names a path through a symlink
    replaced by its real path; commands where none does are left out."""
    root = workspace.rstrip("/") or "/"
    real_root = await _real(files, root) or root
    budget = MAX_LINKED_WORDS
    found: list[tuple[str, ...]] = []
    for argv in words:
        changed = list(argv)
        for index, word in enumerate(argv[1:], start=1):
            if budget <= 0 or not word or word.startswith(("-", "$", "~")) or "\x00" in word:
                continue
            budget -= 1
            full = posixpath.normpath(join_in_workspace(root, word))
            real = await _real(files, full)
            if real is None or real == full:
                continue
            if is_inside(real_root, real):
                real = posixpath.normpath(root + "/" + posixpath.relpath(real, real_root))
            if real != full:
                changed[index] = real
        if changed != list(argv):
            found.append(tuple(changed))
    return tuple(found)


async def _real(files: FileSystem, path: str) -> str | None:
    try:
        return await files.resolve(path)
    except (OSError, ValueError):
        return None


__all__ = ["MAX_LINKED_WORDS", "linked_commands"]
