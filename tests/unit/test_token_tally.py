"""A request's token estimate weighs each message once, whatever the number of requests."""

from __future__ import annotations

from circle.application.token_tally import TokenTally
from circle.domain.budget import message_tokens, request_tokens
from circle.domain.messages import Message
from circle.domain.model import ToolSpec

TOOLS = (ToolSpec(name="ls", description="List a folder.", parameters={"type": "object"}),)


def test_each_round_weighs_only_the_messages_it_added_and_the_sum_is_the_full_estimate() -> None:
    weighed: list[Message] = []

    def weigh(message: Message) -> int:
        weighed.append(message)
        return message_tokens(message)

    tally = TokenTally(weigh=weigh)
    history = [Message.user("read the README")]
    for n in range(20):
        history.append(Message.tool_result(call_id=f"c{n}", name="read_file", text="x" * (n * 40)))
        weighed.clear()

        tokens = tally.request("Be brief.", history, TOOLS)

        assert tokens == request_tokens("Be brief.", history, TOOLS)
        assert weighed == ([history[-1]] if n else history)


def test_after_forget_every_message_is_weighed_again() -> None:
    weighed: list[Message] = []
    tally = TokenTally(weigh=lambda m: weighed.append(m) or message_tokens(m))
    history = [Message.user("one"), Message.user("two")]
    tally.request("", history, ())

    tally.forget()
    weighed.clear()
    tally.request("", history, ())

    assert weighed == history
