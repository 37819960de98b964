"""Front matter: the ``---`` block of ``key: value`` lines at the top of SKILL.md and agent files.

A small YAML-ish reader, enough for the files people write by hand::

    ---
    name: pr-review
    description: "Review a pull request: checks, diff, comments"
    tools: read_file, grep        # or [read_file, grep], or "- item" lines below the key
    notes: >
      an indented line goes on the value above it
    ---
    The body.

Values are strings: a list becomes its items joined with ", "; a ``|`` block keeps its line breaks,
anything else indented below a key is folded into one line. Quotes around a value are removed.
A line that is none of these is a problem, reported with its line number (:class:`ConfigError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import ConfigError

_BLOCK_STYLES = ("|", "|-", "|+", ">", ">-", ">+")


@dataclass(frozen=True, slots=True)
class FrontMatter:
    fields: Mapping[str, str] = field(default_factory=dict)
    body: str = ""


@dataclass(frozen=True, slots=True)
class FileProblem:
    """A file that could not be used, and why (for /skills, /agents and the CLI to show)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        return inner.replace('\\"', '"') if value[0] == '"' else inner.replace("''", "'")
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()
    if len(value) >= 2 and value[0] == "[" and value[-1] == "]":
        return ", ".join(_unquote(item) for item in value[1:-1].split(",") if item.strip())
    return value


def _closing_line(lines: list[str]) -> int:
    if not lines or lines[0].strip() != "---":
        raise ConfigError("no front matter: the file must start with a line '---', then 'name: ...'")
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return index
    raise ConfigError("the front matter is not closed: add a line '---' after its last key")


def parse_front_matter(text: str) -> FrontMatter:
    """The fields and the body of a file that starts with front matter.

    Raises:
        ConfigError: no front matter, an unclosed one, or a line that is not ``key: value``.
    """
    lines = text.lstrip("\ufeff").splitlines()
    end = _closing_line(lines)
    values: dict[str, list[str]] = {}
    joiners: dict[str, str] = {}
    key: str | None = None
    for number, line in enumerate(lines[1:end], start=2):
        stripped = line.strip()
        if not stripped or (stripped.startswith("#") and not (key and joiners[key] == "\n")):
            continue
        if line[0] in " \t" or stripped.startswith("- "):
            if key is None:
                raise ConfigError(f"front matter line {number}: an indented line comes before any key")
            if stripped.startswith("- "):
                joiners[key] = ", "
                stripped = _unquote(stripped[2:])
            values[key].append(stripped)
            continue
        name, colon, value = line.partition(":")
        name = name.strip()
        if not colon or not name or any(c.isspace() for c in name):
            raise ConfigError(f"front matter line {number}: expected 'key: value', found {stripped!r}")
        if name in values:
            raise ConfigError(f"front matter line {number}: {name!r} is given twice")
        key = name
        value = value.strip()
        if value in _BLOCK_STYLES:
            values[key], joiners[key] = [], "\n" if value.startswith("|") else " "
        else:
            values[key], joiners[key] = ([_unquote(value)] if value else []), " "
    fields = {name: joiners[name].join(parts).strip() for name, parts in values.items()}
    body = "\n".join(lines[end + 1 :]).strip()
    return FrontMatter(fields=fields, body=body)


__all__ = ["FileProblem", "FrontMatter", "parse_front_matter"]
