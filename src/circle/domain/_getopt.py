"""A command's options read the way GNU ``getopt_long`` reads them.

:func:`parse` takes a command's decoded words (:class:`._bash.Word`) and an :class:`Options`
table and says which options were given, with their values, and which words are operands:

- long options: an exact name wins, else a unique prefix of the program's full list of long
  options (``--sp`` is ``--split-string``); an unknown or ambiguous name is an error (the program
  would stop or do something unknown). ``--name=value`` and ``--name value`` for an option with a
  required argument, an optional argument only with ``=``.
- short options: clusters (``-abc``), a value glued on or in the next word (``-ofile``, ``-o file``),
  an optional value only glued on; digits for programs that read ``-NUM`` (``head -5``).
- operands: ``-`` is one; ``--`` ends the options; a permuting program (most GNU tools) reads
  options after operands too, a wrapper (``env``, ``nice``) stops at its first operand.

Only words whose option part is plain text are read as options: an option built from an expansion
is an error, since what it spells is known only when it runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ._bash import Part, Word

__all__ = ["Found", "Options", "Parsed", "literal", "options", "parse"]

Arity = Literal["", "=", "?"]
"""No value, a required value, an optional value (only as ``--name=value`` or ``-xvalue``)."""


@dataclass(frozen=True, slots=True)
class Options:
    """A program's options.

    Attributes:
        short: each short option letter and its arity.
        long: each long option name (without ``--``) and its arity.
        alias: the long name a short letter is the same option as (``o`` -> ``output``).
        abbreviate: unique prefixes of long names are accepted (GNU getopt_long, git).
        permute: options may follow operands (GNU tools); otherwise the first operand ends them.
        digits: ``-NUM`` is an option (``head -5``, ``grep -3``, ``nice -10``).
    """

    short: Mapping[str, Arity]
    long: Mapping[str, Arity]
    alias: Mapping[str, str]
    abbreviate: bool = True
    permute: bool = True
    digits: bool = False

    def resolve(self, name: str) -> tuple[str, str]:
        """The long option ``name`` spells, and an error (empty when it is known)."""
        if name in self.long:
            return name, ""
        if not name or not self.abbreviate:
            return "", f"--{name} is not an option it knows"
        found = [known for known in self.long if known.startswith(name)]
        if len(found) == 1:
            return found[0], ""
        if found:
            more = ", ..." if len(found) > 3 else ""
            return "", f"--{name} is ambiguous ({', '.join('--' + f for f in sorted(found)[:3])}{more})"
        return "", f"--{name} is not an option it knows"


def options(
    short: str, long: str = "", *, abbreviate: bool = True, permute: bool = True, digits: bool = False
) -> Options:
    """Build an :class:`Options` table from getopt-style strings.

    Args:
        short: the getopt string: ``ab:c::`` (``b`` takes a value, ``c`` an optional one).
        long: space-separated long names, each ending in ``=`` (required value) or ``?``
            (optional value), and prefixed ``x|`` when the short option ``x`` is the same option
            (``o|output=``; several letters may share one: ``Er|regexp-extended``).
        abbreviate: see :class:`Options`.
        permute: see :class:`Options`.
        digits: see :class:`Options`.
    """
    shorts: dict[str, Arity] = {}
    index = 0
    while index < len(short):
        char = short[index]
        colons = len(short[index + 1 :]) - len(short[index + 1 :].lstrip(":"))
        shorts[char] = "" if colons == 0 else "=" if colons == 1 else "?"
        index += 1 + min(colons, 2)
    longs: dict[str, Arity] = {}
    alias: dict[str, str] = {}
    for item in long.split():
        letters, _, spec = item.rpartition("|")
        letters = letters.replace("|", "")
        arity: Arity = "=" if spec.endswith("=") else "?" if spec.endswith("?") else ""
        name = spec.rstrip("=?")
        longs[name] = arity
        for letter in letters:
            alias[letter] = name
            shorts.setdefault(letter, arity if arity != "?" else "")
    return Options(shorts, longs, alias, abbreviate, permute, digits)


@dataclass(frozen=True, slots=True)
class Parsed:
    """What :func:`parse` read.

    Attributes:
        found: each option given, in order (:class:`Found`): its key is the long name, or the
            short letter when it has none (``#`` for ``-NUM``).
        operands: the indexes of the operand words.
        end: the index of the first word after the options (a wrapper's command starts there).
        error: why the options cannot be read (empty when they can); the first one found.
    """

    found: tuple[Found, ...]
    operands: tuple[int, ...]
    end: int
    error: str = ""

    def has(self, *keys: str) -> bool:
        """True when any option of ``keys`` was given."""
        return any(found.key in keys for found in self.found)

    def values(self, *keys: str) -> list[Word]:
        """The values given to the options of ``keys``."""
        return [f.value for f in self.found if f.key in keys and f.value is not None]


@dataclass(frozen=True, slots=True)
class Found:
    """One option given: its key, its value, and how it was spelled (``--o``, ``-o``)."""

    key: str
    value: Word | None
    spelled: str

    @property
    def named(self) -> str:
        """How it was spelled, with the full name when that differs: ``--o (--output)``."""
        full = f"--{self.key}"
        return self.spelled if self.spelled in (full, self.spelled[:2]) else f"{self.spelled} ({full})"


def literal(text: str) -> Word:
    """A word of plain text."""
    return Word((Part("text", text),))


def _is_option(word: Word) -> bool:
    first = word.parts[0] if word.parts else None
    return first is not None and first.kind == "text" and first.value.startswith("-") and word.text != "-"


def parse(words: Sequence[Word], table: Options) -> Parsed:
    """Read ``words`` (a command's arguments, without its name) as ``table`` says."""
    reader = _Reader(words, table)
    reader.run()
    return Parsed(tuple(reader.found), tuple(reader.operands), reader.end, reader.error)


class _Reader:
    def __init__(self, words: Sequence[Word], table: Options) -> None:
        self.words = words
        self.table = table
        self.found: list[Found] = []
        self.operands: list[int] = []
        self.error = ""
        self.index = 0
        self.end = len(words)

    def fail(self, why: str) -> None:
        self.error = self.error or why

    def run(self) -> None:
        words = self.words
        while self.index < len(words):
            word = words[self.index]
            if not _is_option(word):
                if not self.table.permute:
                    break
                self.operands.append(self.index)
                self.index += 1
                continue
            self.index += 1
            if word.text == "--":
                break
            if not word.literal:
                self.fail(f"the option {word.text} is built from an expansion")
            elif word.text.startswith("--"):
                self.long(word.text[2:])
            else:
                self.short(word.text)
        self.end = self.index
        self.operands.extend(range(self.index, len(words)))

    def next_value(self, spelled: str) -> Word | None:
        if self.index < len(self.words):
            self.index += 1
            return self.words[self.index - 1]
        self.fail(f"{spelled} needs a value")
        return None

    def long(self, text: str) -> None:
        name, equals, value = text.partition("=")
        key, error = self.table.resolve(name)
        if error:
            self.fail(error)
            return
        arity = self.table.long[key]
        if equals and not arity:
            self.fail(f"--{key} takes no value")
        found = literal(value) if equals else None
        if arity == "=" and not equals:
            found = self.next_value(f"--{key}")
        self.found.append(Found(key, found, f"--{name}"))

    def short(self, text: str) -> None:
        position = 1
        while position < len(text):
            char = text[position]
            position += 1
            if char.isdigit() and self.table.digits:
                self.found.append(Found("#", None, "-" + char))
                continue
            arity = self.table.short.get(char)
            key = self.table.alias.get(char, char)
            if arity is None:
                self.fail(f"-{char} is not an option it knows")
                continue
            if not arity:
                self.found.append(Found(key, None, "-" + char))
                continue
            rest = text[position:]
            value = literal(rest) if rest else self.next_value(f"-{char}") if arity == "=" else None
            self.found.append(Found(key, value, "-" + char))
            return
