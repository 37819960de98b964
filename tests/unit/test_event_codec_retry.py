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
