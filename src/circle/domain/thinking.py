"""Thinking levels and how each protocol spells them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .messages import Message

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
UNKNOWN_OUTPUT_ROOM = 8_192
"""The answer's room when neither the request nor the catalog says how much the model may write."""


def parse_level(text: str) -> ThinkingLevel | None:
    """The level named by ``text`` ("off" and "none" mean no thinking, pi's "xhigh" is "max");
    ValueError when unknown."""
    lowered = text.strip().lower()
    if lowered in ("off", "none", ""):
        return None
    if lowered == "xhigh":  # pi's name for the level past high
        return "max"
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


def anthropic_output(
    level: ThinkingLevel | None, *, room: int | None, limit: int | None
) -> tuple[int, int | None]:
    """Anthropic's ``max_tokens`` and thinking ``budget_tokens`` (None: no thinking) for a request.

    Anthropic counts thinking inside ``max_tokens``, which is the room asked, else the model's
    output limit (never past it), and each level's budget fits below it. When neither is known
    the answer gets :data:`UNKNOWN_OUTPUT_ROOM` and the level's budget comes on top of it.

    Args:
        level: the thinking level, or None for none.
        room: the most the caller lets the answer take, thinking included (None: what the model
            can write).
        limit: the model's output limit (the catalog's, or settings'), None when unknown.
    """
    total = room or limit or UNKNOWN_OUTPUT_ROOM + (_BUDGET[level] if level else 0)
    if limit:
        total = min(total, limit)
    if level is None:
        return total, None
    budget = thinking_budget(level, max_output_tokens=total)
    if budget >= total:  # a room too small for the least budget: the budget comes on top
        total += budget
    return total, budget


def level_in(messages: Iterable[Message]) -> tuple[bool, ThinkingLevel | None]:
    """The thinking level a conversation goes on at: (True, the level its last answer was asked at,
    None for off) once any answer records one; (False, None) when none does (the chosen one stays)."""
    answers = [message for message in messages if message.role == "assistant"]
    if not any(answer.thinking for answer in answers):
        return False, None
    return True, answers[-1].thinking


__all__ = [
    "THINKING_LEVELS",
    "UNKNOWN_OUTPUT_ROOM",
    "ThinkingLevel",
    "anthropic_output",
    "level_in",
    "parse_level",
    "reasoning_effort",
    "thinking_budget",
]
