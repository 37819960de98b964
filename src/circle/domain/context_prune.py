"""What a request leaves out of a long session: older tool output and older images.

Tool output outside a recent window (the last few tool rounds, then a budget of output tokens
counted from the newest) is replaced by a short stub; images older than the last few are left
out. Only the request changes: the stored conversation keeps everything, so the stub says where
the full text is. Pure: :mod:`circle.application.pruning` applies it with a cache so that a
rewritten message is the same object from one request to the next.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .budget import part_tokens
from .messages import DocumentPart, ImagePart, Message, Part, TextPart, ToolResultPart

IMAGE_LEFT_OUT = "[older image left out; it is in the session]"


def tool_stub(chars: int) -> str:
    return f"[older tool output left out: {chars} chars; the full text is in the session]"


@dataclass(frozen=True, slots=True)
class PruneWindow:
    """What stays whole in a request.

    Args:
        recent_rounds: tool rounds, counted from the newest, whose output is never stubbed.
        recent_tokens: tokens of tool output kept whole, counted from the newest.
        min_chars: output shorter than this is never stubbed (the stub would save nothing).
        recent_images: messages with images, counted from the newest, whose images stay.
    """

    recent_rounds: int = 3
    recent_tokens: int = 40_000
    min_chars: int = 400
    recent_images: int = 3


@dataclass(frozen=True, slots=True)
class PruneTargets:
    stub_tools: frozenset[int]
    drop_images: frozenset[int]

    def __bool__(self) -> bool:
        return bool(self.stub_tools or self.drop_images)


def _has_images(message: Message) -> bool:
    for part in message.parts:
        if isinstance(part, ImagePart | DocumentPart):
            return True
        if isinstance(part, ToolResultPart) and any(
            isinstance(c, ImagePart | DocumentPart) for c in part.content
        ):
            return True
    return False


@dataclass(frozen=True, slots=True)
class MessageWeight:
    """What pruning weighs of one message: whether it asks for tools (a round) and holds their
    results, its tool output (estimated tokens and characters) and whether it carries images or
    documents. A caller that keeps the weights reads each message once."""

    output_tokens: int
    output_chars: int
    has_images: bool
    tool_round: bool = False
    has_results: bool = False


def weigh(message: Message) -> MessageWeight:
    results = message.tool_results
    return MessageWeight(
        output_tokens=sum(part_tokens(r) for r in results),
        output_chars=sum(len(r.text) for r in results),
        has_images=_has_images(message),
        tool_round=message.role == "assistant" and bool(message.tool_calls),
        has_results=bool(results),
    )


def prune_targets(
    messages: Sequence[Message], window: PruneWindow, *, weights: Callable[[Message], MessageWeight] = weigh
) -> PruneTargets:
    """The messages whose tool output is stubbed, and those whose images are left out.

    ``weights`` weighs a message (a caller may keep the weights of messages it has seen).
    """
    stub: set[int] = set()
    drop: set[int] = set()
    rounds = images = 0
    output = 0
    for index in range(len(messages) - 1, -1, -1):
        weight = weights(messages[index])
        if weight.tool_round:
            rounds += 1
        if weight.has_results:
            output += weight.output_tokens
            old = rounds >= window.recent_rounds and output > window.recent_tokens
            if old and weight.output_chars >= window.min_chars:
                stub.add(index)
        if weight.has_images:
            if images >= window.recent_images:
                drop.add(index)
            images += 1
    return PruneTargets(stub_tools=frozenset(stub), drop_images=frozenset(drop))


def pruned(message: Message, *, stub_tools: bool, drop_images: bool) -> Message:
    """``message`` as a request sends it: tool output stubbed and/or images left out."""
    parts: list[Part] = []
    for part in message.parts:
        if isinstance(part, ToolResultPart):
            if stub_tools:
                content: tuple[TextPart | ImagePart | DocumentPart, ...] = (
                    TextPart(text=tool_stub(len(part.text))),
                )
            elif drop_images:
                content = tuple(_without_image(c) for c in part.content)
            else:
                content = part.content
            parts.append(part if content == part.content else part.model_copy(update={"content": content}))
        elif drop_images and isinstance(part, ImagePart | DocumentPart):
            parts.append(TextPart(text=IMAGE_LEFT_OUT))
        else:
            parts.append(part)
    changed = tuple(parts)
    return message if changed == message.parts else message.model_copy(update={"parts": changed})


def _without_image(part: TextPart | ImagePart | DocumentPart) -> TextPart | ImagePart | DocumentPart:
    return TextPart(text=IMAGE_LEFT_OUT) if isinstance(part, ImagePart | DocumentPart) else part


__all__ = ["IMAGE_LEFT_OUT", "PruneTargets", "PruneWindow", "prune_targets", "pruned", "tool_stub"]
