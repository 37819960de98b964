"""What a session's model answers cost, and the budget check made before each model request.

Answers the conversation does not store (a subagent's, reported as a tool output's ``usage``) are
counted apart: :meth:`CostMeter.count_unstored` keeps their tokens in memory for the session (a
resumed session starts again from its stored answers), priced at this session's model's prices.
"""

from __future__ import annotations

from collections.abc import Iterable

from circle.domain.catalog import ModelInfo, Prices
from circle.domain.errors import UsageLimitError
from circle.domain.messages import Message, Usage
from circle.domain.pricing import (
    Budget,
    BudgetStatus,
    CostParts,
    cost,
    cost_parts,
    format_usd,
    session_cost_parts,
)

from .events import BudgetWarned
from .ports.model_catalog import ModelCatalog


class CostMeter:
    """Prices a session's answers, each at the prices of the model that wrote it, and keeps its budget.

    An answer names the model the endpoint reported; when the catalog has no price for that name
    (a gateway's own name, a local alias), it counts at the prices of the model this session asks.

    Args:
        model: the model this session asks.
        info: what the catalog says of ``model``.
        catalog: prices the models answers name; without one every answer counts at ``info``'s prices.
        budget_usd: the session budget; None for no limit.
    """

    def __init__(
        self,
        model: str,
        info: ModelInfo,
        *,
        catalog: ModelCatalog | None = None,
        budget_usd: float | None = None,
    ) -> None:
        self.model = model
        self.info = info
        self.catalog = catalog
        self.budget = Budget(budget_usd) if budget_usd is not None else None
        self._prices: dict[str, Prices | None] = {model: info.prices}
        self._warned = False
        self.unstored = Usage()
        """The tokens of this session's answers not stored in its conversation (subagents')."""

    def prices_for(self, model: str | None) -> Prices | None:
        """The prices of the answers ``model`` wrote (this session's model's when unpriced)."""
        if model is None:
            return self.info.prices
        if model not in self._prices:
            found = self.catalog.lookup(model).prices if self.catalog is not None else None
            self._prices[model] = found if found is not None else self.info.prices
        return self._prices[model]

    def session_cost(self, messages: Iterable[Message]) -> float | None:
        """What every answer in ``messages`` cost, or None when one's price is unknown (nothing
        spent on an unpriced model included: its cost is unknown as every other line says)."""
        parts = self._stored_parts(messages)
        return None if parts is None else parts.total

    def _stored_parts(self, messages: Iterable[Message]) -> CostParts | None:
        spent = session_cost_parts(messages, self.prices_for)
        return None if (spent is None or not spent.total) and self.info.prices is None else spent

    def count_unstored(self, usage: Usage) -> None:
        """Add the tokens of answers the conversation does not store (a subagent's) to the session's."""
        self.unstored = self.unstored + usage

    def usage_cost(self, usage: Usage) -> float | None:
        """What ``usage`` cost at this session's model's prices: 0 for no tokens, None when unpriced."""
        return 0.0 if usage.total == 0 else cost(usage, self.info.prices)

    def total_cost(self, messages: Iterable[Message], unstored: Usage) -> float | None:
        """The answers in ``messages`` plus the ``unstored`` tokens, or None when a price is unknown."""
        parts = self.total_cost_parts(messages, unstored)
        return None if parts is None else parts.total

    def total_cost_parts(self, messages: Iterable[Message], unstored: Usage) -> CostParts | None:
        """:meth:`total_cost` by kind of token (input, output, cache reads and writes)."""
        stored = self._stored_parts(messages)
        apart = CostParts() if unstored.total == 0 else cost_parts(unstored, self.info.prices)
        return None if stored is None or apart is None else stored + apart

    def check(self, messages: Iterable[Message]) -> BudgetWarned | None:
        """Before a model request: a warning the first time it is due, else None.

        Raises:
            UsageLimitError: the budget is spent.
        """
        if self.budget is None:
            return None
        limit = self.budget.limit_usd
        spent = self.total_cost(messages, self.unstored) if self.info.prices is not None else None
        if spent is None:
            return self._warn_once(
                None,
                f"{self.model} has no known price, so the budget of {format_usd(limit)} cannot be "
                'enforced: give its prices in settings.json ("models")',
            )
        status = self.budget.check(spent)
        if status is BudgetStatus.STOP:
            raise UsageLimitError(f"the session budget of {format_usd(limit)} is spent ({format_usd(spent)})")
        if status is BudgetStatus.WARN:
            return self._warn_once(
                spent, f"{format_usd(spent)} of the session budget of {format_usd(limit)} is spent"
            )
        return None

    def _warn_once(self, spent: float | None, message: str) -> BudgetWarned | None:
        if self._warned:
            return None
        self._warned = True
        return BudgetWarned(spent=spent, limit=self.budget.limit_usd if self.budget else 0.0, message=message)


__all__ = ["CostMeter"]
