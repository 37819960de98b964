"""Pipes and functions, for :mod:`._danger`: code fed into a shell, and fork bombs.

:func:`pipeline` refuses a download piped into an interpreter however the interpreter is told to
read stdin (``bash /dev/stdin``, ``bash -s``), walks what ``base64 -d <<< TEXT`` decodes when a
shell runs it, and marks risky any other code piped into a shell or an interpreter that is not
visible as plain text. :func:`define` keeps the script's functions and refuses a fork bomb: a
function that reaches itself, directly or through others, in a pipeline, in the background or
in a subshell, or that runs ``$FUNCNAME``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import _bash, _danger_rules
from . import approvals as _approvals
from ._bash import Command, Compound, Pipeline, Script, Word

if TYPE_CHECKING:
    from .approvals import _Scope, _Walk

__all__ = ["define", "pipeline"]

_STDIN = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def pipeline(walk: _Walk, line: Pipeline, scope: _Scope, depth: int) -> None:
    """Code fed through a pipe into a shell or an interpreter (the hook in ``_Walk.pipeline``)."""
    fetched = False
    for index, stage in enumerate(line.stages):
        inner = [stage] if isinstance(stage, Command) else list(_bash.commands(stage.body))
        argvs = [_approvals._unwrap(c.words).argv for c in inner if c.words]
        readers = [a for a in argvs if _reads_stdin(a)]
        if index and readers:
            if fetched:
                walk.refuse("piping a downloaded script into an interpreter is always refused")
            before = line.stages[index - 1]
            program = _approvals._program(readers[0][0].text)
            decoded = _decoded(before)
            if decoded is not None and program in _approvals._POSIX_SHELLS:
                walk.nested(decoded, scope.copy(), depth)
            elif (
                not (isinstance(before, Command) and _plain_print(before))
                or program not in _approvals._SHELLS
            ):
                walk.risk(f"code piped into {program} cannot be checked")
        fetched |= any(a and _approvals._program(a[0].text) in _approvals._FETCHERS for a in argvs)


def _reads_stdin(argv: Sequence[Word]) -> bool:
    texts = [w.text for w in argv]
    if not texts or not argv[0].literal:
        return False
    if _approvals._reads_program_from_stdin(texts):
        return True
    program = _approvals._program(texts[0])
    operand = next((t for t in texts[1:] if not t.startswith(("-", "+"))), "")
    return (
        program in _approvals._INTERPRETERS
        and operand in _STDIN
        and not _danger_rules.inline_code(program, argv[1:])
    )


def _plain_print(command: Command) -> bool:
    """``echo``/``printf`` of plain words or ``cat`` of a plain heredoc: the script is visible."""
    argv = _approvals._unwrap(command.words).argv
    texts = _approvals._printed(command)
    if not texts:
        return False
    heredocs = [r.target for r in command.redirects if r.heredoc or r.operator == "<<<"]
    return all(w.literal for w in argv) and all(not w.substitutions for w in heredocs)


def _decoded(stage: Command | Compound) -> str | None:
    """What ``base64 -d <<< TEXT`` (or ``echo TEXT | base64 -d``'s source) prints, when it is plain."""
    if not isinstance(stage, Command):
        return None
    argv = [w.text for w in _approvals._unwrap(stage.words).argv]
    if not argv or argv[0] != "base64" or not {"-d", "--decode", "-D"} & set(argv[1:]):
        return None
    strings = [r.target for r in stage.redirects if r.operator == "<<<"]
    if len(strings) != 1 or not strings[0].literal:
        return None
    try:
        return base64.b64decode(strings[0].text.strip(), validate=False).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None


def define(walk: _Walk, function: Compound) -> None:
    """A function definition (the hook in ``_Walk.compound``): remember it; refuse fork bombs."""
    state = walk.danger
    state.functions[function.name] = function
    state.calls[function.name] = set(_calls(function.body, spawning=False))
    if any(_uses_funcname(c) for c in _bash.commands(function.body)):
        walk.refuse("a fork bomb is always refused")
    for name in state.calls:
        if _cycles(state.calls, name):
            walk.refuse("a fork bomb is always refused")


def _uses_funcname(command: Command) -> bool:
    return bool(command.words) and "FUNCNAME" in command.words[0].text and not command.words[0].literal


def _calls(script: Script, *, spawning: bool) -> list[tuple[str, bool]]:
    """The names ``script`` runs, each with whether it starts a new process (pipe, ``&``, subshell)."""
    found: list[tuple[str, bool]] = []
    for line in script.pipelines:
        spawn = spawning or len(line.stages) > 1 or line.background
        for stage in line.stages:
            if isinstance(stage, Command):
                if stage.words:
                    found.append((stage.words[0].text, spawn))
                words = stage.words + stage.assignments
            else:
                found += _calls(stage.body, spawning=spawn or stage.kind == "subshell")
                words = stage.words
            for word in words:
                for substitution in word.substitutions:
                    found += _calls(substitution.script, spawning=True)
    return found


def _cycles(calls: dict[str, set[tuple[str, bool]]], start: str) -> bool:
    """True when ``start`` reaches itself through a chain of calls one of which spawns."""
    seen: set[tuple[str, bool]] = set()
    todo = [(callee, spawn) for callee, spawn in calls.get(start, ())]
    while todo:
        name, spawned = todo.pop()
        if name == start and spawned:
            return True
        if (name, spawned) in seen:
            continue
        seen.add((name, spawned))
        todo += [(callee, spawned or spawn) for callee, spawn in calls.get(name, ())]
    return False
