"""A custom command: a Markdown file whose body is a message template (``review.md`` is ``/review``).

The file may start with front matter (``description:``, ``argument-hint:``); the body after it is
the template. Expanding it for ``/review src/app.py --quick``:

- ``$ARGUMENTS`` (and ``$@``) is the rest of the line, ``src/app.py --quick``;
- ``$1``, ``$2``… are its words (quotes group words, as in a shell); a missing one is empty;
- with no placeholder in the body and arguments given, they go after the body on a new line.

As Claude Code's ``.claude/commands/*.md`` and pi's prompt templates do.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Literal

from .front_matter import parse_front_matter

CommandSource = Literal["user", "project"]
DESCRIPTION_MOST = 80
"""A description taken from the body's first line is cut to so many characters."""

_PLACEHOLDER = re.compile(r"\$(ARGUMENTS\b|@|\d+)")


@dataclass(frozen=True, slots=True)
class CustomCommand:
    """A command file read: ``name`` is what follows the ``/``, ``template`` the body."""

    name: str
    description: str
    template: str
    path: str
    source: CommandSource
    usage: str = ""
    """``argument-hint:`` (``[FILE]``), shown after the name in the completion list and /help."""


def parse_command(text: str, *, name: str, path: str, source: CommandSource) -> CustomCommand:
    """The command in a file's ``text``: its front matter (when it starts with ``---``) and body.

    Raises:
        ConfigError: front matter that is not closed, or a line in it that is not ``key: value``.
    """
    text = text.lstrip("\ufeff")
    fields: dict[str, str] = {}
    body = text
    if text.splitlines()[:1] and text.splitlines()[0].strip() == "---":
        matter = parse_front_matter(text)
        fields, body = dict(matter.fields), matter.body
    body = body.strip("\n")
    description = " ".join(fields.get("description", "").split())
    if not description:
        first = next((line.strip() for line in body.splitlines() if line.strip()), "")
        description = first.lstrip("# ").strip()
        if len(description) > DESCRIPTION_MOST:
            description = description[: DESCRIPTION_MOST - 1].rstrip() + "…"
    usage = " ".join(_hint(text, fields.get("argument-hint", "")).split())
    return CustomCommand(name, description, body, path, source, usage)


def _hint(text: str, read: str) -> str:
    """``argument-hint:`` as written when it is in brackets (``[FILE]``, as Claude Code's files
    write it): front matter read it as a list of one, ``FILE``; else as front matter read it."""
    for line in text.lstrip("\ufeff").splitlines()[1:]:
        if line.strip() in ("---", "..."):
            break
        if line.startswith("argument-hint:"):
            raw = line.split(":", 1)[1].strip()
            return raw if raw.startswith("[") else read
    return read


def words(arguments: str) -> list[str]:
    """The words of ``arguments``, quotes grouping them (split at spaces if the quotes are unclosed)."""
    try:
        return shlex.split(arguments)
    except ValueError:
        return arguments.split()


def expand(template: str, arguments: str) -> str:
    """``template`` with its placeholders filled from ``arguments`` (see the module's docstring)."""
    arguments = arguments.strip()
    if not _PLACEHOLDER.search(template):
        return f"{template}\n{arguments}" if arguments else template
    split = words(arguments)

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in ("ARGUMENTS", "@"):
            return arguments
        index = int(key)
        return split[index - 1] if 0 < index <= len(split) else ""

    return _PLACEHOLDER.sub(fill, template)


__all__ = ["CommandSource", "CustomCommand", "expand", "parse_command", "words"]
