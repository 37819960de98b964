"""The inbox's delivery modes (pi's steering and follow-up modes), through a real session on fakes."""

from __future__ import annotations

from circle.application.agent_loop import Inbox
from circle.testing import answer

from ._harness import Harness


def test_follow_ups_go_one_at_a_time_by_default_and_together_in_all_mode() -> None:
    inbox = Inbox()
    inbox.follow_ups.extend(["a", "b"])
    assert (inbox.next_follow_up(), inbox.next_follow_up(), inbox.next_follow_up()) == ("a", "b", None)
    inbox.follow_up_mode = "all"
    inbox.follow_ups.extend(["a", "b"])
    assert (inbox.next_follow_up(), inbox.next_follow_up()) == ("a\n\nb", None)


async def test_steering_one_at_a_time_reads_one_message_before_each_request() -> None:
    harness = Harness()
    session = await harness.runtime().new_session()

    def steer_twice(request: object) -> object:
        session.steer("steer 1")  # both while the model answers the first request
        session.steer("steer 2")
        return answer("first")

    harness.model.add(steer_twice, answer("second"), answer("third"))  # type: ignore[arg-type]
    session.inbox.steering_mode = "one-at-a-time"

    await session.prompt("go")

    sent = [[m.text for m in request.messages if m.role == "user"] for request in harness.model.requests]
    assert sent == [["go"], ["go", "steer 1"], ["go", "steer 1", "steer 2"]]
