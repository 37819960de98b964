"""Thinking levels and how each protocol spells them."""

from __future__ import annotations

from typing import Literal

ThinkingLevel = Literal["minimal", "low", "medium", "high", "max"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("minimal", "low", "medium", "high", "max")

_EFFORT: dict[ThinkingLevel, str] = {
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "max": "high",
}
_BUDGET: dict[ThinkingLevel, int] = {
    "minimal": 1024,
    "low": 4096,
    "medium": 10_000,
    "high": 24_000,
    "max": 48_000,
}
MIN_ANTHROPIC_BUDGET = 1024


def parse_level(text: str) -> ThinkingLevel | None:
    """The level named by ``text`` ("off" and "none" mean no thinking); ValueError when unknown."""
    lowered = text.strip().lower()
    if lowered in ("off", "none", ""):
        return None
    for level in THINKING_LEVELS:
        if level == lowered:
            return level
    raise ValueError(f"unknown thinking level {text!r}: use off, {', '.join(THINKING_LEVELS)}")


def reasoning_effort(level: ThinkingLevel) -> str:
    """OpenAI's ``reasoning_effort`` / ``reasoning.effort`` for a level."""
    return _EFFORT[level]


def thinking_budget(level: ThinkingLevel, *, max_output_tokens: int) -> int:
    """Anthropic's ``budget_tokens`` for a level: below the output limit, at least 1024."""
    budget = _BUDGET[level]
    ceiling = max(MIN_ANTHROPIC_BUDGET, max_output_tokens - 1024)
    return max(MIN_ANTHROPIC_BUDGET, min(budget, ceiling))


__all__ = ["THINKING_LEVELS", "ThinkingLevel", "parse_level", "reasoning_effort", "thinking_budget"]
