"""Which commands are known read-only, and what they read.

:func:`check` looks at one simple command (after its wrappers) and says why it is not known
read-only, or else which words name what it reads (:class:`Target`), for the walk to resolve
against the folder it runs in. A command is known read-only only when it is a known program
(:data:`._option_tables.READERS` and the rules here) given only options it knows, spelled as it
would read them (abbreviations resolved, :mod:`._getopt`), none of which writes, runs a program or
reads a list of files; and when each of its words is plain: literal text, or for a path a glob,
``~``, ``$HOME`` or ``$PWD``. ``echo``, ``printf`` and other commands that read no file may print
any variable.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from . import _git_rules
from ._bash import Word
from ._getopt import Parsed, literal, parse
from ._option_tables import READERS, RG, SED, WRAPPERS, Reader
from ._paths import has_braces

__all__ = ["Check", "Target", "check"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class Target:
    """A word naming a path the command reads."""

    word: Word
    recursive: bool = False
    content: bool = True


@dataclass(frozen=True, slots=True)
class Check:
    """Why a command is not known read-only (empty ``reason`` when it is), what it reads, and
    whether it is a read-only ``git`` (whose folder the caller checks)."""

    reason: str = ""
    reads: tuple[Target, ...] = ()
    git: bool = False


def check(name: str, args: Sequence[Word], *, xargs: bool = False) -> Check:
    """Check ``name args``; ``xargs`` says more arguments come from ``xargs`` at run time."""
    if "/" in name:
        return Check(f"{name} is given by path, so it is not matched by name")
    rule = _RULES.get(name)
    if rule is not None:
        return rule(name, args, xargs)
    reader = READERS.get(name)
    if reader is None:
        return Check(f"{name} is not known to be read-only")
    return _reader(name, reader, args, xargs=xargs)


def _plain(word: Word, *, path: bool) -> bool:
    """True when bash passes ``word`` as written, or (``path``) it names a path known before it
    runs (a glob, ``~``, ``$HOME``, ``$PWD``)."""
    if word.literal:
        return True
    if not path or word.substitutions or has_braces(word):
        return False
    for index, part in enumerate(word.parts):
        if part.kind == "var" and part.value not in ("HOME", "PWD"):
            return False
        if part.kind == "tilde" and (part.value != "~" or index):
            return False
        if part.kind == "expansion":
            return False
    return True


def _unplain(name: str, args: Sequence[Word], *, paths: set[int], files: Sequence[Word] = ()) -> str:
    """Why a word of ``name args`` is not plain: paths (and files options name) may be globs or
    start with ``~``, ``$HOME`` or ``$PWD``; every other word must be literal."""
    named = {id(word) for word in files}
    for index, word in enumerate(args):
        if not _plain(word, path=index in paths or id(word) in named):
            return f"{name} with expanded arguments cannot be checked"
    if any(not _plain(word, path=True) for word in files):
        return f"{name} with expanded arguments cannot be checked"
    return ""


def _options(name: str, reader: Reader, parsed: Parsed) -> str:
    if parsed.error:
        return f"{name} {parsed.error}"
    for found in parsed.found:
        if found.key in reader.writes:
            return f"{name} {found.named} writes a file"
        if found.key in reader.runs:
            return f"{name} {found.named} runs a program"
        if found.key in reader.unsafe:
            return f"{name} {found.named} {reader.unsafe[found.key]}"
    return ""


def _reader(name: str, reader: Reader, args: Sequence[Word], *, xargs: bool) -> Check:
    parsed = parse(args, reader.options)
    reason = _options(name, reader, parsed)
    if reason:
        return Check(reason)
    if xargs and (reader.operands != "none" or reader.dangerous or reader.files):
        return Check(f"{name} with arguments from xargs cannot be checked")
    operands = [] if reader.operands == "none" else list(parsed.operands)
    if reader.operands == "pattern" and not parsed.has("regexp", "file"):
        operands = operands[1:]
    files = [v for v in parsed.values(*reader.files) if v.text != "-"]
    if reader.operands == "none" and not reader.dangerous and not files:
        return Check()
    reason = _unplain(name, args, paths=set(operands), files=files)
    if not reason and reader.dangerous:
        reason = _option_glob(name, args, operands, parsed.end)
    if reason:
        return Check(reason)
    if name == "uniq" and len(operands) > 1:
        return Check("uniq writes its output file")
    recursive = reader.always_recursive or parsed.has(*reader.recursive) or _recurse(parsed, name)
    words = [args[i] for i in operands if args[i].text != "-"]
    if not operands and (reader.default or (recursive and reader.operands == "pattern")):
        words = [literal(reader.default or ".")]
    content = reader.operands != "meta"
    reads = [Target(w, recursive, content) for w in words] + [Target(v) for v in files]
    return Check("", tuple(reads))


def _recurse(parsed: Parsed, name: str) -> bool:
    """grep's ``-d recurse`` / ``--directories=recurse``, its value abbreviated or not."""
    if name not in ("grep", "egrep", "fgrep"):
        return False
    return any(v.text and "recurse".startswith(v.text) for v in parsed.values("directories"))


def _option_glob(name: str, args: Sequence[Word], operands: Sequence[int], end: int) -> str:
    """A glob that could expand to an option (``sort *`` in a folder holding ``-o x``)."""
    for index in operands:
        first = args[index].parts[0] if args[index].parts else None
        if index >= end or first is None:
            continue
        if first.kind == "glob" or (args[index].pattern and first.value[:1] in ("[", "{")):
            return f"{name} of a glob that could expand to an option cannot be checked"
    return ""


# --- Programs with rules of their own ---------------------------------------------------------

_Rule = Callable[[str, Sequence[Word], bool], Check]
_SED_LINES = re.compile(r"(?:\d+|\$)(?:,(?:\d+|\$))?p")
_SED_OPTIONS = _words("quiet silent debug posix sandbox separate unbuffered null-data regexp-extended binary")


def _sed(name: str, args: Sequence[Word], xargs: bool) -> Check:
    parsed = parse(args, SED)
    if parsed.error:
        return Check(f"sed {parsed.error}")
    if parsed.has("in-place"):
        return Check("sed -i writes files")
    operands = list(parsed.operands)
    script = args[operands[0]].text if operands and args[operands[0]].literal else ""
    plain = all(f.key in _SED_OPTIONS for f in parsed.found) and parsed.has("quiet", "silent")
    if not (plain and _SED_LINES.fullmatch(script)):
        return Check("sed is only known read-only as sed -n <N>p")
    if xargs:
        return Check("sed with arguments from xargs cannot be checked")
    reason = _unplain("sed", args, paths=set(operands[1:]))
    targets = tuple(Target(args[i]) for i in operands[1:] if args[i].text != "-")
    return Check(reason, () if reason else targets)


def _rg(name: str, args: Sequence[Word], xargs: bool) -> Check:
    parsed = parse(args, RG)
    if parsed.error:
        return Check(f"rg {parsed.error}")
    for found in parsed.found:
        if found.key in ("pre", "hostname-bin"):
            return Check(f"rg {found.named} runs a program")
        if found.key == "search-zip":
            return Check(f"rg {found.named} runs decompression programs")
    if xargs:
        return Check("rg with arguments from xargs cannot be checked")
    operands = list(parsed.operands)
    if operands and not parsed.has("regexp", "file", "files", "type-list"):
        operands = operands[1:]
    files = [v for v in parsed.values("file", "ignore-file") if v.text != "-"]
    reason = _unplain("rg", args, paths=set(operands), files=files)
    if reason:
        return Check(reason)
    words = [args[i] for i in operands if args[i].text != "-"] or [literal(".")]
    return Check("", tuple(Target(w, recursive=True) for w in words) + tuple(Target(v) for v in files))


_FIND_FLAGS = _words(
    "-daystart -depth -d -follow -ignore_readdir_race -mount -noignore_readdir_race -noleaf -nowarn "
    "-warn -xdev -empty -false -true -executable -readable -writable -nouser -nogroup -print -print0 "
    "-prune -quit -ls -not -a -and -o -or -help --help -version --version ( ) ! ,"
)
_FIND_VALUES = _words(
    "-maxdepth -mindepth -amin -atime -cmin -ctime -fstype -gid -group -ilname -iname -inum -ipath "
    "-iregex -iwholename -links -lname -mmin -mtime -name -path -perm -regex -regextype -size -type "
    "-uid -used -user -wholename -xtype -context -printf"
)
_FIND_FILES = _words("-anewer -cnewer -newer -samefile")
_FIND_DANGER = {
    **dict.fromkeys(_words("-exec -execdir -ok -okdir"), "runs commands"),
    "-delete": "removes files",
    **dict.fromkeys(("-fls", "-fprint", "-fprint0", "-fprintf"), "writes a file"),
}
_NEWER_XY = re.compile(r"-newer[aBcmt][aBcmt]")


def _find(name: str, args: Sequence[Word], xargs: bool) -> Check:
    words = [w.text for w in args]
    danger = next((w for w in words if w in _FIND_DANGER), "")
    if danger:
        return Check(f"find {danger} {_FIND_DANGER[danger]}")
    if xargs or not all(_plain(w, path=False) for w in args):
        return Check("find with expanded arguments cannot be checked")
    index = 0
    while index < len(words) and (words[index] in ("-H", "-L", "-P", "-D") or words[index].startswith("-O")):
        index += 2 if words[index] == "-D" else 1
    start = index
    while index < len(words) and not words[index].startswith(("-", "(", "!", ")", ",")):
        index += 1
    starts = [Target(w, recursive=True, content=False) for w in args[start:index]]
    reads = starts or [Target(literal("."), recursive=True, content=False)]
    while index < len(words):
        word = words[index]
        index += 1
        if word in _FIND_FLAGS:
            continue
        if word in _FIND_VALUES or word in _FIND_FILES or _NEWER_XY.fullmatch(word) or word == "-files0-from":
            if index >= len(words):
                return Check(f"find {word} needs a value")
            if word in _FIND_FILES or (_NEWER_XY.fullmatch(word) and not word.endswith("t")):
                reads.append(Target(args[index], content=False))
            if word == "-files0-from":
                reads.append(Target(args[index]))
            index += 1
            continue
        return Check(f"find {word} is not an expression find knows")
    return Check("", tuple(reads))


def _git(name: str, args: Sequence[Word], xargs: bool) -> Check:
    if xargs or not all(w.literal for w in args):
        return Check("git with expanded arguments cannot be checked")
    reason = _git_rules.read_only([w.text for w in args])
    return Check(reason, (), not reason)


def _date(name: str, args: Sequence[Word], xargs: bool) -> Check:
    found = _reader("date", READERS["date"], args, xargs=xargs)
    if found.reason:
        return found
    parsed = parse(args, READERS["date"].options)
    formats = [args[i].text for i in parsed.operands]
    if len(formats) > 1 or any(not f.startswith("+") for f in formats):
        return Check("date can set the clock")
    meta = tuple(Target(v, content=False) for v in parsed.values("reference"))
    return Check("", found.reads + meta)


def _wrapper_alone(name: str, args: Sequence[Word], xargs: bool) -> Check:
    """``env`` or ``command -v`` with no command to run: they print."""
    parsed = parse(args, WRAPPERS[name])
    if parsed.error:
        return Check(f"{name} {parsed.error}")
    if name == "command" and not parsed.has("v", "V"):
        return Check("command is not checked")
    if name == "env" and any("=" not in args[i].text for i in parsed.operands):
        return Check("env is not checked")
    return Check()


_FILE_TESTS = _words("-a -b -c -d -e -f -g -G -h -k -L -N -O -p -r -s -S -u -w -x")


def _test(name: str, args: Sequence[Word], xargs: bool) -> Check:
    if xargs or not all(_plain(w, path=True) for w in args):
        return Check(f"{name} with expanded arguments cannot be checked")
    texts = [w.text for w in args]
    reads = [Target(args[i + 1], content=False) for i, t in enumerate(texts[:-1]) if t in _FILE_TESTS]
    for i, text in enumerate(texts[1:-1], start=1):
        if text in ("-nt", "-ot", "-ef"):
            reads += [Target(args[i - 1], content=False), Target(args[i + 1], content=False)]
    return Check("", tuple(reads))


def _anything(name: str, args: Sequence[Word], xargs: bool) -> Check:
    return Check()


_RULES: Mapping[str, _Rule] = {
    "[": _test,
    "test": _test,
    "cd": _anything,
    "echo": _anything,
    "printf": _anything,
    "true": _anything,
    "false": _anything,
    "expr": _anything,
    "command": _wrapper_alone,
    "env": _wrapper_alone,
    "date": _date,
    "find": _find,
    "git": _git,
    "rg": _rg,
    "sed": _sed,
}
