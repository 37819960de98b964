"""How many tokens a request takes, and how much of the context window it may take.

Estimates count four characters a token plus a small overhead per message; an image or a document
is a fixed cost (its bytes never reach the model as text). Estimates are deliberately simple: where
the endpoint reported what an answer's request took, :func:`reported_tokens` starts from that
figure and estimates only the messages that came after it.

A :class:`RequestBudget` says when a conversation must be compacted: past ``threshold`` of the
context window, or sooner when the room kept for the answer (``reserve_output``) would not fit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .messages import (
    DocumentPart,
    ImagePart,
    Message,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from .model import ToolSpec

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4
"""Tokens of a message's envelope (role, separators)."""
IMAGE_TOKENS = 1_600
DOCUMENT_TOKENS = 3_000
DEFAULT_THRESHOLD = 0.85
DEFAULT_KEEP = 0.1
DEFAULT_RESERVE_OUTPUT = 16_000


def text_tokens(text: str) -> int:
    """Tokens of a text: a quarter of its characters, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def part_tokens(part: Part) -> int:
    match part:
        case TextPart(text=text):
            return text_tokens(text)
        case ThinkingPart(text=text, signature=signature, redacted=redacted):
            return text_tokens(text) + text_tokens(signature or "") + text_tokens(redacted or "")
        case ImagePart():
            return IMAGE_TOKENS
        case DocumentPart():
            return DOCUMENT_TOKENS
        case ToolCallPart(name=name, arguments=arguments):
            return text_tokens(name) + text_tokens(arguments) + MESSAGE_OVERHEAD
        case ToolResultPart(content=content):
            return MESSAGE_OVERHEAD + sum(part_tokens(c) for c in content)
    raise AssertionError(f"unknown part {part!r}")  # pragma: no cover


def message_tokens(message: Message) -> int:
    """Tokens of one message, its envelope included."""
    return MESSAGE_OVERHEAD + sum(part_tokens(p) for p in message.parts)


def messages_tokens(messages: Iterable[Message]) -> int:
    return sum(message_tokens(m) for m in messages)


def tools_tokens(tools: Iterable[ToolSpec]) -> int:
    return sum(
        text_tokens(t.name) + text_tokens(t.description) + text_tokens(json.dumps(t.parameters))
        for t in tools
    )


def request_tokens(system: str, messages: Iterable[Message], tools: Iterable[ToolSpec] = ()) -> int:
    """Tokens of a whole request: the system prompt, the messages and the tool definitions."""
    return text_tokens(system) + messages_tokens(messages) + tools_tokens(tools)


def reported_tokens(messages: Sequence[Message], *, since: int = 0) -> int | None:
    """What the conversation takes as the endpoint counted it: the newest answer's input and
    output tokens (from index ``since`` on), plus an estimate of the messages after it.

    A tokenizer counts Chinese prose, base64 or minified code at under two characters a token,
    so this is the figure that tells how full the window is; None when no answer reported usage.
    """
    for index in range(len(messages) - 1, max(since, 0) - 1, -1):
        message = messages[index]
        if message.role == "assistant" and message.usage is not None and message.usage.total > 0:
            return message.usage.total + messages_tokens(messages[index + 1 :])
    return None


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """``compaction`` in settings.json: when to compact and how much to keep."""

    threshold: float = DEFAULT_THRESHOLD
    keep: float = DEFAULT_KEEP
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class RequestBudget:
    """How much of a model's context window a request may use.

    Args:
        context_window: the model's window, in tokens.
        reserve_output: tokens kept free for the answer.
        threshold: the share of the window past which the conversation is compacted.
        keep: the share of the window the most recent messages keep after a compaction.
    """

    context_window: int
    reserve_output: int = 0
    threshold: float = DEFAULT_THRESHOLD
    keep: float = DEFAULT_KEEP

    @property
    def limit(self) -> int:
        """The most tokens a request may take: the threshold, or less when the answer needs the room."""
        by_threshold = int(self.context_window * self.threshold)
        return max(0, min(by_threshold, self.context_window - self.reserve_output))

    @property
    def keep_tokens(self) -> int:
        """Tokens of recent messages a compaction keeps verbatim (about the most recent tenth)."""
        return int(self.context_window * self.keep)

    @property
    def summary_tokens(self) -> int:
        """The room a summary may take (and the answer limit of the request that writes it)."""
        return max(256, min(8_000, self.context_window // 20))

    def over(self, tokens: int) -> bool:
        """True when a request of ``tokens`` must be compacted first."""
        return tokens > self.limit

    @classmethod
    def for_model(
        cls,
        context_window: int,
        *,
        max_output: int | None,
        settings: CompactionSettings | None = None,
    ) -> RequestBudget:
        """The budget of a model: the answer's room is its output limit, at most a quarter of the window."""
        chosen = settings or CompactionSettings()
        reserve = min(max_output or DEFAULT_RESERVE_OUTPUT, context_window // 4)
        return cls(context_window, reserve, threshold=chosen.threshold, keep=chosen.keep)


__all__ = [
    "CHARS_PER_TOKEN",
    "DOCUMENT_TOKENS",
    "IMAGE_TOKENS",
    "MESSAGE_OVERHEAD",
    "CompactionSettings",
    "RequestBudget",
    "message_tokens",
    "messages_tokens",
    "part_tokens",
    "reported_tokens",
    "request_tokens",
    "text_tokens",
    "tools_tokens",
]
