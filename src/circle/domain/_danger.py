"""Where an always-refused pattern *could* match what a command runs: refuse it, or mark it risky.

:mod:`.approvals` walks a command and refuses the always-refused patterns it can see. This module
adds what it cannot see statically, through hooks the walk calls (:func:`command`,
:func:`pipeline`, :func:`define`, :func:`assign`, :func:`redirect`):

- Values it can work out are put in and the command checked again: variables the script sets
  to plain text (``d=~; rm -rf $d``, ``r=reboot; $r``), ``$IFS``, the arguments of ``bash -c``
  and of a function the script defines, a copy of a refused program (``cp /bin/rm x``), a file or
  a variable the script downloads and then runs.
- A target known only at run time (a variable, a substitution, ``xargs``' input, a lost folder)
  is tried against the values that would make a refused pattern match (``/``, the system
  folders, home, the workspace and the folders holding them, ``-rf``, ``/dev/sda``,
  ``poweroff`` …), filtered by what the word's text allows (``"$d/build"`` cannot be ``/``).
  A match marks the command risky; a glob that matches (``/hom?``) is refused outright.
- ``find`` of a protected folder with ``-delete`` or ``-exec rm``, fork bombs as cycles of the
  script's functions, unknown wrappers (``ionice rm -rf ~``), inline interpreter code, code piped
  into a shell that is not visible as text: refused or risky as the case is certain or not.
- Code carried in words (:mod:`._danger_code`: ``tar --to-command``, ``ssh -o ProxyCommand``,
  ``git -c alias.x=!…``, ``trap``, ``alias``, ``BASH_ENV=…``) and names that stand for something
  else (:mod:`._danger_links`: symbolic links the script makes, namerefs, aliases, ``git-push``).

The hooks take the walk (:class:`.approvals._Walk`); the two modules import each other, and
neither uses the other at import time.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

from . import _bash, _danger_code, _danger_links, _danger_rules
from . import approvals as _approvals
from ._bash import Command, Part, Redirect, Word
from ._danger_find import find
from ._danger_flow import define, pipeline
from ._danger_values import State, concrete, could, literal, opaque, shape

if TYPE_CHECKING:
    from .approvals import _Scope, _Unwrapped, _Walk

__all__ = ["State", "assign", "assign_word", "command", "define", "pipeline", "redirect", "rules", "sub"]


@cache
def _scanned() -> frozenset[str]:
    """The names looked for in an unknown program's words: refused programs, shells, wrappers."""
    found = frozenset(_approvals._REFUSED) | frozenset(_danger_rules.MORE_REFUSED) | _approvals._RUNS_CODE
    return found | frozenset(_approvals._WRAPPERS) | {"find", "busybox", "toybox"}


_INPUT = (Word((Part("expansion", "$(xargs' input)"),)),)
"""What ``xargs`` adds to a command it runs, for a command looked at again without ``xargs``."""
_DECLARES = frozenset({"export", "local", "declare", "typeset", "readonly"})


def sub(walk: _Walk) -> _Walk:
    """A walk that shares ``walk``'s state, to check a variant without recording its asks."""
    return _approvals._Walk(walk.workspace, walk.home, danger=walk.danger)


def rules(program: str) -> list[_danger_rules.Rule]:
    found = [_approvals._REFUSED.get(program), _danger_rules.MORE_REFUSED.get(program)]
    return [rule for rule in found if rule is not None]


def command(walk: _Walk, unwrapped: _Unwrapped, scope: _Scope, depth: int) -> None:
    """Check one simple command after its wrappers (the hook in ``_Walk.run``)."""
    words = unwrapped.argv
    if not words or depth > _bash.MAX_NESTING:
        return
    state = walk.danger
    _danger_links.subjects(walk, unwrapped)
    _danger_code.environment(walk, (a.split("=")[0] for a in unwrapped.assignments))
    variants = concrete(state, words)
    for variant in variants:
        if variant:
            _again(walk, variant, scope, depth)
    if variants:
        return
    if not words[0].literal:
        _dynamic(walk, words, scope, depth)
        return
    name, args = words[0].text, list(words[1:])
    program = _approvals._program(name)
    place = walk.place(scope)
    linked = _danger_links.through(walk, words, place)
    if linked:
        _again(walk, [*linked, *(_INPUT if unwrapped.open_args else ())], scope, depth)
    _alias(walk, words, scope, depth)
    copied = state.copies.get(_resolved(place, name) or "") if "/" in name else None
    if copied:
        _again(walk, [literal(copied), *args, *(_INPUT if unwrapped.open_args else ())], scope, depth)
    _downloaded(walk, program, name, args, place)
    refused = [found for rule in rules(program) if (found := rule(place, args))]
    if refused:
        walk.refuse(refused[0])
        return
    for rule in rules(program):
        walk.risk(could(walk, rule, args, place, open_args=unwrapped.open_args, name=program))
    walk.risk(_danger_rules.inline_code(program, args))
    if program in _DECLARES and not (program != "export" and _danger_links.declare(walk, args)):
        for word in args:
            assign_word(walk, word)
    _code(walk, program, args, scope, depth)
    _danger_code.words(walk, program, args, scope, depth)
    if program == "find":
        find(walk, args, scope, depth)
    if program in ("cp", "ln", "install"):
        _copy(walk, args, place)
    if program == "ln":
        _danger_links.link(walk, args, place)
    if program in _approvals._FETCHERS:
        for target in _approvals._write_targets(program, args) or _remote_names(program, args):
            path = _resolved(place, target.text)
            state.fetched.add(path or target.text)
    for target in _approvals._write_targets(program, args):
        if target.literal and _danger_rules.device(_resolved(place, target.text) or ""):
            walk.refuse("writing to a disk device is always refused")
    if program in state.functions:
        _call(walk, program, words, scope, depth)
    elif program not in _danger_rules.KNOWN and not rules(program) and _looked_through(program):
        _unknown(walk, [*words, *_INPUT] if unwrapped.open_args else words, scope, depth)


def _looked_through(program: str) -> bool:
    return program not in _scanned() or program in ("busybox", "toybox")


def _again(walk: _Walk, words: Sequence[Word], scope: _Scope, depth: int) -> None:
    again = sub(walk)
    again.run(words, scope.copy(), depth + 1)
    walk.refuse(again.refused)
    walk.risk(again.risky)


def _alias(walk: _Walk, words: Sequence[Word], scope: _Scope, depth: int) -> None:
    """A command named by an alias the script defined: what it stands for, checked again; its
    refusal refuses once ``shopt -s expand_aliases`` is on, else marks the command risky."""
    state = walk.danger
    found = _danger_links.expanded(walk, words)
    name = words[0].text
    if found is None or name in state.expanding:
        return
    state.expanding.add(name)
    try:
        again = sub(walk)
        again.run(found, scope.copy(), depth + 1)
    finally:
        state.expanding.discard(name)
    if state.expand_aliases:
        walk.refuse(again.refused)
    elif again.refused:
        walk.risk(f"the alias {name} could run a refused command: {again.refused}")
    walk.risk(again.risky)


def _dynamic(walk: _Walk, words: Sequence[Word], scope: _Scope, depth: int) -> None:
    """A command name known only at run time: risky when any refused program, shell or wrapper
    its text allows (``$X`` any, ``$VENV/bin/python`` only python) would refuse or be risky."""
    state, name = walk.danger, words[0]
    if any(p.kind == "var" and p.value in state.fetched_vars for p in name.parts):
        walk.refuse("running a downloaded script is always refused")
        return
    pattern = re.compile(shape(name, raw=True))
    anything = opaque(state, name)
    for program in sorted(_scanned()):
        if anything or any(pattern.fullmatch(f"{where}{program}") for where in ("", "/usr/bin/", "./")):
            again = sub(walk)
            again.run([literal(program), *words[1:]], scope.copy(), depth + 1)
            if again.refused or again.risky:
                walk.risk(f"{name.text} runs a program known only at run time")
                return


def _resolved(place: _approvals._Place, text: str) -> str | None:
    path = place.resolve(literal(text))
    return posixpath.normpath(re.sub("/+", "/", path)) if path else None


def _remote_names(program: str, args: Sequence[Word]) -> list[Word]:
    """The files ``curl -O URL`` and a plain ``wget URL`` save: the URL's last path segment."""
    if program == "curl" and not any(
        w.text in ("-O", "--remote-name") or w.text.startswith("-O") for w in args
    ):
        return []
    urls = [w.text for w in args if "://" in w.text]
    return [literal(posixpath.basename(url.split("?")[0]) or "index.html") for url in urls]


def _downloaded(walk: _Walk, program: str, name: str, args: Sequence[Word], place: _approvals._Place) -> None:
    """Refuse running a file this command line downloaded (``curl -o f URL && sh f``)."""
    fetched = walk.danger.fetched
    if not fetched:
        return
    runs = [name] if "/" in name else []
    if program in _approvals._RUNS_CODE:
        runs += [w.text for w in args if w.literal and not w.text.startswith("-")][:1]
    if any((_resolved(place, text) or text) in fetched for text in runs):
        walk.refuse("running a downloaded script is always refused")


def _code(walk: _Walk, program: str, args: Sequence[Word], scope: _Scope, depth: int) -> None:
    """``eval``, ``source``, ``bash -c`` and the script options of :data:`._danger_rules.RUNNERS`."""
    state = walk.danger
    fetched = any(p.kind == "var" and p.value in state.fetched_vars for w in args for p in w.parts)
    if fetched and program in _approvals._RUNS_CODE:
        walk.refuse("running a downloaded script is always refused")
    if program == "eval" and not all(w.literal for w in args):
        walk.risk("eval of an expansion runs code known only at run time")
    if program in ("source", "."):
        walk.risk(f"{program} runs a script that cannot be checked")
    if program in _approvals._SHELLS:
        _shell(walk, args, scope, depth)
    options = _danger_rules.RUNNERS.get(program, frozenset())
    for index, word in enumerate(args[:-1]):
        if word.text in options:
            _script(walk, args[index + 1], scope, depth, certain=True)
    if program == "watch":
        operands = [w for w in args if not w.text.startswith("-")]
        _script(walk, literal(" ".join(w.text for w in operands)), scope, depth, certain=True)


def _shell(walk: _Walk, args: Sequence[Word], scope: _Scope, depth: int) -> None:
    """``bash -c SCRIPT NAME ARGS…``: the script with ``$0``, ``$1`` … put in; an expanded one is risky."""
    index = next((i for i, w in enumerate(args) if not w.text.startswith(("-", "+"))), len(args))
    inline = any(w.text[:1] == "-" and w.text[1:2] != "-" and "c" in w.text for w in args[:index])
    if not inline or index >= len(args):
        return
    script, positional = args[index], tuple(args[index + 1 :])
    if not script.literal:
        walk.risk("a shell script built from expansions runs code known only at run time")
        _script(walk, literal(script.text), scope, depth, certain=False)
    elif positional:
        state = walk.danger
        saved, state.positional = state.positional, positional
        try:
            _script(walk, script, scope, depth, certain=True)
        finally:
            state.positional = saved


def _script(walk: _Walk, word: Word, scope: _Scope, depth: int, *, certain: bool) -> None:
    """Walk ``word`` as a script: its refusal refuses when ``certain``, else marks risky."""
    again = sub(walk)
    again.nested(word.text, scope.copy(), depth)
    if certain:
        walk.refuse(again.refused)
    elif again.refused:
        walk.risk(f"it could run a refused command: {again.refused}")
    walk.risk(again.risky)


def _copy(walk: _Walk, args: Sequence[Word], place: _approvals._Place) -> None:
    """Remember a refused program copied or linked under another name (``cp /bin/rm ./x``)."""
    operands = [w for w in args if not w.text.startswith("-")]
    if len(operands) < 2 or not operands[-1].literal:
        return
    sources = [_approvals._program(w.text) for w in operands[:-1]]
    program = next((p for p in sources if rules(p) or p in _approvals._RUNS_CODE), "")
    target = _resolved(place, operands[-1].text)
    if program and target:
        walk.danger.copies[target] = program
        walk.danger.copies[posixpath.join(target, program)] = program


def _call(walk: _Walk, name: str, words: Sequence[Word], scope: _Scope, depth: int) -> None:
    """A call of a function the script defines: its body again with ``$1`` … put in."""
    state = walk.danger
    if name in state.expanding or len(words) < 2:
        return
    saved, state.positional = state.positional, (literal(name), *words[1:])
    state.expanding.add(name)
    try:
        again = sub(walk)
        again.script(state.functions[name].body, scope.copy(), depth + 1)
        walk.refuse(again.refused)
    finally:
        state.positional = saved
        state.expanding.discard(name)


def _unknown(walk: _Walk, words: Sequence[Word], scope: _Scope, depth: int) -> None:
    """A program not known to leave its arguments alone: look for a command or a script in them."""
    place = walk.place(scope)
    args = words[1:]
    for index, word in enumerate(args[:64]):
        if word.literal and _approvals._program(word.text) in _scanned():
            _again(walk, args[index:], scope, depth)
    name = words[0].text
    for program in ("rm", "chmod"):
        for rule in rules(program):
            found = rule(place, args) or could(walk, rule, args, place, open_args=False, name=program)
            if found:
                walk.risk(f"{name} could be {program}: {found}")
    for word in args[:64]:
        if word.literal and re.search(r"\s", word.text.strip()) and len(word.text) < 10_000:
            # A placeholder the program fills in (``parallel 'rm -rf {}'``) is known only at run time.
            text = re.sub(r"\{[0-9./#%]*\}", '"$PLACEHOLDER"', word.text)
            _script(walk, literal(text), scope, depth, certain=False)


def assign(walk: _Walk, command: Command) -> None:
    """Variables set on a command line (the hook in ``_Walk.command``)."""
    for word in command.assignments:
        assign_word(walk, word)


def assign_word(walk: _Walk, word: Word) -> None:
    """Remember ``NAME=VALUE``: its value when it is plain text, else that it is unknown."""
    first = word.parts[0] if word.parts else None
    if first is None or first.kind != "text" or "=" not in first.value:
        return
    name, _, rest = first.value.partition("=")
    name = name.removesuffix("+")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return
    _danger_code.environment(walk, [name])
    parts = ([Part("text", rest)] if rest else []) + list(word.parts[1:])
    if parts and parts[0].kind == "text" and parts[0].value.startswith("~"):
        head, slash, tail = parts[0].value.partition("/")
        parts[:1] = [Part("tilde", head)] + ([Part("text", slash + tail)] if slash else [])
    value = replace(word, parts=tuple(parts))
    state = walk.danger
    fetches = any(_approvals._fetches(s.script) for s in word.substitutions)
    if fetches or any(p.kind == "var" and p.value in state.fetched_vars for p in parts):
        state.fetched_vars.add(name)
    plain = not word.substitutions and all(
        p.kind in ("text", "tilde", "glob") or (p.kind == "var" and p.value in ("HOME", "PWD")) for p in parts
    )
    if plain:
        state.values.setdefault(name, []).append(value)
    else:
        state.unknown.add(name)


def redirect(walk: _Walk, found: Redirect, argv: Sequence[str], scope: _Scope) -> None:
    """One redirection of a command (the hook in ``_Walk.redirects``)."""
    program = _approvals._program(argv[0]) if argv else ""
    state = walk.danger
    target = found.target
    if found.heredoc or found.operator == "<<<":
        kind = "here-string" if found.operator == "<<<" else "heredoc"
        fetched = any(p.kind == "var" and p.value in state.fetched_vars for p in target.parts)
        if fetched and program in _approvals._RUNS_CODE:
            walk.refuse("running a downloaded script is always refused")
        inline = any(a.startswith("-") and "c" in a for a in argv[1:])
        if program in _approvals._INTERPRETERS and program not in _approvals._SHELLS and not inline:
            walk.risk(f"a {kind} into {program} runs code that cannot be checked")
        if program in ("eval", "source", "."):
            walk.risk(f"a {kind} into {program} runs code that cannot be checked")
        return
    place = walk.place(scope)
    path = _resolved(place, target.text) if target.literal else None
    if found.operator in ("<", "<>") and program in _approvals._RUNS_CODE and path in state.fetched:
        walk.refuse("running a downloaded script is always refused")
    if _approvals._writes(found):
        if path and _danger_rules.device(path):
            walk.refuse("writing to a disk device is always refused")
        if program in _approvals._FETCHERS:
            state.fetched.add(path or target.text)
        if not target.literal and opaque(state, target):
            walk.risk(f"it writes to {target.text}, a file known only at run time")
