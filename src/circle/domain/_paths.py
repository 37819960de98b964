"""Paths a command names, as absolute normalized strings, and the places that always ask.

:func:`path_of` turns a decoded word into the path bash would pass: ``~``, ``$HOME``, ``${HOME}``
and ``$PWD`` resolved, relative paths joined to the folder the command runs in, ``//`` and ``..``
folded. A word with unquoted ``*``, ``?`` or ``[...]`` gives a glob in which each quoted glob
character is written as a one-character class (``[*]``), as :func:`glob.escape` does, and a
negated class as ``[!...]`` (bash's ``[^...]``), so the caller can expand it with :mod:`glob`.
"""

from __future__ import annotations

import posixpath
import re
from fnmatch import fnmatchcase

from ._bash import Word

__all__ = ["always_ask_place", "has_braces", "normal", "path_of"]

_BRACES = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_MAGIC = re.compile(r"([*?\[])")


def normal(path: str) -> str:
    """``path`` with ``//``, ``.`` and ``..`` folded (lexically)."""
    return posixpath.normpath(re.sub("/+", "/", path or "/"))


def has_braces(word: Word) -> bool:
    """True when ``word`` may hold a brace expansion (``{a,b}``, ``{1..3}``)."""
    return word.pattern and bool(_BRACES.search(word.text))


def _escape(text: str, *, glob: bool) -> str:
    return _MAGIC.sub(r"[\1]", text) if glob else text


def path_of(word: Word, *, home: str, cwd: str | None) -> tuple[str, bool] | None:
    """The absolute path ``word`` names and whether it is a glob; None when it depends on what
    is known only when it runs (a variable, ``~user``, a brace expansion, an unknown folder)."""
    if word.substitutions or has_braces(word):
        return None
    glob = word.pattern or word.has("glob")
    out: list[str] = []
    for part in word.parts:
        if part.kind == "text":
            out.append(part.value.replace("[^", "[!") if word.pattern else _escape(part.value, glob=glob))
        elif part.kind == "glob":
            out.append(part.value)
        elif (part.kind, part.value) in (("tilde", "~"), ("var", "HOME")):
            out.append(home)
        elif part.kind == "var" and part.value == "PWD" and cwd is not None:
            out.append(cwd)
        else:
            return None
    path = "".join(out)
    if not path.startswith("/"):
        if cwd is None:
            return None
        path = f"{cwd}/{path}"
    return normal(path), glob


_GIT_INSIDE = ("hooks", "config", "info")


def always_ask_place(path: str, *, home: str, data_dir: str | None, recursive: bool = False) -> str:
    """The always-ask place that writing ``path`` changes, or empty.

    The places: Circle's data folder, ``<home>/.circle``, git's own configuration
    (``~/.gitconfig``, ``~/.config/git``), and at any depth ``.git/hooks``, ``.git/info``,
    ``.git/config``, ``.git``, ``.gitmodules`` and ``.circle/``. Names are matched without case
    (as macOS folders are), and a glob matches a place it could expand to. A recursive write (or
    a move) of a folder that holds the data folder or ``<home>/.circle`` changes it too.
    """
    lowered = path.lower()
    for folder, name in (
        (data_dir, "Circle's data folder"),
        (posixpath.join(home, ".circle"), "~/.circle"),
        (posixpath.join(home, ".gitconfig"), "~/.gitconfig"),
        (posixpath.join(home, ".config/git"), "~/.config/git"),
    ):
        if not folder:
            continue
        folder = normal(folder).lower()
        if lowered == folder or lowered.startswith(folder + "/"):
            return name
        if recursive and folder.startswith(lowered.rstrip("/") + "/"):
            return name
    return _git_or_circle(lowered)


def _named(part: str, name: str) -> bool:
    return part == name or (part[:1] == name[:1] and fnmatchcase(name, part))


def _git_or_circle(path: str) -> str:
    """``.git/hooks``, ``.git/info`` and ``.git/config`` count below any ``.git`` (``.git/modules/x``)."""
    parts = [p for p in path.split("/") if p]
    in_git = False
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if _named(part, ".circle"):
            return ".circle/"
        if _named(part, ".gitmodules") and last:
            return ".gitmodules"
        if in_git and (inside := next((n for n in _GIT_INSIDE if _named(part, n)), "")):
            return f".git/{inside}"
        if _named(part, ".git"):
            if last:
                return ".git"
            in_git = True
    return ""
