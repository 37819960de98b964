"""The compaction plan: which messages a summary replaces, which stay, and what the result costs.

A conversation that outgrows its :class:`~circle.domain.budget.RequestBudget` becomes
``[summary, pinned..., kept...]``:

- **kept** is the most recent tail (about ``budget.keep`` of the window, at least the last complete
  round when the budget allows), cut only where no tool call is separated from its result;
- **pinned** are older messages put back verbatim: the newest request a person wrote, and the
  latest call of each pinned tool (the todo list, the plan) with its results, whole rounds only;
- **summarize** is everything else before the cut, which the model condenses into one message.

The plan never splits a tool call from its result, never exceeds the budget when that is possible
(``fits`` says whether it could), always keeps the newest request, and covers every message exactly
once. It is pure: the application asks the model for the summary and stores the result.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from .budget import MESSAGE_OVERHEAD, RequestBudget, message_tokens
from .checkpoints import Checkpoint
from .messages import Message, TextPart

SUMMARY_MARKER = "[Summary of the earlier conversation]"
PINNED_TOOLS = frozenset({"write_todos", "plan_enter", "plan_exit"})
"""Tools whose latest call (the todo list, the plan) survives every compaction verbatim."""


def summary_message(summary: str) -> Message:
    """The user message that stands for the summarized part of a conversation."""
    return Message(role="user", parts=(TextPart(text=f"{SUMMARY_MARKER}\n\n{summary.strip()}"),))


def is_summary(message: Message) -> bool:
    return message.role == "user" and message.text.startswith(SUMMARY_MARKER)


def without_compaction_copies(checkpoints: Sequence[Checkpoint]) -> tuple[list[Message], int]:
    """A session's stored messages, each once: without the summaries, and without the copies each
    compaction stored after its summary (the pinned and kept messages, committed with it in one
    transaction, so at the summary's own time); and how many compactions there were."""
    kept: list[Message] = []
    summaries = 0
    chain_time: float | None = None
    for checkpoint in sorted(checkpoints, key=lambda cp: cp.seq):
        if is_summary(checkpoint.message):
            summaries += 1
            chain_time = checkpoint.created_at
            continue
        if chain_time is not None and checkpoint.created_at == chain_time:
            continue
        chain_time = None
        kept.append(checkpoint.message)
    return kept, summaries


def newest_request(messages: Sequence[Message]) -> int | None:
    """The index of the newest message a person wrote (not a tool result, not a summary)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user" and not message.tool_results and not is_summary(message):
            return index
    return None


def pinned_rounds(messages: Sequence[Message], tools: Collection[str] = PINNED_TOOLS) -> list[int]:
    """The index of the latest assistant message calling each of ``tools`` (their rounds are pinned)."""
    latest: dict[str, int] = {}
    for index, message in enumerate(messages):
        for call in message.tool_calls:
            if call.name in tools:
                latest[call.name] = index
    return sorted(set(latest.values()))


def _call_sites(messages: Sequence[Message]) -> tuple[dict[int, set[int]], dict[int, list[int]]]:
    """For each message of results, the messages whose calls they answer; for each message of
    calls, the messages of their results. A result answers the latest call of its id before it:
    some models number their calls anew in each answer (``call_0`` again), so an id alone does not
    name one call in a whole conversation."""
    latest: dict[str, int] = {}
    callers: dict[int, set[int]] = {}
    results: dict[int, list[int]] = {}
    for index, message in enumerate(messages):
        for result in message.tool_results:
            if (caller := latest.get(result.tool_call_id)) is not None:
                callers.setdefault(index, set()).add(caller)
                results.setdefault(caller, []).append(index)
        for call in message.tool_calls:
            latest[call.id] = index
    return callers, results


def valid_cuts(messages: Sequence[Message]) -> list[int]:
    """Every ``c`` in ``1..len(messages)`` such that ``messages[c:]`` starts a valid conversation:
    no tool call before ``c`` has a result at or after it, and ``messages[c]`` is not a tool result."""
    n = len(messages)
    blocked = [0] * (n + 2)
    _callers, results = _call_sites(messages)
    for start, where in results.items():
        last = max(where)
        if last > start:  # cuts start+1 .. last would separate the call from a result
            blocked[start + 1] += 1
            blocked[last + 1] -= 1
    cuts: list[int] = []
    running = 0
    for cut in range(1, n + 1):
        running += blocked[cut]
        if running == 0 and (cut == n or messages[cut].role != "tool"):
            cuts.append(cut)
    return cuts


def round_closure(messages: Sequence[Message], indices: Iterable[int]) -> set[int]:
    """``indices`` with whole rounds: a call's results, a result's call and that call's other results."""
    callers, results = _call_sites(messages)
    found: set[int] = set()
    todo = [i for i in indices if 0 <= i < len(messages)]
    while todo:
        index = todo.pop()
        if index in found:
            continue
        found.add(index)
        todo.extend(results.get(index, ()))
        todo.extend(callers.get(index, ()))
    return found


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """Which messages a compaction summarizes, pins and keeps (indices into the conversation)."""

    summarize: tuple[int, ...]
    pinned: tuple[int, ...]
    keep_from: int
    total: int
    tokens_before: int
    estimated_tokens_after: int
    fits: bool
    """False when even the smallest result (summary, pinned request) exceeds the budget."""

    @property
    def kept(self) -> range:
        return range(self.keep_from, self.total)

    def apply(self, messages: Sequence[Message], summary: Message) -> list[Message]:
        """The conversation after the compaction: ``[summary, pinned..., kept...]``."""
        return [summary, *(messages[i] for i in self.pinned), *messages[self.keep_from :]]


def plan_compaction(
    messages: Sequence[Message],
    budget: RequestBudget,
    *,
    pinned_indices: Iterable[int] = (),
    fixed_tokens: int = 0,
    scale: float = 1.0,
) -> CompactionPlan:
    """Plan the compaction of ``messages`` so that a request fits ``budget``.

    Args:
        messages: the conversation, oldest first.
        budget: the request budget (its limit, the share to keep, the summary's room).
        pinned_indices: messages to put back verbatim when they are summarized (whole rounds are
            pinned); they are dropped, oldest first, only when the budget cannot hold them.
        fixed_tokens: what every request costs besides the messages (system prompt, tools).
        scale: how many tokens the endpoint counts for each estimated one (what it reported for
            the conversation over its estimate), so the share kept is measured in real tokens.

    Returns:
        The plan; ``summarize`` is empty when there is nothing to summarize.
    """
    n = len(messages)
    tokens = [math.ceil(message_tokens(m) * scale) for m in messages]
    suffix = [0] * (n + 1)
    for index in range(n - 1, -1, -1):
        suffix[index] = suffix[index + 1] + tokens[index]
    cuts = valid_cuts(messages)
    base = math.ceil(fixed_tokens * scale) + budget.summary_tokens + MESSAGE_OVERHEAD
    newest = newest_request(messages)
    required = round_closure(messages, [] if newest is None else [newest])
    groups = _pinned_groups(messages, pinned_indices, required)
    start = _first_cut(cuts, suffix, budget.keep_tokens, n)
    for dropped in range(len(groups) + 1):  # the oldest pinned rounds go first when the room is short
        pins = required.union(*groups[dropped:])
        for cut in (c for c in cuts if c >= start):
            pinned = tuple(sorted(i for i in pins if i < cut))
            after = base + sum(tokens[i] for i in pinned) + suffix[cut]
            if after <= budget.limit:
                return _plan(n, cut, pinned, suffix[0], after, fits=True)
    pinned = tuple(sorted(i for i in required if i < n))
    after = base + sum(tokens[i] for i in pinned)
    return _plan(n, n, pinned, suffix[0], after, fits=after <= budget.limit)


def _pinned_groups(messages: Sequence[Message], indices: Iterable[int], required: set[int]) -> list[set[int]]:
    """Each pinned message's whole round (without the required ones), oldest first, no repeats."""
    groups: list[set[int]] = []
    for index in sorted(set(indices)):
        group = round_closure(messages, [index]) - required
        if group and not any(group & g for g in groups):
            groups.append(group)
    return groups


def _first_cut(cuts: Sequence[int], suffix: Sequence[int], keep_tokens: int, n: int) -> int:
    """The earliest cut whose tail is within ``keep_tokens``; the last round when none but the end is."""
    for cut in cuts:
        if suffix[cut] <= keep_tokens:
            if cut == n and len(cuts) > 1:
                return cuts[-2]
            return cut
    return n


def _plan(
    n: int, cut: int, pinned: tuple[int, ...], before: int, after: int, *, fits: bool
) -> CompactionPlan:
    chosen = set(pinned)
    summarize = tuple(i for i in range(cut) if i not in chosen)
    return CompactionPlan(
        summarize=summarize,
        pinned=pinned,
        keep_from=cut,
        total=n,
        tokens_before=before,
        estimated_tokens_after=after,
        fits=fits,
    )


__all__ = [
    "PINNED_TOOLS",
    "SUMMARY_MARKER",
    "CompactionPlan",
    "is_summary",
    "newest_request",
    "pinned_rounds",
    "plan_compaction",
    "round_closure",
    "summary_message",
    "valid_cuts",
]
