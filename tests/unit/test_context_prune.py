"""Older tool output and images left out of requests, the stored conversation untouched."""

from __future__ import annotations

from circle.application.pruning import RequestPruner
from circle.domain.context_prune import IMAGE_LEFT_OUT, PruneWindow, prune_targets, tool_stub
from circle.domain.messages import ImagePart, Message, StopReason, ToolCallPart, ToolResultPart


def rounds(count: int, size: int) -> list[Message]:
    messages = [Message.user("go")]
    for i in range(count):
        call = ToolCallPart(id=f"c{i}", name="read_file", arguments="{}")
        messages.append(Message(role="assistant", parts=(call,), stop_reason=StopReason.TOOL_USE))
        messages.append(Message.tool_result(call_id=f"c{i}", name="read_file", text=f"{i}" * size))
    return messages


def test_output_outside_the_recent_window_becomes_a_stub_in_the_request_only() -> None:
    history = rounds(10, 8_000)  # 2,000 tokens each
    window = PruneWindow(recent_rounds=3, recent_tokens=9_000)
    sent = RequestPruner(window).apply(history)
    texts = [m.tool_results[0].text for m in sent if m.role == "tool"]
    assert texts[-4:] == [f"{i}" * 8_000 for i in range(6, 10)]  # 3 rounds, then up to 9,000 tokens
    assert texts[:6] == [tool_stub(8_000)] * 6
    assert next(m.tool_results[0].text for m in history if m.role == "tool") == "0" * 8_000


def test_the_last_rounds_stay_whole_however_large() -> None:
    history = rounds(3, 400_000)
    assert not prune_targets(history, PruneWindow(recent_rounds=3, recent_tokens=1))


def test_short_output_is_never_stubbed() -> None:
    history = rounds(10, 100)
    assert not prune_targets(history, PruneWindow(recent_rounds=1, recent_tokens=0, min_chars=400))


def test_a_rewritten_message_is_the_same_object_from_one_request_to_the_next() -> None:
    history = rounds(10, 8_000)
    pruner = RequestPruner(PruneWindow(recent_rounds=1, recent_tokens=0))
    first, second = pruner.apply(history), pruner.apply([*history, Message.user("more")])
    assert first[2] is second[2] and first[2] is not history[2]
    assert first[0] is history[0]


def test_older_images_are_left_out() -> None:
    image = ImagePart(media_type="image/png", data="aGk=")
    history = [Message(role="user", parts=(image,)) for _ in range(5)]
    sent = RequestPruner(PruneWindow(recent_images=2)).apply(history)
    assert [m.text for m in sent] == [IMAGE_LEFT_OUT] * 3 + ["", ""]
    assert isinstance(sent[-1].parts[0], ImagePart)


class Counted(Message):
    """A message that counts how often its calls and results are read."""

    def __init__(self, **data: object) -> None:
        super().__init__(**data)
        object.__setattr__(self, "_reads", [0])

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        self._reads[0] += 1  # type: ignore[attr-defined]
        return super().tool_calls

    @property
    def tool_results(self) -> tuple[ToolResultPart, ...]:
        self._reads[0] += 1  # type: ignore[attr-defined]
        return super().tool_results


def test_a_later_request_weighs_only_the_messages_it_added() -> None:
    history: list[Message] = [Counted(**m.model_dump()) for m in rounds(30, 2_000)]
    pruner = RequestPruner(PruneWindow(recent_rounds=2, recent_tokens=1_000))
    pruner.apply(history)
    for m in history:
        m._reads[0] = 0  # type: ignore[attr-defined]

    pruner.apply(history)

    assert sum(m._reads[0] for m in history) == 0  # type: ignore[attr-defined]
