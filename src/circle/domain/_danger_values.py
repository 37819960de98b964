"""Values known only at run time, for :mod:`._danger`: what the script set, and what a word could be.

:func:`concrete` puts in the values the walk knows (variables set to plain text, ``$IFS``, the
positional parameters of ``bash -c`` or of a function call) and splits the words bash would
split. :func:`could` tries a refused-pattern rule against the values that would make it match,
keeping only those the word's text allows (``"$d/build"`` can never be ``/``): it refuses when
the word is a glob (the match is certain), and otherwise returns why the command is risky.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import islice, product
from typing import TYPE_CHECKING

from ._bash import Compound, Part, Word

if TYPE_CHECKING:
    from .approvals import _Place, _Walk

__all__ = ["State", "concrete", "could", "literal", "opaque", "shape"]

_ANY, _STAR, _ONE = "\x02", "\x00", "\x01"
_POSITIONAL = re.compile(r"\$\{?([0-9]+|@|\*)\}?")
_MAX_VARIANTS = 16


def _words(text: str) -> list[str]:
    return text.split()


_TOKENS = tuple(_words("-rf -R --recursive -a of=/dev/sda /dev/sda poweroff reboot halt 0 6 isolate start"))


@dataclass(slots=True)
class State:
    """What the walk learned of a script so far; shared by the walks of its parts."""

    values: dict[str, list[Word]] = field(default_factory=dict)
    unknown: set[str] = field(default_factory=set)
    fetched_vars: set[str] = field(default_factory=set)
    fetched: set[str] = field(default_factory=set)
    copies: dict[str, str] = field(default_factory=dict)
    functions: dict[str, Compound] = field(default_factory=dict)
    calls: dict[str, set[tuple[str, bool]]] = field(default_factory=dict)
    positional: tuple[Word, ...] | None = None
    expanding: set[str] = field(default_factory=set)
    aliases: dict[str, str] = field(default_factory=dict)
    expand_aliases: bool = False
    links: dict[str, str | None] = field(default_factory=dict)


def literal(text: str) -> Word:
    return Word((Part("text", text),))


def _positional(part: Part) -> str:
    found = _POSITIONAL.fullmatch(part.value) if part.kind == "expansion" else None
    return found.group(1) if found else ""


def opaque(state: State, word: Word) -> bool:
    """True when ``word`` could split into any words at all: it holds a substitution, an unknown
    expansion, a positional parameter, or a variable the script set to something not plain."""
    if word.substitutions:
        return True
    for part in word.parts:
        if part.kind == "expansion" or (part.kind == "var" and part.value in state.unknown):
            return True
    return False


def concrete(state: State, words: Sequence[Word]) -> list[list[Word]]:
    """``words`` with what the walk knows put in and split as bash would, one list for each
    combination of known values (at most :data:`_MAX_VARIANTS`); empty when nothing is known.
    Unknown parts stay as they are."""
    options = [_variants(state, word) for word in words]
    if all(len(choice) == 1 and choice[0] == [word] for choice, word in zip(options, words, strict=True)):
        return []
    combos = islice(product(*options), _MAX_VARIANTS)
    variants = [[w for piece in combo for w in piece] for combo in combos]
    return [v for v in variants if v != list(words)]


def _variants(state: State, word: Word) -> list[list[Word]]:
    """The words ``word`` becomes for each known value of the variables in it."""
    choices: list[list[tuple[Part, bool]]] = [[]]
    for part in word.parts:
        values = _values(state, part)
        if values is None:
            choices = [[*c, (part, False)] for c in choices]
        else:
            choices = [c + v for c in choices for v in values][: _MAX_VARIANTS + 1]
    if all(tuple(p for p, _ in c) == word.parts for c in choices):
        return [[word]]
    return [_split(c, word, _separators(state)) for c in choices]


def _separators(state: State) -> str:
    """The characters bash splits expansions at: ``$IFS`` as the script sets it, and blanks."""
    chars = {c for value in state.values.get("IFS", []) for c in value.text}
    return "".join(sorted(chars | set(" \t\n")))


def _values(state: State, part: Part) -> list[list[tuple[Part, bool]]] | None:
    if part.kind == "var" and part.value == "IFS" and part.value not in state.values:
        return [[(Part("text", " "), True)]]
    if part.kind == "var" and part.value in state.values and part.value not in state.unknown:
        return [[(p, True) for p in value.parts] for value in state.values[part.value][-4:]]
    which = _positional(part)
    if not which or state.positional is None:
        return None
    if which in ("@", "*"):
        spliced: list[tuple[Part, bool]] = []
        for index, value in enumerate(state.positional[1:]):
            spliced += ([(Part("text", " "), True)] if index else []) + [(p, False) for p in value.parts]
        return [spliced]
    index = int(which)
    chosen = state.positional[index] if index < len(state.positional) else Word(())
    return [[(p, False) for p in chosen.parts]]


def _split(parts: list[tuple[Part, bool]], word: Word, separators: str) -> list[Word]:
    between = f"[{re.escape(separators)}]+"
    out: list[list[Part]] = [[]]
    for part, put in parts:
        if put and part.kind == "text" and re.search(between, part.value):
            for index, piece in enumerate(re.split(between, part.value)):
                if index:
                    out.append([])
                if piece:
                    out[-1].append(Part("text", piece))
        else:
            out[-1].append(part)
    return [Word(_merge(p), word.substitutions, word.pattern) for p in out if p]


def _merge(parts: list[Part]) -> tuple[Part, ...]:
    merged: list[Part] = []
    for part in parts:
        if merged and part.kind == merged[-1].kind == "text":
            merged[-1] = Part("text", merged[-1].value + part.value)
        else:
            merged.append(part)
    return tuple(merged)


def shape(word: Word, *, raw: bool = False, place: _Place | None = None) -> str:
    """A regular expression for what ``word`` can expand to: a glob's ``*`` and ``?`` within one
    folder, a variable or substitution anything. Unless ``raw``, as an absolute, folded path."""
    out: list[str] = []
    for part in word.parts:
        if part.kind == "text":
            out.append(re.sub(r"\[[^\]]*\]", _ONE, part.value) if word.pattern else part.value)
        elif part.kind == "glob":
            out.append(_STAR if part.value == "*" else _ONE)
        elif part.kind == "tilde" and place is not None:
            user = part.value[1:]
            out.append(posixpath.join(posixpath.dirname(place.home), user) if user else place.home)
        elif part.kind == "var" and part.value == "HOME" and place is not None:
            out.append(place.home)
        elif part.kind == "var" and part.value == "PWD" and place is not None and place.cwd:
            out.append(place.cwd)
        else:
            out.append(_ANY)
    text = "".join(out)
    if word.pattern:
        text = re.sub(r"\{[^{}]*\}", _ANY, text)
    if not raw:
        text = _fold(
            text if text.startswith(("/", _ANY)) else f"{place.cwd if place and place.cwd else _ANY}/{text}"
        )
    return "".join(
        ".*" if c == _ANY else "[^/]*" if c == _STAR else "[^/]" if c == _ONE else re.escape(c) for c in text
    )


def _fold(text: str) -> str:
    kept: list[str] = []
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if kept and _ANY in kept[-1]:
                kept = [_ANY]
            elif kept:
                kept.pop()
        else:
            kept.append(part)
    folded = "/" + "/".join(kept)
    return folded if not text.startswith(_ANY) or folded.startswith("/" + _ANY) else _ANY + folded


@cache
def candidates(home: str, workspace: str) -> tuple[str, ...]:
    """The folders a refused ``rm -r`` protects: ``/``, the system folders, home, the workspace
    and every folder holding them."""
    from .approvals import _SYSTEM_DIRS

    found = {"/", home, workspace, *_SYSTEM_DIRS}
    for path in (home, workspace):
        while path not in ("/", ""):
            path = posixpath.dirname(path)
            found.add(path)
    return tuple(sorted(found))


def could(
    walk: _Walk,
    rule: Callable[[_Place, Sequence[Word]], str],
    args: Sequence[Word],
    place: _Place,
    *,
    open_args: bool,
    name: str,
) -> str:
    """Why ``rule`` could refuse ``args`` once what is unknown in them is known, or nothing.
    A glob that makes it refuse refuses the command (through ``walk``) instead."""
    from .approvals import _Place

    state = walk.danger
    plain = [_plain(w, place) for w in args]
    open_positions = [i for i, ok in enumerate(plain) if not ok]
    if open_args:
        args = [*args, Word((Part("expansion", "{}"),))]
        open_positions.append(len(args) - 1)
    paths = candidates(place.home, place.workspace)
    here = place if place.cwd is not None else _Place(place.home, place.workspace, place.workspace)
    for index in open_positions:
        word = args[index]
        split = opaque(state, word) and not (open_args and index == len(args) - 1)
        values = _feasible(word, here, paths, everything=split or (index == len(args) - 1 and open_args))
        unknown = split or not _glob_only(word)
        for value, fill in product(values, ("x", "-rf", "-R")):
            variant = [literal(fill) if j in open_positions and j != index else w for j, w in enumerate(args)]
            variant[index : index + 1] = [literal("-rf"), value] if split and fill == "-rf" else [value]
            found = rule(here, variant)
            if found and not unknown and place.cwd is not None:
                walk.refuse(found)
                return ""
            if found:
                what = "xargs' input" if open_args and index == len(args) - 1 else word.text
                unseen = (
                    f"{what} is known only at run time" if unknown else "the folder it runs in is not known"
                )
                return f"{found.removesuffix(' is always refused')} could happen: {unseen}"
    if place.cwd is None and any(w.literal and not w.text.startswith("/") for w in args):
        filled = [w if j not in open_positions else literal("x") for j, w in enumerate(args)]
        for cwd in paths:
            found = rule(_Place(place.home, place.workspace, cwd), filled)
            if found:
                unseen = "the folder it runs in is not known"
                return f"{found.removesuffix(' is always refused')} could happen: {unseen}"
    return ""


def _plain(word: Word, place: _Place) -> bool:
    for part in word.parts:
        if part.kind == "glob" or part.kind == "expansion":
            return False
        if part.kind == "var" and not (part.value == "HOME" or (part.value == "PWD" and place.cwd)):
            return False
    return not word.pattern


def _glob_only(word: Word) -> bool:
    return all(p.kind in ("text", "glob", "tilde") for p in word.parts) and not word.substitutions


def _feasible(word: Word, place: _Place, paths: Sequence[str], *, everything: bool) -> list[Word]:
    if everything:
        return [literal(v) for v in (*paths, *_TOKENS)]
    path = re.compile(shape(word, place=place))
    raw = re.compile(shape(word, raw=True))
    found = [literal(p) for p in paths if path.fullmatch(p) or path.fullmatch(p + "/")]
    return found + [literal(t) for t in _TOKENS if raw.fullmatch(t)]
