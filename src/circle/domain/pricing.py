"""What tokens cost in US dollars, and whether a session may spend more.

A cost is ``None`` when a price is unknown: an unknown is never shown as free. A budget warns
once at 80% of its limit and stops the session at 100%.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from .catalog import Prices
from .messages import Message, Usage

PER_TOKENS = 1_000_000
WARN_FRACTION = 0.8


@dataclass(frozen=True, slots=True)
class CostParts:
    """What tokens cost in US dollars, by kind, and their ``total``; parts add up with ``+``."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0

    def __add__(self, other: CostParts) -> CostParts:
        return CostParts(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
            total=self.total + other.total,
        )


def cost_parts(usage: Usage, prices: Prices | None) -> CostParts | None:
    """What ``usage`` cost at ``prices`` (US dollars per million tokens), by kind; None when unpriced."""
    if prices is None:
        return None
    parts = (
        usage.input * prices.input,
        usage.output * prices.output,
        usage.cache_read * prices.cache_read,
        usage.cache_write * prices.cache_write,
    )
    each = [part / PER_TOKENS for part in parts]
    return CostParts(each[0], each[1], each[2], each[3], total=sum(parts) / PER_TOKENS)


def cost(usage: Usage, prices: Prices | None) -> float | None:
    """What ``usage`` cost at ``prices`` (US dollars per million tokens), or None when unpriced."""
    parts = cost_parts(usage, prices)
    return None if parts is None else parts.total


def session_cost_parts(
    messages: Iterable[Message], prices_for: Callable[[str | None], Prices | None]
) -> CostParts | None:
    """The cost of every model answer in ``messages``, each at the prices of the model that wrote it.

    Args:
        messages: a conversation; only assistant messages with a usage count.
        prices_for: the prices of a model id (``None`` for an answer that names no model).

    Returns:
        The sum by kind, or None when an answer's model has no known price.
    """
    total = CostParts()
    for message in messages:
        if message.role != "assistant" or message.usage is None:
            continue
        spent = cost_parts(message.usage, prices_for(message.model))
        if spent is None:
            return None
        total += spent
    return total


def session_cost(
    messages: Iterable[Message], prices_for: Callable[[str | None], Prices | None]
) -> float | None:
    """The total of :func:`session_cost_parts`: every answer at its own model's prices, or None."""
    parts = session_cost_parts(messages, prices_for)
    return None if parts is None else parts.total


class BudgetStatus(StrEnum):
    OK = "ok"
    WARN = "warn"
    STOP = "stop"


@dataclass(frozen=True, slots=True)
class Budget:
    """A spending limit in US dollars."""

    limit_usd: float
    warn_fraction: float = WARN_FRACTION

    def check(self, spent_usd: float) -> BudgetStatus:
        """STOP at or over the limit, WARN from ``warn_fraction`` of it, else OK."""
        if spent_usd >= self.limit_usd:
            return BudgetStatus.STOP
        if spent_usd >= self.limit_usd * self.warn_fraction:
            return BudgetStatus.WARN
        return BudgetStatus.OK


def check_budget(spent_usd: float, limit_usd: float) -> BudgetStatus:
    """:meth:`Budget.check` with the usual 80% warning."""
    return Budget(limit_usd).check(spent_usd)


def format_usd(amount: float) -> str:
    """Dollars for people: ``$12.50``, and under a dollar two significant digits (``$0.012``,
    ``$0.00045``, ``$0.0000001``), always at least two decimals."""
    size = abs(amount)
    if size >= 1 or size == 0:
        return f"${amount:,.2f}"
    digits = min(12, max(2, 1 - math.floor(math.log10(size))))
    whole, _, fraction = f"{amount:.{digits}f}".partition(".")
    return f"${whole}.{fraction.rstrip('0').ljust(2, '0')}"


__all__ = [
    "PER_TOKENS",
    "WARN_FRACTION",
    "Budget",
    "BudgetStatus",
    "CostParts",
    "check_budget",
    "cost",
    "cost_parts",
    "format_usd",
    "session_cost",
    "session_cost_parts",
]
