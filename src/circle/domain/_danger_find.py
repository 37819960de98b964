"""``find`` of a protected folder that deletes (``-delete``) or runs a removal on what it finds.

``find ~ -delete`` and ``find / -exec rm -rf {} +`` remove what ``rm -rf ~`` and ``rm -rf /``
remove: refused. A name test that cannot match the protected folder (``find . -name '*.pyc'
-delete``) or any other test (``-newer``, ``-size``, ``-path``) keeps it ordinary work; with
``-o``, ``!`` or parentheses the tests are not followed, and the command is risky instead. A start
folder known only at run time is tried as :func:`._danger_values.could` tries a target.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from ._bash import Part, Word
from ._danger_values import candidates, could, literal

if TYPE_CHECKING:
    from .approvals import _Place, _Scope, _Walk

__all__ = ["find"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_VALUED = _words("-maxdepth -mindepth -regextype -type -xtype -D -fprint -fprint0 -fls -fprintf")
_QUIET = _words(
    "-depth -d -xdev -mount -noleaf -follow -daystart -warn -nowarn -ignore_readdir_race "
    "-noignore_readdir_race -true -print -print0 -ls -delete -a -and , -type -xtype -maxdepth "
    "-mindepth -regextype -prune -quit"
)
_COMPLEX = frozenset({"-o", "-or", "!", "-not", "("})
_EXECS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_RECURSIVE = {"rm": "-r", "unlink": "-r", "shred": "-r", "chmod": "-R", "chown": "-R", "chgrp": "-R"}


@dataclass(slots=True)
class _Expression:
    delete: bool = False
    runs: tuple[tuple[Word, ...], ...] = ()
    names: tuple[tuple[str, bool], ...] = ()
    restricted: bool = False
    complex: bool = False
    mindepth: int = 0
    maxdepth: int | None = None


def _expression(args: Sequence[Word]) -> _Expression:
    found = _Expression()
    runs: list[tuple[Word, ...]] = []
    names: list[tuple[str, bool]] = []
    index = 0
    while index < len(args):
        text = args[index].text
        value = args[index + 1].text if index + 1 < len(args) else ""
        if text in _EXECS:
            end = index + 1
            while end < len(args) and args[end].text not in (";", "+"):
                end += 1
            runs.append(tuple(args[index + 1 : end]))
            index = end + 1
            continue
        found.delete |= text == "-delete"
        found.complex |= text in _COMPLEX
        if text in ("-name", "-iname"):
            names.append((value, text == "-iname"))
        elif text in ("-mindepth", "-maxdepth") and value.isdigit():
            if text == "-mindepth":
                found.mindepth = int(value)
            else:
                found.maxdepth = int(value)
        elif text.startswith("-") and text not in _QUIET and text not in _VALUED:
            found.restricted = True
        index += 2 if text in _VALUED or text in ("-name", "-iname") else 1
    found.runs, found.names = tuple(runs), tuple(names)
    return found


def find(walk: _Walk, args: Sequence[Word], scope: _Scope, depth: int) -> None:
    """Refuse, or mark risky, a ``find`` that removes a protected folder."""
    index = 0
    while index < len(args) and args[index].text in ("-H", "-L", "-P", "-D", "-O"):
        index += 2 if args[index].text == "-D" else 1
    starts = []
    while index < len(args) and not args[index].text.startswith(("-", "(", "!")):
        starts.append(args[index])
        index += 1
    expression = _expression(args[index:])
    if not expression.delete and not expression.runs:
        return
    place = walk.place(scope)

    def rule(where: _Place, start: Sequence[Word]) -> str:
        path = where.resolve(start[-1]) if start else None
        return _removes(walk, where, posixpath.normpath(path), expression, depth) if path else ""

    for start in starts or [literal(".")]:
        path = place.resolve(start)
        if path is not None and "\x00" not in path and "\x01" not in path:
            found = rule(place, [start])
            if expression.complex:
                walk.risk(f"{found.removesuffix(' is always refused')} could happen" if found else "")
            else:
                walk.refuse(found)
        else:
            walk.risk(could(walk, rule, [start], place, open_args=False, name="find"))


def _removes(walk: _Walk, place: _Place, start: str, expression: _Expression, depth: int) -> str:
    """Why ``find START EXPRESSION`` is refused: it deletes, or runs a refused command on, a
    protected folder (or everything in it)."""
    if "\x00" in start or "\x01" in start:
        return ""
    for folder in candidates(place.home, place.workspace):
        below = start == "/" or folder == start or folder.startswith(start + "/")
        if not below:
            continue
        level = 0 if folder == start else folder[len(start) :].strip("/").count("/") + 1
        if level < expression.mindepth - (1 if folder == start else 0):
            continue
        if expression.maxdepth is not None and level > expression.maxdepth:
            continue
        if expression.restricted and not expression.complex:
            continue
        base = posixpath.basename(folder) or "/"
        names = expression.names if not expression.complex else ()
        if not all(fnmatchcase(base.lower() if i else base, p.lower() if i else p) for p, i in names):
            continue
        if expression.delete:
            return f"find -delete of {place.describe(folder)} is always refused"
        for run in expression.runs:
            found = _run_on(walk, place, run, folder, depth)
            if found:
                return found
    return ""


def _run_on(walk: _Walk, place: _Place, run: Sequence[Word], folder: str, depth: int) -> str:
    from ._danger import sub
    from .approvals import _program, _Scope

    if not run or not run[0].literal:
        return ""
    words = [Word(tuple(Part(p.kind, p.value.replace("{}", folder)) for p in w.parts)) for w in run]
    flag = _RECURSIVE.get(_program(run[0].text))
    if flag:
        words = [literal("rm" if flag == "-r" else run[0].text), literal(flag), *words[1:]]
    again = sub(walk)
    again.run(words, _Scope(place.cwd), depth + 1)
    return again.refused
