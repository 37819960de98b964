"""@file mentions in a message: finding them (bare, quoted, escaped spaces) and completing paths."""

from __future__ import annotations

import re
from dataclasses import dataclass

from circle.application.attachments import Mention, find_mentions

_UNESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True, slots=True)
class Fragment:
    """The @word being typed at the cursor: where it starts and the path typed so far."""

    start: int
    typed: str
    quoted: bool


def fragment_at(text: str, cursor: int) -> Fragment | None:
    """The mention the cursor is in (at its end), if any."""
    before = text[:cursor]
    quoted = re.search(r"""(?:(?<=\s)|^)@"([^"\n]*)$""", before)
    if quoted:
        return Fragment(quoted.start(), quoted.group(1), quoted=True)
    bare = re.search(r"(?:(?<=\s)|^)@((?:\\.|[^\s\\])*)$", before)
    if bare:
        return Fragment(bare.start(), _UNESCAPE.sub(r"\1", bare.group(1)), quoted=False)
    return None


def split_typed(typed: str) -> tuple[str, str]:
    """("folder/", "name prefix") of a typed path."""
    folder, _, name = typed.rpartition("/")
    return (folder + "/" if folder or typed.startswith("/") else ""), name


def written(path: str, *, quoted: bool, is_dir: bool) -> str:
    """A completed path as it goes into the message: quoted when it was, else spaces escaped."""
    if quoted:
        return f'@"{path}"' if not is_dir else f'@"{path}'
    return "@" + path.replace(" ", "\\ ")


__all__ = ["Fragment", "Mention", "find_mentions", "fragment_at", "split_typed", "written"]
