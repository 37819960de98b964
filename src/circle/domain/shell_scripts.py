"""The script files a command has a shell run, for the caller to read and classify.

The classifier cannot read files, so it names them (:class:`ScriptRun`) and the execute tool reads
each one and classifies its text as the script it is (see
``circle.application.tools.script_review``). A shell reads a file as its script in
``sh|bash|dash|zsh FILE`` (and ``--rcfile FILE``), ``sh < FILE``, ``source FILE`` and ``. FILE``,
whatever the file's first line says; a program given by path (``./x.sh``) is a shell script when its
first line names a shell (:func:`runs_as_shell`), or when it has none and is text (the kernel cannot
run it, so bash does). Scripts of other languages (a ``python`` or ``make`` first line) are left to
the classifier's verdict on the command, which is never known read-only for them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from ._bash import Word
from ._paths import path_of

__all__ = ["SHELLS", "ScriptRun", "note", "reads_stdin", "runs_as_shell", "shell_scripts"]

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash"})
"""The POSIX shells whose scripts the classifier reads."""


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """A file a command runs as a script, as far as the classifier can tell.

    Attributes:
        path: Absolute and normalized.
        cwd: The folder the script runs in (None: known only when it runs).
        shell: A shell reads it as its script whatever its first line says (``bash FILE``,
            ``< FILE``, ``source``); False: a program given by path, a shell script only when its
            first line says so (:func:`runs_as_shell`).
        after: A command before it in the line may have changed the file by the time it runs.
    """

    path: str
    cwd: str | None
    shell: bool = True
    after: bool = False


def shell_scripts(args: Sequence[Word]) -> list[Word]:
    """The files a shell given ``args`` runs: its script operand (none with ``-c``, ``-s`` or
    ``-``) and the value of ``--rcfile`` or ``--init-file``."""
    found, operand, _ = _read_options(args)
    return [*found, args[operand]] if operand is not None else found


def reads_stdin(args: Sequence[Word]) -> bool:
    """Whether a shell given ``args`` runs what it reads on stdin (no script operand, no ``-c``)."""
    _, operand, inline = _read_options(args)
    return operand is None and not inline


def _read_options(args: Sequence[Word]) -> tuple[list[Word], int | None, bool]:
    """A shell's rc files, where its script operand is (None: it has none, or reads stdin) and
    whether it runs a ``-c`` string."""
    found: list[Word] = []
    index = 0
    inline = stdin = False
    while index < len(args) and args[index].literal and args[index].text[:1] in ("-", "+"):
        text = args[index].text
        index += 1
        if text in ("-", "+"):
            stdin = True
            break
        if text == "--":
            break
        if text in ("--rcfile", "--init-file") and index < len(args):
            found.append(args[index])
            index += 1
        elif text in ("-o", "+o", "-O", "+O"):
            index += 1
        elif not text.startswith("--"):
            inline |= "c" in text[1:]
            stdin |= "s" in text[1:]
    return found, index if not (inline or stdin) and index < len(args) else None, inline


def note(found: list[ScriptRun], word: Word, *, home: str, cwd: str | None, shell: bool, after: bool) -> str:
    """Add the script ``word`` names to ``found``; why it is risky when that is known only at run time."""
    where = path_of(word, home=home, cwd=cwd)
    if where is None or where[1]:
        return f"the script {word.text} is known only when it runs"
    found.append(ScriptRun(where[0], cwd, shell, after))
    return ""


def runs_as_shell(data: bytes) -> bool:
    """Whether a program file holding ``data`` runs as a shell script: its ``#!`` line names a shell
    (directly or through ``env``), or it has none and is text (bash runs what the kernel cannot).

    Examples:
        >>> runs_as_shell(b"#!/usr/bin/env bash\\nrm x\\n"), runs_as_shell(b"#!/usr/bin/python3\\n")
        (True, False)
    """
    first = data.split(b"\n", 1)[0]
    if not first.startswith(b"#!"):
        return b"\x00" not in data[:4096]
    words = first[2:].decode("utf-8", errors="replace").split()
    if words and posixpath.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return bool(words) and posixpath.basename(words[0]) in SHELLS
