"""One spelling for every way of writing the same simple command, so deny and ask rules hold.

:func:`canonical` rewrites a subject of :func:`circle.domain._command_subjects.command_subjects`
(or a rule's pattern, the same way) into one spelling:

- ``--``, the end of the options, is dropped;
- options come first, each on its own and sorted: ``-rf`` reads ``-f -r``; for the programs of
  :data:`_LONG`, a long option (or a unique prefix of one: ``--recu``) reads as its letter and a
  letter that is the same option as another (``rm -R``) as that one;
- a path is written the shortest way, relative to the workspace when it is inside it:
  ``./x``, ``a/../x``, ``x/`` and ``/abs/workspace/x`` all read ``x``.

Deny and ask rules match the canonical subject against the canonical pattern as well as the
subject as written (:func:`circle.domain.approval_rules.decide_command`). Allow rules never do,
so an allow matches only what it matched as written. A word the shell still expands (a variable,
a substitution) is not rewritten: such a command is judged by what is known before it runs
(:func:`circle.domain._command_subjects.known_prefix`), which asks where a rule could match.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

_LONG: Mapping[str, Mapping[str, str]] = {
    "rm": {"recursive": "r", "force": "f", "dir": "d", "interactive": "i", "verbose": "v", "R": "r"},
    "cp": {"recursive": "r", "force": "f", "archive": "a", "link": "l", "symbolic-link": "s", "R": "r"},
    "mv": {"force": "f", "interactive": "i", "no-clobber": "n", "verbose": "v", "update": "u"},
    "touch": {"no-create": "c", "no-dereference": "h", "reference": "r", "date": "d"},
    "ln": {"symbolic": "s", "force": "f", "no-dereference": "n", "relative": "r"},
    "mkdir": {"parents": "p", "verbose": "v", "mode": "m"},
    "rmdir": {"parents": "p", "verbose": "v"},
    "chmod": {"recursive": "R", "verbose": "v", "changes": "c"},
    "chown": {"recursive": "R", "verbose": "v", "changes": "c"},
}
"""For common file-changing programs: each long option's letter (and a letter that is the same
option as another letter, ``rm -R``, keyed by that letter)."""
_CLUSTER = re.compile(r"-[A-Za-z]+")
_EXPANDS = re.compile(r"[$`]|(?:^|[=:])~")
"""A word the shell still expands, which is left as written (globs in a pattern are kept)."""


def canonical(text: str, *, workspace: str = "") -> str:
    """``text`` (a subject, or a rule's pattern) in the one spelling of the module's docstring."""
    words = text.split(" ")
    if not words or not words[0]:
        return text
    program, table = words[0], _LONG.get(posixpath.basename(words[0]), {})
    options: set[str] = set()
    operands: list[str] = []
    ended = False
    for word in words[1:]:
        if ended or word == "-" or not word.startswith("-") or _EXPANDS.search(word):
            operands.append(_path(word, workspace))
        elif word == "--":
            ended = True
        elif word.startswith("--"):
            options.add(_long(word, table))
        elif _CLUSTER.fullmatch(word):
            options.update("-" + table.get(letter, letter) for letter in word[1:])
        else:
            options.add(word)
    return " ".join([program, *sorted(options), *operands])


def _long(word: str, table: Mapping[str, str]) -> str:
    """A long option as its letter when the program's table knows it (a unique prefix too)."""
    name, equals, value = word[2:].partition("=")
    found = [long for long in table if len(long) > 1 and long.startswith(name)] if name else []
    if name in table:
        found = [name]
    if len(found) != 1:
        return word
    letter = table[found[0]]
    return f"-{letter}{equals}{value}" if equals else f"-{letter}"


def _path(word: str, workspace: str) -> str:
    """A word as the shortest path it spells: relative to the workspace inside it."""
    if _EXPANDS.search(word) or not word or "=" in word.partition("/")[0]:
        return word
    if "/" not in word and word not in (".", ".."):
        return word
    base = workspace.rstrip("/") if workspace.startswith("/") else ""
    full = posixpath.normpath(posixpath.join(base, word) if base else word)
    if base and (full == base or full.startswith(base + "/")):
        return posixpath.relpath(full, base)
    return full
