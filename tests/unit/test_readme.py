"""The README's Tools section names every tool the model is offered."""

from __future__ import annotations

from pathlib import Path

from circle.application.tools import builtin_tools

README = Path(__file__).parents[2] / "README.md"


def test_the_tools_section_lists_every_tool() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Tools\n") :].split("\n### ", 1)[0]
    missing = [name for name in builtin_tools() if f"`{name}`" not in section]
    assert missing == []


def test_the_catalog_refresh_is_documented() -> None:
    text = README.read_text(encoding="utf-8")
    assert "models.dev" in text and "CIRCLE_CATALOG_REFRESH" in text
