"""What approval rules match for a command: each simple command, normalized, and where it is unknown.

:func:`command_subjects` turns the argvs the classifier decoded
(:attr:`circle.domain.approvals.CommandVerdict.words`: quoting and backslashes decoded, wrappers
such as ``command``, ``env``, ``sudo`` and ``timeout`` looked through) into one string per simple
command, whitespace collapsed:

- the *rule form*: a program given by path is named by its basename and ``git``'s global options
  (``-c k=v``, ``-C dir``, ``--git-dir=x``, ``--no-pager`` ...) are dropped, so ``/usr/bin/git -c
  x=1 push`` reads ``git push``;
- the *as-run form*, only where it differs: the path kept, and the ``git`` options that change
  what runs (``-c``, ``-C``, ``--git-dir`` ... all but :data:`_HARMLESS_GIT`) kept.

An alias that ``git -c alias.x=push x`` defines reads as what it stands for (``git push``), and a
program that runs its arguments as a command (:data:`_RUNS_ARGS`: ``watch``, ``ionice``, ``chroot``
...) gives a subject for each later word that could start that command.

Deny and ask rules match either form; an allow must cover both, so ``git status*`` allows neither
``./git status`` (a program in the workspace) nor ``git -c core.fsmonitor=... status``.

:func:`known_prefix` says what of a subject is known before it runs: the text up to its first
word that the shell still expands (a variable, a substitution, a glob, a brace or tilde
expansion), as a pattern ending in ``*``; :func:`could_match` says whether a rule's pattern might
match some text of that shape.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from fnmatch import fnmatchcase

_GIT_VALUES = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}
    | {"--attr-source", "--exec-path"}
)
"""git's global options that may take their value as the next word."""
_HARMLESS_GIT = frozenset(
    {"-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--literal-pathspecs"}
    | {"--no-literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs"}
    | {"--no-optional-locks", "--no-advice", "--no-lazy-fetch"}
)
"""git's global options that do not change which program runs or on what."""
_RUNS_ARGS = frozenset(
    {"watch", "ionice", "chrt", "taskset", "flock", "unbuffer", "strace", "ltrace", "busybox", "chroot"}
    | {"firejail", "proxychains", "proxychains4", "torsocks", "systemd-run", "nsenter", "unshare"}
    | {"setpriv", "runuser", "catchsegv", "valgrind", "caffeinate", "parallel", "entr", "coproc"}
)
"""Programs that run a command given in their arguments, beyond the wrappers the classifier looks
through: each later word that is not an option also starts a subject (``watch -n 1 git push``
gives ``git push`` too)."""
_EXPANDS = re.compile(r"[$`*?]|\[.*\]|(?:^|[=:])~|\{[^{}]*(?:,|\.\.)[^{}]*\}|\{\}|[<>]\(")
"""A word the shell still expands: a variable, substitution, glob, tilde or brace expansion
(or find's ``{}``); quoted text that looks like one counts too."""
_MAX_DOUBT = 200_000
"""Comparisons that take more steps than this stop: the patterns could match."""


def command_subjects(words: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """The subjects approval rules match for a command: per simple command, its rule form and,
    where it differs, its as-run form (see the module's docstring).

    Args:
        words: Each simple command's decoded argv after wrappers, as the classifier gives them.

    Returns:
        The subjects, in the order of ``words``, without repeats.
    """
    subjects: dict[str, None] = {}
    for argv in words:
        parts = [" ".join(word.split()) for word in argv]
        if not parts:
            continue
        starts = [0]
        if posixpath.basename(parts[0]) in _RUNS_ARGS:
            starts += [i for i in range(1, len(parts)) if not parts[i].startswith("-")]
        for start in starts:
            subjects.update(dict.fromkeys(_forms(parts[start:])))
    return tuple(subjects)


def _forms(parts: Sequence[str]) -> tuple[str, str]:
    """One simple command's rule form and as-run form."""
    program, args = parts[0], parts[1:]
    named = program if _EXPANDS.search(program) else posixpath.basename(program) or program
    as_run = program.replace(" ", "?")
    if named != "git":
        return _join(named, args), _join(as_run, args)
    rest = _git_args(args, keep=False)
    alias = _git_aliases(args).get(rest[0], "") if rest else ""
    if alias.startswith("!"):
        rule = _join(alias[1:], rest[1:])
    else:
        rule = _join(named, [alias, *rest[1:]] if alias else rest)
    return " ".join(rule.split()), _join(as_run, _git_args(args, keep=True))


def _join(program: str, args: Sequence[str]) -> str:
    return " ".join(part for part in (program, *args) if part)


def _git_aliases(args: Sequence[str]) -> dict[str, str]:
    """The aliases git's leading ``-c alias.NAME=VALUE`` (or ``--config-env``) options define."""
    aliases: dict[str, str] = {}
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "--":
        name, equals, value = args[index].partition("=")
        index += 1
        if name in _GIT_VALUES and not equals and index < len(args):
            value, index = args[index], index + 1
        key, _, text = value.partition("=")
        if name in ("-c", "--config-env") and key.startswith("alias."):
            aliases[key[len("alias.") :]] = text if name == "-c" else f"${text}"
    return aliases


def _git_args(args: Sequence[str], *, keep: bool) -> list[str]:
    """git's arguments without its leading global options (``keep``: those that change what runs stay)."""
    kept: list[str] = []
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "--":
        option = args[index]
        index += 1
        name = option.partition("=")[0]
        value = [args[index]] if name in _GIT_VALUES and "=" not in option and index < len(args) else []
        index += len(value)
        if keep and name not in _HARMLESS_GIT:
            kept += [option, *value]
    if index < len(args) and args[index] == "--":
        index += 1
    return [*kept, *args[index:]]


def known_prefix(subject: str) -> str | None:
    """The pattern of what ``subject`` may run as: its literal words up to the first one the shell
    expands, then ``*``; None when every word is literal."""
    words = subject.split(" ")
    for index, word in enumerate(words):
        if _EXPANDS.search(word):
            return _escape(" ".join(words[:index])) + "*"
    return None


def _escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def could_match(pattern: str, shape: str) -> bool:
    """Whether some text matches both ``pattern`` and ``shape`` (two ``fnmatch`` patterns).

    A character class against another class counts as a possible match, and a comparison that
    takes more than :data:`_MAX_DOUBT` steps stops with True: the answer errs towards True.
    """
    left, right = _tokens(pattern), _tokens(shape)
    seen: set[tuple[int, int]] = set()
    todo = [(0, 0)]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        if len(seen) >= _MAX_DOUBT:
            return True
        seen.add(state)
        i, j = state
        if i == len(left) and j == len(right):
            return True
        a = left[i] if i < len(left) else None
        b = right[j] if j < len(right) else None
        if a == "*":
            todo.append((i + 1, j))
            if b is not None:
                todo.append((i, j + 1))
        if b == "*":
            todo.append((i, j + 1))
            if a is not None:
                todo.append((i + 1, j))
        if a is not None and b is not None and a != "*" and b != "*" and _overlap(a, b):
            todo.append((i + 1, j + 1))
    return False


def _tokens(pattern: str) -> list[str]:
    """A pattern's tokens: ``*``, ``?``, a ``[...]`` class, or one literal character (``\\`` + it)."""
    tokens: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        index += 1
        if char == "*":
            if not tokens or tokens[-1] != "*":
                tokens.append("*")
        elif char == "?":
            tokens.append("?")
        elif char == "[":
            end = index + (pattern[index : index + 1] == "!")
            end += pattern[end : end + 1] == "]"
            end = pattern.find("]", end)
            if end < 0:
                tokens.append("\\[")
            else:
                tokens.append(pattern[index - 1 : end + 1])
                index = end + 1
        else:
            tokens.append("\\" + char)
    return tokens


def _overlap(a: str, b: str) -> bool:
    """Whether two one-character tokens can match the same character."""
    if a == "?" or b == "?":
        return True
    if a.startswith("\\") and b.startswith("\\"):
        return a == b
    if a.startswith("\\"):
        return fnmatchcase(a[1], b)
    if b.startswith("\\"):
        return fnmatchcase(b[1], a)
    return True
