"""Names that stand for something else, for :mod:`._danger`: links, namerefs, aliases, git's programs.

- ``ln -s ~ h`` makes ``h/`` and ``h/*`` name the home folder: :func:`link` remembers each
  symbolic link the script makes, and :func:`through` gives a command's words with a path through
  one spelled as the place it links to (a target known only at run time stays unknown).
- ``declare -n r=HOME`` makes ``$r`` read ``$HOME``: :func:`declare` resolves a nameref to a
  variable the walk knows, else makes it unknown, and marks the command risky.
- ``alias x='rm -rf'`` then ``x ~``: :func:`expanded` gives the words an alias stands for.
- :func:`subjects` adds the words approval rules should see: ``git push`` for git's own
  ``/usr/lib/git-core/git-push``, and an unknown last word for what ``xargs`` adds.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from . import _bash
from . import approvals as _approvals
from ._bash import Command, Part, Word
from ._danger_values import literal

if TYPE_CHECKING:
    from .approvals import _Place, _Unwrapped, _Walk

__all__ = ["XARGS_INPUT", "declare", "expanded", "link", "subjects", "through"]

XARGS_INPUT = "$XARGS_INPUT"
"""The word that stands, in the argv rules see, for the arguments ``xargs`` adds."""
_STAR, _ONE = "\x00", "\x01"


def subjects(walk: _Walk, unwrapped: _Unwrapped) -> None:
    """Add the argvs approval rules should also see for this command (see the module's docstring)."""
    texts = tuple(w.text for w in unwrapped.argv)
    if not texts:
        return
    base = posixpath.basename(texts[0])
    if unwrapped.open_args and not any("{}" in text for text in texts):
        # ``{}`` already reads as unknown; any other replace string (``-I@``) gets the word too.
        texts = (*texts, XARGS_INPUT)
        walk.words.append(texts)
    if base.startswith("git-") and len(base) > 4 and unwrapped.argv[0].literal:
        walk.words.append(("git", base[4:], *texts[1:]))


def link(walk: _Walk, args: Sequence[Word], place: _Place) -> None:
    """Remember the symbolic links ``ln -s`` makes: link path -> what it names (None: unknown)."""
    flags = [w.text for w in args if w.literal and w.text.startswith("-") and w.text != "-"]
    symbolic = any(f == "--symbolic" or (not f.startswith("--") and "s" in f) for f in flags)
    if not symbolic:
        return
    operands = [w for w in args if not (w.literal and w.text.startswith("-"))]
    folder = next((v for f, v in pairwise(args) if f.text in ("-t", "--target-directory")), None)
    if folder is not None:
        operands = [w for w in operands if w is not folder]
    if not operands:
        return
    if folder is None and len(operands) == 2:
        pairs = [(operands[0], operands[1].text)]
    else:
        into = folder.text if folder is not None else (operands[-1].text if len(operands) > 1 else ".")
        sources = operands if folder is not None or len(operands) == 1 else operands[:-1]
        pairs = [(w, posixpath.join(into, posixpath.basename(w.text.rstrip("/")))) for w in sources]
    for target, name in pairs:
        path = place.resolve(literal(name)) if "$" not in name else None
        if path is None or _STAR in path or _ONE in path:
            continue
        path = posixpath.normpath(path)
        walk.danger.links[path] = _target(place, target, path)


def _target(place: _Place, target: Word, path: str) -> str | None:
    if target.parts and target.parts[0].kind == "text" and not target.text.startswith("/"):
        relative = _approvals._Place(place.home, place.workspace, posixpath.dirname(path))
        found = relative.resolve(target)
    else:
        found = place.resolve(target)
    if found is None or _STAR in found or _ONE in found:
        return None
    return posixpath.normpath(found)


def through(walk: _Walk, words: Sequence[Word], place: _Place) -> list[Word] | None:
    """``words`` with each path through a link the script made spelled as what it links to;
    None when no word goes through one."""
    links = walk.danger.links
    if not links:
        return None
    out = list(words)
    changed = False
    for index, word in enumerate(words[1:], start=1):
        option = word.literal and word.text.startswith("-")
        path = place.resolve(word) if not (word.substitutions or option) else None
        if path is None:
            continue
        path = re.sub("/+", "/", path)
        for name, target in links.items():
            if path.startswith(name + "/"):
                out[index] = _spelled(target, path[len(name) :], name)
                changed = True
                break
    return out if changed else None


def _spelled(target: str | None, rest: str, name: str) -> Word:
    """``target`` + ``rest`` as a word, ``*`` and ``?`` markers as globs; an unknown target as a
    variable (``$<where h links>``)."""
    parts: list[Part] = [Part("var", f"<where {posixpath.basename(name)} links>")] if target is None else []
    text = (target or "") + rest
    for piece in re.split(f"([{_STAR}{_ONE}])", text):
        if piece == _STAR:
            parts.append(Part("glob", "*"))
        elif piece == _ONE:
            parts.append(Part("glob", "?"))
        elif piece:
            parts.append(Part("text", piece))
    return Word(tuple(parts))


def declare(walk: _Walk, args: Sequence[Word]) -> bool:
    """``declare -n NAME=TARGET`` (``typeset``, ``local``): True when it makes namerefs, which it
    resolves where it can and marks risky; False leaves the words to be read as assignments."""
    flags = [w.text for w in args if w.literal and w.text[:1] in ("-", "+") and len(w.text) > 1]
    if not any(f.startswith("-") and "n" in f[1:] for f in flags):
        return False
    state = walk.danger
    for word in args:
        if word.literal and word.text in flags:
            continue
        name, _, target = word.text.partition("=")
        walk.risk(f"the nameref {name} makes later uses of ${name} known only at run time")
        if not word.literal or not target:
            state.unknown.add(name)
        elif target in ("HOME", "PWD"):
            state.values.setdefault(name, []).append(Word((Part("var", target),)))
        elif target in state.values and target not in state.unknown:
            state.values.setdefault(name, []).extend(state.values[target])
        else:
            state.unknown.add(name)
    return True


def expanded(walk: _Walk, words: Sequence[Word]) -> list[Word] | None:
    """The words a command names through an alias the script defined (one simple command), or None."""
    value = walk.danger.aliases.get(words[0].text) if words and words[0].literal else None
    if value is None:
        return None
    script = _bash.parse(value)
    found = [c for c in _bash.commands(script)]
    if len(found) != 1 or len(script.pipelines) != 1 or not isinstance(found[0], Command):
        return None
    return [*found[0].words, *words[1:]]
