"""The error tree drawn in docs/library.md and in circle.domain.errors is the classes' own: each
error under its real parent, with its real code, and none left out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import circle
from circle.domain import errors

ROOT = Path(__file__).resolve().parents[2]
_ROW = re.compile(r"^(?P<indent>[\s│├└─]*)(?P<name>[A-Z]\w*Error)\s+(?P<code>[a-z][a-z-]*)")


def _tree(text: str) -> dict[str, tuple[str | None, str]]:
    """Each drawn error's (parent, code), read from the indentation of the drawing."""
    start = text.index("CircleError ")
    block = text[text.rindex("\n", 0, start) + 1 :]
    drawn: dict[str, tuple[str | None, str]] = {}
    parents: list[str] = []
    base = len(block) - len(block.lstrip(" "))
    for line in block.splitlines():
        row = _ROW.match(line)
        if row is None:
            if drawn:
                break
            continue
        depth = (len(row["indent"]) - base) // 4
        del parents[depth:]
        code = "circle-error" if row["name"] == "CircleError" else row["code"]
        drawn[row["name"]] = (parents[-1] if parents else None, code)
        parents.append(row["name"])
    return drawn


def _real() -> dict[str, tuple[str | None, str]]:
    classes = [getattr(errors, name) for name in dir(errors)]
    found = [c for c in classes if isinstance(c, type) and issubclass(c, circle.CircleError)]
    return {c.__name__: (None if c is circle.CircleError else c.__bases__[0].__name__, c.code) for c in found}


@pytest.mark.parametrize(
    "text",
    [(ROOT / "docs" / "library.md").read_text(), errors.__doc__ or ""],
    ids=["docs/library.md", "circle.domain.errors"],
)
def test_the_drawn_error_tree_is_the_real_one(text: str) -> None:
    assert _tree(text) == _real()
