"""How a retry shows: the ``retry`` JSON event, and the line print mode writes to stderr."""

from __future__ import annotations

import io

from circle.application.events import RetryScheduled
from circle.entrypoints.event_codec import event_json
from circle.entrypoints.headless import Notices

RETRY = RetryScheduled(
    kind="timeout",
    attempt=3,
    max_attempts=10,
    delay_ms=242_000,
    error="no answer within 3m (CIRCLE_LLM_TIMEOUT)",
)


def test_a_retry_is_one_json_event_with_its_kind_count_wait_and_error() -> None:
    assert event_json(RETRY) == {
        "type": "retry",
        "kind": "timeout",
        "attempt": 3,
        "max_attempts": 10,
        "delay_ms": 242_000,
        "error": "no answer within 3m (CIRCLE_LLM_TIMEOUT)",
    }


def test_print_mode_says_retrying_on_stderr() -> None:
    err = io.StringIO()

    Notices(err).emit(RETRY)

    assert err.getvalue() == (
        "circle: Retrying… · timeout 3/10 · 4m 2s (no answer within 3m (CIRCLE_LLM_TIMEOUT))\n"
    )


def test_pis_auto_retry_events_frame_a_retry_that_then_answers_or_gives_up() -> None:
    from circle.application.events import MessageEnded, TurnEnded
    from circle.domain.messages import Message, StopReason, TextPart, Usage
    from circle.entrypoints.event_codec import EventEncoder

    encoder = EventEncoder()
    first = encoder.lines(RETRY)
    assert [line["type"] for line in first] == ["retry", "auto_retry_start"]
    assert first[1] == {
        "type": "auto_retry_start",
        "attempt": 3,
        "maxAttempts": 10,
        "delayMs": 242_000,
        "errorMessage": "no answer within 3m (CIRCLE_LLM_TIMEOUT)",
    }
    answered = Message(role="assistant", parts=(TextPart(text="ok"),), stop_reason=StopReason.END)
    ended = encoder.lines(MessageEnded(message=answered, checkpoint_id=None))
    assert ended[-1] == {"type": "auto_retry_end", "success": True, "attempt": 3}
    assert encoder.lines(MessageEnded(message=answered, checkpoint_id=None))[-1]["type"] == "message_end"

    encoder.lines(RETRY)
    failed = encoder.lines(TurnEnded(session_id="s", answer="", usage=Usage(), error="down"))
    assert failed[0] == {"type": "auto_retry_end", "success": False, "attempt": 3, "finalError": "down"}
    assert failed[1]["type"] == "turn_end"


def test_compaction_end_carries_pis_result_beside_circles_counts() -> None:
    from circle.application.events import CompactionEnded

    done = CompactionEnded(
        session_id="s", reason="manual", summarized=4, kept=2, tokens_before=900, summary="S."
    )
    line = event_json(done)
    assert line["result"] == {
        "summary": "S.",
        "firstKeptEntryId": None,
        "tokensBefore": 900,
        "details": {"readFiles": [], "modifiedFiles": [], "summarized": 4, "kept": 2, "tokensAfter": 0},
    }
    assert (line["aborted"], line["willRetry"], line["summarized"]) == (False, False, 4)
    failed = event_json(
        CompactionEnded(session_id="s", reason="threshold", error="the summary came back empty")
    )
    assert (
        failed["result"] is None
        and failed["errorMessage"] == "Compaction failed: the summary came back empty"
    )
