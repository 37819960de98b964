"""Token estimates and the request budget."""

from __future__ import annotations

from circle.domain.budget import (
    IMAGE_TOKENS,
    MESSAGE_OVERHEAD,
    CompactionSettings,
    RequestBudget,
    message_tokens,
    request_tokens,
    text_tokens,
)
from circle.domain.messages import ImagePart, Message, TextPart


def test_text_is_a_quarter_of_its_characters_rounded_up() -> None:
    assert [text_tokens(""), text_tokens("abc"), text_tokens("abcd"), text_tokens("abcde")] == [0, 1, 1, 2]


def test_an_image_is_a_fixed_cost_whatever_its_bytes() -> None:
    small = Message(role="user", parts=(ImagePart(media_type="image/png", data="x"),))
    large = Message(role="user", parts=(ImagePart(media_type="image/png", data="x" * 100_000),))
    assert message_tokens(small) == message_tokens(large) == MESSAGE_OVERHEAD + IMAGE_TOKENS


def test_a_request_counts_the_system_prompt_and_each_message() -> None:
    messages = [Message.user("a" * 40), Message(role="assistant", parts=(TextPart(text="b" * 8),))]
    assert request_tokens("s" * 400, messages) == 100 + (MESSAGE_OVERHEAD + 10) + (MESSAGE_OVERHEAD + 2)


def test_the_limit_is_85_percent_or_less_when_the_answer_needs_the_room() -> None:
    assert RequestBudget(128_000).limit == 108_800
    assert RequestBudget(128_000, reserve_output=32_000).limit == 96_000
    assert RequestBudget(128_000).keep_tokens == 12_800
    assert RequestBudget(100_000).over(85_001) and not RequestBudget(100_000).over(85_000)


def test_a_models_budget_reserves_its_output_at_most_a_quarter_of_the_window() -> None:
    budget = RequestBudget.for_model(200_000, max_output=128_000)
    assert budget.reserve_output == 50_000 and budget.limit == 150_000
    custom = RequestBudget.for_model(
        10_000, max_output=None, settings=CompactionSettings(threshold=0.5, keep=0.2)
    )
    assert custom.limit == 5_000 and custom.keep_tokens == 2_000
