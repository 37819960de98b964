"""Model families: which base instructions a model gets, from its id."""

from __future__ import annotations

from typing import Literal

Family = Literal["claude", "gpt", "gemini", "kimi", "other"]

_MARKERS: tuple[tuple[Family, tuple[str, ...]], ...] = (
    ("claude", ("claude", "anthropic/")),
    ("gemini", ("gemini", "gemma")),
    ("kimi", ("kimi", "moonshot")),
    ("gpt", ("gpt", "codex", "openai/", "chatgpt")),
)
_O_SERIES = ("o1", "o3", "o4")


def model_family(model_id: str) -> Family:
    """The family of a model id such as ``claude-sonnet-4-5``, ``openai/gpt-4o`` or ``o3-mini``."""
    lowered = model_id.lower()
    for family, markers in _MARKERS:
        if any(marker in lowered for marker in markers):
            return family
    name = lowered.rsplit("/", 1)[-1]
    if any(name == o or name.startswith(f"{o}-") for o in _O_SERIES):
        return "gpt"
    return "other"


__all__ = ["Family", "model_family"]
