"""Command classification for the ``execute`` tool: run it, ask first, or refuse it.

:func:`classify_command` parses the command with tree-sitter-bash (:mod:`._bash`) and walks every
simple command in it: pipelines, lists, subshells, groups, command and process substitutions,
``bash -c``/``sh -c`` and ``eval`` strings, heredocs fed to a shell, ``xargs`` and ``find -exec``.
Wrappers (:data:`_WRAPPERS`: ``timeout``, ``nice``, ``nohup``, ``stdbuf``, ``env``, ``command``,
``builtin``, ``exec``, ``time``, ``setsid``, ``xargs``, ``sudo``, ``doas``) are looked through;
flags are normalized (``-fr``, ``-r -f``, ``--recursive --force``, ``--rec``); quoting and
backslashes are decoded before anything is matched.

- ``refuse``, in every mode: a rule of :data:`_REFUSED` (``rm -r`` of ``/``, home, the workspace
  or a folder holding them, ``mkfs``, ``dd`` onto a disk, shutdown/reboot, ``chmod -R`` of ``/`` …),
  a fork bomb, a downloaded script run by an interpreter (``curl … | sh``, ``sh -c "$(curl …)"``,
  ``bash <(curl …)``), a write to a disk device or over a system account file, and a command
  nested too deeply (or too long) to be seen whole.
- ``safe``: every simple command is known read-only (:mod:`._readers`: a known program given only
  options it knows, abbreviations resolved as it resolves them, none that writes or runs a
  program; every word plain; never by basename for a command given by path), no substitution,
  no saved secret (``%NAME%``), and nothing written but ``/dev/null`` and fd duplicates. Its
  verdict lists what it reads (operands, ``<`` sources, files options name) for the caller.
- ``ask``: everything else, including all the parser cannot prove plain: parse errors,
  substitutions, an expanded command name, heredocs into interpreters, ``eval``, ``source``,
  control flow, function definitions, assignments.

``always_ask`` marks a write into ``.git/hooks``, ``.git/config``, ``.git``, ``.gitmodules`` or
``.circle/`` at any depth, Circle's data folder or ``~/.circle`` (by redirection, by a known
writer, :data:`_WRITERS`, or by a git subcommand that changes configuration, hooks or submodules,
:mod:`._git_rules`), resolved against the folder the walk tracks: it asks even in auto mode.

This module is over 600 lines because the rule tables and the walk that applies them are one
policy; the parser lives apart in :mod:`._bash`.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Literal

from . import _bash, _danger, _git_rules, _readers, shell_scripts
from ._bash import Command, Compound, Part, Pipeline, Redirect, Script, Word
from ._getopt import parse as _parse_options
from ._option_tables import WRAPPERS as _WRAPPER_OPTIONS
from ._paths import always_ask_place, path_of
from .shell_scripts import ScriptRun

__all__ = ["CommandVerdict", "PathAccess", "classify_command"]

VerdictKind = Literal["safe", "ask", "refuse"]
MAX_COMMAND_CHARS = 1_000_000


@dataclass(frozen=True, slots=True)
class PathAccess:
    """A path a command reads or writes, as far as the classifier can tell.

    Attributes:
        path: Absolute and normalized (``..`` folded); may hold bash glob characters (``*``, ``?``,
            ``[...]``) when ``glob`` is set, to be expanded against the real tree by the caller.
        glob: ``path`` is a pattern.
        recursive: The program reads (or writes) everything below ``path`` (``grep -r``, ``diff -r``,
            ``rg``, ``cp -r``).
        content: The program reads the file's content (``cat``, ``grep``), not only its name or
            metadata (``ls``, ``stat``).
    """

    path: str
    glob: bool = False
    recursive: bool = False
    content: bool = True


@dataclass(frozen=True, slots=True)
class CommandVerdict:
    """What to do with a command.

    Attributes:
        kind: ``safe`` runs without asking, ``ask`` asks as the approval mode says, ``refuse``
            never runs.
        reason: one short line for a person.
        always_ask: the command writes into ``.git/hooks``, ``.git/config``, ``.gitmodules`` or
            ``.circle/``: ask even in auto mode.
        words: each simple command's decoded argv, after looking through wrappers, in the order
            they were found (substitutions before the command that uses them).
        risky: why an always-refused pattern *could* match what the command runs (a target or a
            program known only at run time, inline interpreter code, an unknown wrapper): it asks
            even in auto mode, and is refused where nobody can answer. Empty: no such doubt.
        reads: the paths a ``safe`` command reads (operands, ``<`` redirects, option values that
            name files), for the caller to expand and check for credential files.
        writes: the paths the command writes that the classifier could resolve (redirects and
            known writers), for the caller to resolve through symlinks against the always-ask places.
        git_dirs: the folders in which a known read-only ``git`` runs, for the caller to check that
            the repository's configuration runs no program (``core.fsmonitor`` and the like).
        scripts: the files a shell runs as its script (``bash FILE``, ``< FILE`` into a shell,
            ``source``) and the programs given by path, for the caller to read and classify.
        resolved: the simple commands of ``words`` whose operands name paths another way once
            resolved (``~``, ``$HOME``, ``$PWD``, a relative path after ``cd``), with those operands
            as absolute paths; a path that climbs out (``..``) of a folder not known reads
            ``$PWD/...``. Deny and ask rules match these too; allow rules never do.
    """

    kind: VerdictKind
    reason: str
    always_ask: bool = False
    words: tuple[tuple[str, ...], ...] = ()
    risky: str = ""
    reads: tuple[PathAccess, ...] = ()
    writes: tuple[PathAccess, ...] = ()
    git_dirs: tuple[str, ...] = ()
    scripts: tuple[ScriptRun, ...] = ()
    resolved: tuple[tuple[str, ...], ...] = ()


def classify_command(
    command: str,
    *,
    workspace: str,
    home: str,
    data_dir: str | None = None,
    secret_names: Collection[str] | None = None,
    cwd: str | None = None,
) -> CommandVerdict:
    """Classify a bash command line that runs in the workspace root.

    Args:
        command: the command line, as the model wrote it.
        workspace: the workspace root, absolute.
        home: the person's home folder, absolute.
        data_dir: Circle's data folder: a write into it always asks.
        secret_names: the saved secrets' names: a command writing one as ``%NAME%`` is never known
            read-only. None: any ``%NAME%`` counts (``date +%Y%m%d`` too).
        cwd: the folder it runs in when not the workspace root (a script a command runs).
    """
    walk = _Walk(_normal(workspace), _normal(home), data_dir=_normal(data_dir) if data_dir else None)
    if len(command) > MAX_COMMAND_CHARS:
        return CommandVerdict("refuse", "the command is too long to check")
    if any(secret_names is None or m.group(1) in secret_names for m in _SECRET.finditer(command)):
        walk.ask("it uses a saved secret, whose value Circle fills in as it runs")
    if _SUBSCRIPT_CODE.search(command):
        walk.ask(_EVALUATED)
        walk.risk(_EVALUATED)
    if "\x00" in command:
        walk.ask("the command contains a NUL byte")
        command = command.replace("\x00", "")
    try:
        script = _bash.parse(command)
        walk.script(script, _Scope(_normal(cwd) if cwd else walk.workspace), 0)
        if script.error and "((" in command:
            # bash reads a "((" that is not arithmetic as two subshells; look at that reading too.
            again = _Walk(walk.workspace, walk.home)
            again.script(_bash.parse(re.sub(r"\((?=\()", "( ", command)), _Scope(walk.workspace), 0)
            walk.refuse(again.refused)
    except RecursionError:
        walk.refuse("the command is nested too deeply to check")
    return walk.verdict()


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SECRET = re.compile(r"%([A-Za-z_][A-Za-z0-9_]*)%")
_SUBSCRIPT_CODE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[[^\]]*(?:\$\((?!\()|`)")
"""An array subscript holding a command substitution (``a[$(cmd)]``): bash runs it wherever it
evaluates the text as a name or a number (``test -v``, ``printf -v``, ``read``, ``declare``, ``let``,
``[[ … -eq … ]]``, ``$(( ))``), even from a quoted literal."""
_EVALUATED = "it holds an array subscript with a command in it, which bash runs where it evaluates a name"
_ARITHMETIC_TEST = re.compile(r"\s-(?:eq|ne|lt|le|gt|ge|v)\s|^\[\[\s+-v\s")
_DECLARERS = frozenset({"declare", "typeset", "local", "readonly"})
_NAME_TAKERS = frozenset({"test", "[", "printf", "read", "let", "unset", "getopts", "mapfile", "readarray"})
_NAME_TAKERS |= _DECLARERS | {"wait"}


# --- Always refused -------------------------------------------------------------------------

_SYSTEM_DIRS = _set(
    "/bin /boot /dev /etc /home /lib /lib32 /lib64 /opt /private /proc /root /run /sbin /snap /srv "
    "/sys /usr /usr/bin /usr/lib /usr/local /usr/sbin /usr/share /var /var/lib /Applications "
    "/Library /System /Users /Volumes"
)
_DEVICE = re.compile(r"/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|md\d|dm-\d|mapper/)")
_ACCOUNT_FILES = _set("/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/sudoers")
_SINKS = _set("/dev/null /dev/stdout /dev/stderr /dev/tty")
_STAR, _ONE = "\x00", "\x01"
_EVERYTHING = re.compile(rf"\.?{_STAR}+")


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a command runs, to resolve the paths it names (``cwd`` None: unknown)."""

    home: str
    workspace: str
    cwd: str | None

    def resolve(self, word: Word) -> str | None:
        """``word`` as an absolute path, ``*`` and ``?`` kept as markers; None when it depends
        on something unknown (a variable, the folder after ``cd -``)."""
        if word.pattern:
            return None
        out: list[str] = []
        for part in word.parts:
            if part.kind == "text":
                out.append(part.value)
            elif part.kind == "glob":
                out.append(_STAR if part.value == "*" else _ONE)
            elif part.kind == "tilde":
                user = part.value[1:]
                out.append(posixpath.join(posixpath.dirname(self.home), user) if user else self.home)
            elif part.kind == "var" and part.value in ("HOME", "PWD"):
                folder = self.home if part.value == "HOME" else self.cwd
                if folder is None:
                    return None
                out.append(folder)
            else:
                return None
        path = "".join(out)
        if path.startswith("/"):
            return path
        return None if self.cwd is None else f"{self.cwd}/{path}"

    def danger(self, word: Word, *, system_only: bool = False) -> str:
        """What removing ``word`` recursively would destroy, when that is always refused."""
        path = self.resolve(word)
        if path is None:
            return ""
        first = word.parts[0]
        if first.kind == "tilde" and first.value != "~" and not system_only:
            user = posixpath.join(posixpath.dirname(self.home), first.value[1:])
            if posixpath.normpath(path.replace(_STAR, "")) == user:
                return f"the home folder {first.value}"
        parts = [p for p in path.split("/") if p not in ("", ".")]
        kept: list[str] = []
        for index, part in enumerate(parts):
            if part == "..":
                kept = kept[:-1]
            elif _STAR in part or _ONE in part:
                base = "/" + "/".join(kept)
                if index < len(parts) - 1:
                    return ""
                if _EVERYTHING.fullmatch(part) and self.protected(base, system_only=system_only):
                    return f"everything in {self.describe(base)}"
                return "everything in /" if base == "/" else ""
            else:
                kept.append(part)
        base = "/" + "/".join(kept)
        return self.describe(base) if self.protected(base, system_only=system_only) else ""

    def protected(self, path: str, *, system_only: bool = False) -> bool:
        if path == "/" or path in _SYSTEM_DIRS:
            return True
        own = () if system_only else (self.home, self.workspace)
        return any(mine == path or mine.startswith(path + "/") for mine in own)

    def describe(self, path: str) -> str:
        if path == self.workspace:
            return "the workspace root"
        if path == self.home:
            return "your home folder"
        if self.workspace.startswith(path + "/"):
            return f"{path} (it holds the workspace)"
        return f"{path} (it holds your home folder)" if self.home.startswith(path + "/") else path


_Rule = Callable[[_Place, Sequence[Word]], str]


def _rm(place: _Place, args: Sequence[Word]) -> str:
    recursive = force = False
    targets: list[Word] = []
    options = True
    for word in args:
        text = word.text
        if not (options and word.literal and text.startswith("-") and len(text) > 1):
            targets.append(word)
        elif text == "--":
            options = False
        elif text.startswith("--"):
            recursive |= len(text) >= 3 and "--recursive".startswith(text)
            force |= len(text) >= 3 and "--force".startswith(text)
        else:
            recursive |= "r" in text or "R" in text
            force |= "f" in text
    where = next((d for d in map(place.danger, targets) if d), "") if recursive else ""
    return f"rm -{'rf' if force else 'r'} of {where} is always refused" if where else ""


def _recursive_mode(name: str) -> _Rule:
    def rule(place: _Place, args: Sequence[Word]) -> str:
        flags = [w.text for w in args if w.literal and w.text.startswith("-")]
        if not any(f == "--recursive" or (not f.startswith("--") and "R" in f) for f in flags):
            return ""
        where = next((d for w in args if (d := place.danger(w, system_only=True))), "")
        return f"{name} -R of {where} is always refused" if where else ""

    return rule


def _dd(place: _Place, args: Sequence[Word]) -> str:
    onto_disk = any(w.text.startswith("of=") and _DEVICE.match(w.text[3:]) for w in args)
    return "dd onto a disk device is always refused" if onto_disk else ""


def _always(what: str) -> _Rule:
    return lambda place, args: f"{what} is always refused"


def _when_any(values: str, what: str) -> _Rule:
    found = _set(values)
    return lambda place, args: f"{what} is always refused" if any(w.text in found for w in args) else ""


_REFUSED: Mapping[str, _Rule] = {
    "rm": _rm,
    "mkfs": _always("making a filesystem"),
    "mke2fs": _always("making a filesystem"),
    "dd": _dd,
    "shutdown": _always("shutdown"),
    "reboot": _always("reboot"),
    "halt": _always("halt"),
    "poweroff": _always("poweroff"),
    "init": _when_any("0 6", "init 0/6"),
    "telinit": _when_any("0 6", "telinit 0/6"),
    "systemctl": _when_any("poweroff reboot halt kexec", "systemctl poweroff/reboot"),
    "chmod": _recursive_mode("chmod"),
    "chown": _recursive_mode("chown"),
    "chgrp": _recursive_mode("chgrp"),
}
"""The always-refused commands by name: a path counts by its basename, ``mkfs.*`` as ``mkfs``.
Each rule gets the arguments and says why it refuses, or nothing."""

_FETCHERS = _set("curl wget fetch http https xh")
_POSIX_SHELLS = _set("sh bash dash zsh ksh mksh ash yash")
_SHELLS = _POSIX_SHELLS | {"fish", "csh", "tcsh"}
_INTERPRETERS = _SHELLS | _set("python perl ruby node nodejs php lua deno bun pwsh")
_RUNS_CODE = _INTERPRETERS | {"eval", "source", "."}


def _program(name: str) -> str:
    """The name the rules know a command by: its basename, ``python3.12`` as ``python``."""
    base = posixpath.basename(name)
    if re.fullmatch(r"python[0-9.]*", base):
        return "python"
    return "mkfs" if base.startswith("mkfs.") else base


def _reads_program_from_stdin(argv: Sequence[str]) -> bool:
    """True when an interpreter runs what it reads on stdin (``sh``, ``bash -s``, ``python -``)."""
    program = _program(argv[0]) if argv else ""
    if program not in _INTERPRETERS:
        return False
    inline = "c" if program in _SHELLS else "cemEpr"
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-", "--"):
            return True
        if arg in ("-o", "+o", "-O", "+O") and program in _SHELLS:
            next(args, None)
            continue
        long = arg.startswith("--")
        if long and arg.split("=")[0] in ("--command", "--eval", "--print", "--module"):
            return False
        if not arg.startswith(("-", "+")) or (not long and any(c in inline for c in arg[1:])):
            return False
    return True


def _fetches(script: Script) -> bool:
    """True when ``script`` downloads something (``curl``, ``wget`` …) anywhere in it."""
    for command in _bash.commands(script):
        argv = _unwrap(command.words).argv
        if argv and argv[0].literal and _program(argv[0].text) in _FETCHERS:
            return True
    return False


def _printed(command: Command) -> list[str]:
    """The text ``echo``, ``printf`` or ``cat`` (of a heredoc) writes, to read it as the script
    a shell after them in a pipeline runs."""
    argv = _unwrap(command.words).argv
    program = _program(argv[0].text) if argv else ""
    if program in ("echo", "printf"):
        text = " ".join(w.text for w in argv[1:] if not w.text.startswith("-"))
        return [text.replace("\\n", "\n").replace("\\t", "\t")]
    heredocs = [r.target.text for r in command.redirects if r.heredoc or r.operator == "<<<"]
    return heredocs if program == "cat" and len(argv) == 1 else []


def _is_fork_bomb(function: Compound) -> bool:
    """A function that starts itself in a pipeline or in the background: ``:(){ :|:& };:``."""

    def calls(script: Script) -> bool:
        for pipeline in script.pipelines:
            names = [s.words[0].text for s in pipeline.stages if isinstance(s, Command) and s.words]
            if function.name in names and (len(pipeline.stages) > 1 or pipeline.background):
                return True
            if any(isinstance(s, Compound) and calls(s.body) for s in pipeline.stages):
                return True
        return False

    return bool(function.name) and calls(function.body)


# --- Known read-only ------------------------------------------------------------------------
# The programs and their rules live in ._readers (tables in ._option_tables, git in ._git_rules).

_HARMLESS_ENV = re.compile(
    r"(?:LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|TERM|COLUMNS|LINES|FORCE_COLOR|CLICOLOR)=.*"
)


# --- Wrappers and options -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Syntax:
    """How a command reads its options; for a wrapper, also where the command it runs starts."""

    values: frozenset[str] = frozenset()
    operands: int = 0
    opaque: str = ""
    assigns: bool = False
    optional: str = ""
    stop: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()


_WRAPPERS: Mapping[str, _Syntax] = {
    "builtin": _Syntax(),
    "command": _Syntax(stop=_set("-v -V")),
    "doas": _Syntax(opaque="doas runs commands as another user"),
    "env": _Syntax(assigns=True),
    "exec": _Syntax(opaque="exec replaces the shell"),
    "nice": _Syntax(),
    "nohup": _Syntax(opaque="nohup can write nohup.out"),
    "setsid": _Syntax(),
    "stdbuf": _Syntax(),
    "sudo": _Syntax(
        opaque="sudo runs commands as another user",
        assigns=True,
        stop=_set("--edit --list --validate --remove-timestamp --version"),
    ),
    "time": _Syntax(writes=_set("--output")),
    "timeout": _Syntax(operands=1),
    "xargs": _Syntax(),
}
"""Commands that run the command after their own options (read by their tables in
:data:`._option_tables.WRAPPERS`); ``opaque`` ones keep it from being safe; ``stop`` options make
the wrapper do something else (``command -v``)."""
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _getopt(args: Sequence[Word], syntax: _Syntax) -> tuple[dict[str, str], int] | None:
    """Read leading options: their values, and where the operands start; None at a stop option."""
    values: dict[str, str] = {}
    index = 0
    while index < len(args) and args[index].literal and args[index].text.startswith("-"):
        text = args[index].text
        index += 1
        if text in ("-", "--"):
            if text == "--":
                break
            continue
        if text.startswith("--"):
            key, equals, value = text.partition("=")
            if key in syntax.stop:
                return None
            if key in syntax.values and not equals and index < len(args):
                value, index = args[index].text, index + 1
            values[key] = value
            continue
        for position, char in enumerate(text[1:], start=2):
            flag = "-" + char
            if flag in syntax.stop:
                return None
            if flag in syntax.values or char in syntax.optional:
                value = text[position:]
                if not value and flag in syntax.values and index < len(args):
                    value, index = args[index].text, index + 1
                values[flag] = value
                break
            values[flag] = ""
    return values, index


@dataclass(frozen=True, slots=True)
class _Unwrapped:
    """A command after looking through its wrappers."""

    argv: tuple[Word, ...]
    opaque: str = ""
    assignments: tuple[str, ...] = ()
    open_args: bool = False
    split: str | None = None
    chdir: bool = False


def _wrapper_options(
    name: str, args: Sequence[Word], syntax: _Syntax
) -> tuple[dict[str, str], int, str] | None:
    """A wrapper's options as it reads them (abbreviations resolved; keys spelled ``--name`` or
    ``-x``), where its command starts, and why they cannot be read; None at a stop option."""
    parsed = _parse_options(args, _WRAPPER_OPTIONS[name])
    values = {_spelled(f.key): f.value.text if f.value else "" for f in parsed.found}
    if values.keys() & syntax.stop:
        return None
    error = f"{name} {parsed.error}" if parsed.error else ""
    if name == "xargs" and "--arg-file" in values:
        error = error or "xargs --arg-file reads a file that cannot be checked"
    return values, parsed.end, error


def _spelled(key: str) -> str:
    return f"-{key}" if len(key) == 1 else f"--{key}"


def _unwrap(argv: Sequence[Word]) -> _Unwrapped:
    words = tuple(argv)
    opaque = ""
    assignments: list[str] = []
    open_args = chdir = False
    split: str | None = None
    while words and words[0].literal:
        name = words[0].text
        base = posixpath.basename(name)
        syntax = _WRAPPERS.get(base)
        found = _wrapper_options(base, words[1:], syntax) if syntax is not None else None
        if syntax is None or found is None:
            break
        values, index, error = found
        opaque = opaque or error
        index += 1
        while syntax.assigns and index < len(words) and _ASSIGNMENT.match(words[index].text):
            assignments.append(words[index].text)
            index += 1
        index += syntax.operands
        splits = {"-S", "--split-string"} & values.keys()
        if index >= len(words) and not splits:
            break
        opaque = opaque or syntax.opaque or ("a wrapper given by path is not checked" if "/" in name else "")
        opaque = opaque or next((f"{base} {o} writes a file" for o in syntax.writes if o in values), "")
        open_args |= base == "xargs"
        chdir |= bool({"-C", "--chdir"} & values.keys())
        if base == "env" and splits:
            split = values[min(splits)]
        words = words[index:]
    return _Unwrapped(words, opaque, tuple(assignments), open_args, split, chdir)


# --- Writers --------------------------------------------------------------------------------

_WRITERS: Mapping[str, tuple[frozenset[str], str]] = {
    "cp": (_set("-t --target-directory -S --suffix"), "last"),
    "install": (_set("-t --target-directory -m --mode -o --owner -g --group -S --suffix"), "last"),
    "ln": (_set("-t --target-directory -S --suffix"), "last"),
    "rsync": (_set("-e --rsh --exclude --include --filter -f"), "last"),
    "mv": (_set("-t --target-directory -S --suffix"), "all"),
    "rm": (frozenset(), "all"),
    "rmdir": (frozenset(), "all"),
    "unlink": (frozenset(), "all"),
    "shred": (_set("-n --iterations -s --size"), "all"),
    "touch": (_set("-d --date -r --reference -t"), "all"),
    "mkdir": (_set("-m --mode"), "all"),
    "tee": (frozenset(), "all"),
    "truncate": (_set("-s --size -r --reference"), "all"),
    "chmod": (_set("--reference"), "after-first"),
    "chown": (_set("--reference --from"), "after-first"),
    "chgrp": (_set("--reference"), "after-first"),
    "sed": (_set("-e --expression -f --file -l --line-length"), "sed"),
}
"""Commands that write the files they name: their options taking a value, and which operands
they write (the last, all, all after the first, or for ``sed -i`` the files)."""
_OUTPUT_OPTIONS = {"curl": _set("-o --output"), "wget": _set("-O --output-document")}
_OUTPUT_OPTIONS["find"] = _set("-fls -fprint -fprint0 -fprintf")
_CONTENT_WRITERS = _set("cp install rsync mv shred tee dd")
_TREE_WRITERS = _set("rm cp chmod chown chgrp rsync")


def _write_targets(program: str, args: Sequence[Word]) -> list[Word]:
    """The files ``program args`` writes, as far as its options tell."""
    if program == "dd":
        return [_literal(w.text[3:]) for w in args if w.text.startswith("of=")]
    if program in _OUTPUT_OPTIONS:
        names = _OUTPUT_OPTIONS[program]
        return [_option_value(args, i) for i, w in enumerate(args) if w.text.split("=")[0] in names]
    if program == "git":
        return _git_rules.changes([w.text for w in args])
    if program not in _WRITERS:
        return []
    takes_value, which = _WRITERS[program]
    extra = {"-t", "--target-directory"} if which == "last" else set()
    operands, values = _operands(args, _Syntax(takes_value | extra, optional="i" if which == "sed" else ""))
    if which == "sed":
        if not {"-i", "--in-place"} & values.keys():
            return []
        return operands if {"-e", "--expression", "-f", "--file"} & values.keys() else operands[1:]
    if which == "last":
        return [_literal(v) for key in sorted(extra) for v in values.get(key, [])] + operands[-1:]
    return operands[1:] if which == "after-first" and "--reference" not in values else operands


def _writes_trees(program: str, args: Sequence[Word]) -> bool:
    """True when ``program`` writes whole folders: ``mv``, ``rm -r``, ``cp -a``, ``chmod -R`` …"""
    if program == "mv":
        return True
    flags = [w.text for w in args if w.literal and w.text.startswith("-")] if program in _TREE_WRITERS else []
    longs = [f.split("=")[0] for f in flags if f.startswith("--")]
    shorts = "".join(f[1:] for f in flags if not f.startswith("--"))
    return bool(set(shorts) & set("rRa")) or any(
        len(f) > 4 and ("--recursive".startswith(f) or "--archive".startswith(f)) for f in longs
    )


def _operands(args: Sequence[Word], syntax: _Syntax) -> tuple[list[Word], dict[str, list[str]]]:
    """Operands and option values of a GNU-style command: options and operands in any order."""
    operands: list[Word] = []
    values: dict[str, list[str]] = {}
    rest = list(args)
    while rest:
        found, index = _getopt(rest, syntax) or ({}, 0)
        for key, value in found.items():
            values.setdefault(key, []).append(value)
        if index > 0 and rest[index - 1].literal and rest[index - 1].text == "--":
            return operands + rest[index:], values
        operands += rest[index : index + 1]
        rest = rest[index + 1 :]
    return operands, values


def _option_value(args: Sequence[Word], index: int) -> Word:
    text = args[index].text
    if text.startswith("--") and "=" in text:
        return _literal(text.split("=", 1)[1])
    return args[index + 1] if index + 1 < len(args) else _literal("")


def _literal(text: str) -> Word:
    return Word((Part("text", text),))


def _protected(text: str) -> str:
    """The always-ask place ``text`` names (``.git/hooks``, ``.git/config``, ``.git``,
    ``.gitmodules``, ``.circle/``), or empty. Case-insensitive; a dot-glob may name one."""
    parts = [p.lower() for p in posixpath.normpath(text or ".").split("/") if p]

    def named(part: str, name: str) -> bool:
        return part == name or (part[:1] == name[:1] and fnmatchcase(name, part))

    for index, part in enumerate(parts):
        following = parts[index + 1] if index + 1 < len(parts) else None
        if named(part, ".circle"):
            return ".circle/"
        if named(part, ".gitmodules") and following is None:
            return ".gitmodules"
        if named(part, ".git") and following is None:
            return ".git"
        if named(part, ".git") and following is not None:
            inside = next((n for n in ("hooks", "config", "info") if named(following, n)), "")
            if inside:
                return f".git/{inside}"
    return ""


# --- The walk -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Scope:
    """The shell's folder as far as the walk can tell; ``cd`` changes it, subshells copy it."""

    cwd: str | None

    def copy(self) -> _Scope:
        return _Scope(self.cwd)


@dataclass(slots=True)
class _Walk:
    """Walks a script; the first reason of each kind wins."""

    workspace: str
    home: str
    refused: str = ""
    asked: str = ""
    guarded: str = ""
    words: list[tuple[str, ...]] = field(default_factory=list)
    resolved: list[tuple[str, ...]] = field(default_factory=list)
    data_dir: str | None = None
    reads: list[PathAccess] = field(default_factory=list)
    writes: list[PathAccess] = field(default_factory=list)
    git_dirs: list[str] = field(default_factory=list)
    scripts: list[ScriptRun] = field(default_factory=list)
    risky: str = ""
    danger: _danger.State = field(default_factory=lambda: _danger.State())

    def ask(self, reason: str) -> None:
        self.asked = self.asked or reason

    def risk(self, reason: str) -> None:
        self.risky = self.risky or reason

    def refuse(self, reason: str) -> None:
        self.refused = self.refused or reason

    def verdict(self) -> CommandVerdict:
        return dataclasses.replace(self._verdict(), resolved=tuple(dict.fromkeys(self.resolved)))

    def _verdict(self) -> CommandVerdict:
        words = tuple(self.words)
        found = (tuple(dict.fromkeys(self.writes)), tuple(dict.fromkeys(self.git_dirs)), tuple(self.scripts))
        if self.refused:
            return CommandVerdict("refuse", self.refused, bool(self.guarded), words, self.risky, (), *found)
        if self.guarded or self.asked:
            reason = self.guarded or self.asked
            return CommandVerdict("ask", reason, bool(self.guarded), words, self.risky, (), *found)
        reads = tuple(dict.fromkeys(self.reads))
        safe = "every command is known read-only"
        return CommandVerdict("safe", safe, False, words, self.risky, reads, *found)

    def place(self, scope: _Scope) -> _Place:
        return _Place(self.home, self.workspace, scope.cwd)

    def script(self, script: Script, scope: _Scope, depth: int) -> None:
        """Walk ``script``; ``depth`` counts the substitutions, compounds and re-parsed strings
        around it, in one budget with the parser's (:data:`._bash.MAX_NESTING`)."""
        if depth > _bash.MAX_NESTING:
            self.refuse("the command is nested too deeply to check")
            return
        if script.error:
            self.ask("the command does not parse as bash")
        if script.too_deep:
            self.refuse("the command is nested too deeply to check")
        for pipeline in script.pipelines:
            self.pipeline(pipeline, scope, depth)

    def nested(self, source: str, scope: _Scope, depth: int) -> None:
        """Walk ``source`` as the script a shell, ``eval`` or ``env -S`` runs."""
        self.script(_bash.parse(source, nesting=depth + 1), scope, depth + 1)

    def pipeline(self, pipeline: Pipeline, scope: _Scope, depth: int) -> None:
        _danger.pipeline(self, pipeline, scope, depth)
        fetched = False
        fed: list[str] = []
        for stage in pipeline.stages:
            inner = [stage] if isinstance(stage, Command) else list(_bash.commands(stage.body))
            argvs = [tuple(w.text for w in _unwrap(c.words).argv) for c in inner if c.words]
            shells = [a for a in argvs if _reads_program_from_stdin(a) and _program(a[0]) in _POSIX_SHELLS]
            if fetched and any(_reads_program_from_stdin(argv) for argv in argvs):
                self.refuse("piping a downloaded script into an interpreter is always refused")
            for text in fed if shells else ():
                self.nested(text, scope.copy(), depth)
            fetched |= any(argv and _program(argv[0]) in _FETCHERS for argv in argvs)
            fed = _printed(stage) if isinstance(stage, Command) else []
        alone = len(pipeline.stages) == 1 and not pipeline.background
        for stage in pipeline.stages:
            own = scope if alone else scope.copy()
            if isinstance(stage, Command):
                self.command(stage, own, depth)
            else:
                self.compound(stage, own, depth)

    def compound(self, compound: Compound, scope: _Scope, depth: int) -> None:
        for word in compound.words:
            self.substitutions(word, scope, depth)
        kind = compound.kind
        if kind == "function_definition" and _is_fork_bomb(compound):
            self.refuse("a fork bomb is always refused")
        if kind == "function_definition":
            _danger.define(self, compound)
        if kind == "test_command" and "$" in compound.source and _ARITHMETIC_TEST.search(compound.source):
            reason = "a [[ … ]] that evaluates an expanded value as a name or number can run a command"
            self.ask(reason)
            self.risk(reason)
        if kind in ("subshell", "compound_statement", "test_command"):
            self.script(compound.body, scope.copy() if kind == "subshell" else scope, depth + 1)
        else:
            self.ask(_UNCHECKED.get(kind, f"{kind.replace('_', ' ')} is not checked"))
            inner = scope.copy()
            self.script(compound.body, inner, depth + 1)
            scope.cwd = scope.cwd if inner.cwd == scope.cwd else None
        self.redirects(compound.redirects, scope, depth, ())

    def substitutions(self, word: Word, scope: _Scope, depth: int) -> None:
        for substitution in word.substitutions:
            self.ask(f"{substitution.kind} substitution cannot be checked")
            self.script(substitution.script, scope.copy(), depth + 1)

    def command(self, command: Command, scope: _Scope, depth: int) -> None:
        _danger.assign(self, command)
        if command.words and not command.words[0].literal:
            self.ask(_dynamic_name(command.words[0]))
        for word in (*command.assignments, *command.words):
            self.substitutions(word, scope, depth)
        self.redirects(command.redirects, scope, depth, [w.text for w in _unwrap(command.words).argv])
        unsafe = [w.text.split("=")[0] for w in command.assignments if not _HARMLESS_ENV.fullmatch(w.text)]
        if not command.words:
            if command.assignments:
                self.ask("setting shell variables is not checked")
            return
        if unsafe:
            self.ask(f"setting {unsafe[0]} for a command is not checked")
        self.run(command.words, scope, depth)

    def redirects(
        self, redirects: Sequence[Redirect], scope: _Scope, depth: int, argv: Sequence[str]
    ) -> None:
        program = _program(argv[0]) if argv else ""
        for redirect in redirects:
            self.substitutions(redirect.target, scope, depth)
            _danger.redirect(self, redirect, argv, scope)
            if redirect.operator in ("<", "<>"):
                self.read(_readers.Target(redirect.target), scope)
                if program in _POSIX_SHELLS and shell_scripts.reads_stdin([_literal(a) for a in argv[1:]]):
                    self.script_file(redirect.target, scope, earlier=0)
            if redirect.heredoc or redirect.operator == "<<<":
                if program in _RUNS_CODE:
                    kind = "here-string" if redirect.operator == "<<<" else "heredoc"
                    self.ask(f"a {kind} into {program} cannot be checked")
                if program in _POSIX_SHELLS and not any(a.startswith("-") and "c" in a for a in argv[1:]):
                    self.nested(redirect.target.text, scope.copy(), depth)
            elif _writes(redirect):
                self.write(redirect.target, scope, redirect=redirect.operator)

    def write(
        self, target: Word, scope: _Scope, *, redirect: str = "", content: bool = True, tree: bool = False
    ) -> None:
        """``target`` is written: by a redirection (``redirect`` is its operator) or by a command
        (``tree``: with everything below it)."""
        text = target.text
        if redirect and target.literal and text in _SINKS:
            return
        path = self.place(scope).resolve(target) if target.literal else None
        path = posixpath.normpath(path) if path else text
        if content and _DEVICE.match(path):
            self.refuse("writing to a disk device is always refused")
        if redirect in (">", ">|", "&>") and path in _ACCOUNT_FILES:
            self.refuse(f"overwriting {path} is always refused")
        place = self.written(target, scope, tree=tree) or _protected(text)
        if place:
            self.guarded = self.guarded or f"writes into {place}, which asks in every mode"
        if redirect:
            self.ask(f"writes to {text if len(text) <= 60 else text[:57] + '...'}")

    def run(self, argv: Sequence[Word], scope: _Scope, depth: int) -> None:
        """Check one simple command (also one that ``xargs`` or ``find -exec`` runs)."""
        unwrapped = _unwrap(argv)
        words = unwrapped.argv
        self.words.append(tuple(w.text for w in words or argv))
        self.resolve_operands(words, scope)
        if unwrapped.opaque:
            self.ask(unwrapped.opaque)
        unsafe = [a for a in unwrapped.assignments if not _HARMLESS_ENV.fullmatch(a)]
        if unsafe:
            self.ask(f"setting {unsafe[0].split('=')[0]} for a command is not checked")
        if unwrapped.chdir:
            scope = _Scope(None)
        _danger.command(self, unwrapped, scope, depth)
        if unwrapped.split is not None:
            self.ask("env -S cannot be checked")
            self.nested(" ".join((unwrapped.split, *(w.text for w in words))), scope.copy(), depth)
            return
        if not words[0].literal:
            self.ask(_dynamic_name(words[0]))
            return
        name = words[0].text
        program = _program(name)
        if "/" in name:
            self.script_file(words[0], scope, shell=False)
        if program in _NAME_TAKERS:
            self.names(program, words[1:])
        rule = _REFUSED.get(program)
        self.refuse(rule(self.place(scope), words[1:]) if rule else "")
        if program in _RUNS_CODE and any(_fetches(s.script) for w in words[1:] for s in w.substitutions):
            self.refuse("running a downloaded script is always refused")
        if program in _SHELLS:
            self.shell(words, scope, depth)
        elif program == "eval":
            self.ask("eval cannot be checked")
            self.nested(" ".join(w.text for w in words[1:]), scope.copy(), depth)
        elif program in ("source", "."):
            self.ask(f"{program} runs a script that cannot be checked")
            if len(words) > 1:
                self.script_file(words[1], scope)
        else:
            self.read_only(name, words[1:], scope, xargs=unwrapped.open_args)
        if program == "find":
            self.find_exec(words[1:], scope, depth)
        tree = _writes_trees(program, words[1:])
        for target in _write_targets(program, words[1:]):
            self.write(target, scope, content=program in _CONTENT_WRITERS, tree=tree)
        if name in ("cd", "pushd", "popd"):
            self.cd(words[1:] if name != "popd" else [_literal("-")], scope)

    def resolve_operands(self, words: Sequence[Word], scope: _Scope) -> None:
        """Record ``words`` with its operands as the paths they name, where that differs."""
        place = self.place(scope)
        out = [words[0].text] if words else []
        for word in words[1:]:
            text = word.text
            path = None if text.startswith("-") or word.pattern else place.resolve(word)
            if path is not None and _STAR not in path and _ONE not in path:
                text = text if path == f"{self.workspace}/{text}" else path
            elif scope.cwd is None and ".." in text.split("/") and not text.startswith("/"):
                text = f"$PWD/{text}"
            out.append(text)
        if len(out) > 1 and out != [w.text for w in words]:
            self.resolved.append(tuple(out))

    def read_only(self, name: str, args: Sequence[Word], scope: _Scope, *, xargs: bool) -> None:
        """Ask unless ``name args`` is known read-only; note what it reads and where git runs."""
        found = _readers.check(name, args, xargs=xargs)
        self.ask(found.reason)
        for target in found.reads:
            self.read(target, scope)
        if found.git and scope.cwd is None:
            self.ask("git runs in a folder that cannot be told before it runs")
        elif found.git and scope.cwd is not None:
            self.git_dirs.append(scope.cwd)

    def read(self, target: _readers.Target, scope: _Scope) -> None:
        """Note a path read; ask when it is known only at run time."""
        found = path_of(target.word, home=self.home, cwd=scope.cwd)
        if found is None:
            self.ask(f"what {target.word.text} names cannot be told before it runs")
            return
        self.reads.append(PathAccess(found[0], found[1], target.recursive, target.content))

    def written(self, target: Word, scope: _Scope, *, tree: bool) -> str:
        """Note a path written; the always-ask place it changes, or empty."""
        found = path_of(target, home=self.home, cwd=scope.cwd)
        if found is None:
            return ""
        self.writes.append(PathAccess(found[0], found[1], tree))
        return always_ask_place(found[0], home=self.home, data_dir=self.data_dir, recursive=tree)

    def names(self, program: str, args: Sequence[Word]) -> None:
        """``test -v NAME``, ``printf -v NAME``, ``read NAME`` …: bash evaluates a name given by an
        expansion (its subscript can run a command), and ``printf -v`` assigns a shell variable."""
        texts = [w.text for w in args]
        if program == "printf" and any(t == "-v" or (t.startswith("-v") and len(t) > 2) for t in texts):
            self.ask("printf -v assigns a shell variable")
        from . import _danger_code

        _danger_code.environment(self, _assigned_names(program, texts))
        takes = program not in ("test", "[", "printf") or "-v" in texts
        if program in _DECLARERS:  # ``NAME=value``: only an expanded name is evaluated
            expanded = any(w.parts and w.parts[0].kind != "text" for w in args)
        else:
            expanded = not all(w.literal for w in args)
        if takes and expanded:
            reason = f"{program} evaluates an expanded name, which can run a command"
            self.ask(reason)
            self.risk(reason)

    def script_file(self, word: Word, scope: _Scope, *, shell: bool = True, earlier: int = 1) -> None:
        """Note a file run as a script, for the caller to classify; risky when it is known only at
        run time. ``earlier``: the simple commands noted so far that are this one."""
        after = len(self.words) > earlier and bool(self.asked or self.guarded or self.writes)
        cwd = scope.cwd
        self.risk(shell_scripts.note(self.scripts, word, home=self.home, cwd=cwd, shell=shell, after=after))

    def shell(self, words: Sequence[Word], scope: _Scope, depth: int) -> None:
        """``bash -c 'script'`` is as safe as its script; any other shell use asks."""
        name, args = words[0].text, words[1:]
        for script in shell_scripts.shell_scripts(args) if _program(name) in _POSIX_SHELLS else ():
            self.script_file(script, scope)
        index = 0
        inline = False
        while index < len(args) and args[index].literal and args[index].text[:1] in ("-", "+"):
            text = args[index].text
            if text in ("-", "+"):
                break
            index += 1
            if text == "--":
                break
            inline |= not text.startswith("--") and "c" in text[1:]
            if text in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                index += 1
        if "/" in name or _program(name) not in _POSIX_SHELLS:
            self.ask(f"{name} is not known to be read-only")
        if not inline or index >= len(args):
            self.ask(f"{_program(name)} runs a script that cannot be checked")
        elif not args[index].literal:
            self.ask("a shell script built from expansions cannot be checked")
        else:
            self.nested(args[index].text, scope.copy(), depth)

    def find_exec(self, args: Sequence[Word], scope: _Scope, depth: int) -> None:
        index = 0
        while index < len(args):
            if args[index].text in ("-exec", "-execdir", "-ok", "-okdir"):
                end = index + 1
                while end < len(args) and args[end].text not in (";", "+"):
                    end += 1
                if end > index + 1:
                    self.run(args[index + 1 : end], scope.copy(), depth)
                index = end
            index += 1

    def cd(self, args: Sequence[Word], scope: _Scope) -> None:
        operands = [w for w in args if not (w.literal and w.text.startswith("-") and w.text != "-")]
        if not operands:
            scope.cwd = self.home
            return
        path = self.place(scope).resolve(operands[0]) if operands[0].text != "-" else None
        scope.cwd = posixpath.normpath(path) if path and _STAR not in path and _ONE not in path else None


def _assigned_names(program: str, texts: Sequence[str]) -> list[str]:
    """The shell variables ``printf -v``, ``read``, ``declare`` and the like would set."""
    if program == "printf":
        return [texts[i + 1] for i, t in enumerate(texts[:-1]) if t == "-v"] + [
            t[2:] for t in texts if t.startswith("-v") and len(t) > 2
        ]
    if program in ("read", "mapfile", "readarray", "getopts"):
        return [t for t in texts if not t.startswith("-")]
    return [t.split("=", 1)[0] for t in texts if not t.startswith(("-", "+"))]


_UNCHECKED = {
    "ERROR": "the command does not parse as bash",
    "function_definition": "function definitions are not checked",
    "arithmetic": "arithmetic is not checked",
    "if_statement": "if blocks are not checked",
    "while_statement": "while loops are not checked",
    "for_statement": "for loops are not checked",
    "c_style_for_statement": "for loops are not checked",
    "case_statement": "case blocks are not checked",
}


def _dynamic_name(word: Word) -> str:
    if word.substitutions:
        return "command substitution as the command name cannot be checked"
    if word.has("var") or word.has("expansion"):
        return "a variable as the command name cannot be checked"
    if word.has("glob") or word.pattern:
        return "a glob as the command name cannot be checked"
    return "an expanded command name cannot be checked"


def _writes(redirect: Redirect) -> bool:
    operator, target = redirect.operator, redirect.target
    if operator in (">&", "<&"):
        duplicate = target.literal and (target.text.isdigit() or target.text == "-")
        return operator == ">&" and not duplicate
    return operator in (">", ">>", "&>", "&>>", ">|", "<>")


def _normal(path: str) -> str:
    return posixpath.normpath(re.sub("/+", "/", path or "/"))
