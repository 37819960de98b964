"""A Google-style docstring split into what a tool does and what each argument means."""

from __future__ import annotations

import re

_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Return|Raises|Yields|Examples?|Notes?):\s*$")
_ARGUMENT = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_ARGUMENT_SECTIONS = ("Args", "Arguments", "Parameters")


def describe(doc: str) -> tuple[str, dict[str, str]]:
    """The docstring without its sections, and the ``Args:`` section by argument name.

    Example: ``"Add.\\n\\nArgs:\\n    a: The first.\\n"`` gives ``("Add.", {"a": "The first."})``.
    """
    text: list[str] = []
    arguments: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    indent: int | None = None
    for line in doc.splitlines():
        heading = None if line[:1].isspace() else _SECTION.match(line.strip())
        if heading:
            section, current, indent = heading.group(1), None, None
        elif section is None:
            text.append(line)
        elif section in _ARGUMENT_SECTIONS and line.strip():
            depth = len(line) - len(line.lstrip())
            indent = depth if indent is None else indent
            found = _ARGUMENT.match(line.strip()) if depth <= indent else None
            if found:
                current = found.group(1).lstrip("*")
                arguments[current] = found.group(2).strip()
            elif current is not None:
                arguments[current] = f"{arguments[current]} {line.strip()}".strip()
    return "\n".join(text).strip(), arguments


__all__ = ["describe"]
