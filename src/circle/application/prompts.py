"""Prompts are data: Markdown files shipped inside the package under circle/prompts/."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_prompt(relative: str) -> str:
    """The text of ``prompts/<relative>``, read once.

    Raises:
        FileNotFoundError: no such prompt ships with this version.
    """
    node = resources.files("circle").joinpath("prompts", *relative.split("/"))
    return node.read_text(encoding="utf-8").strip()
