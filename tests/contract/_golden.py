"""Golden files: a recorded stream's normalized events, kept as JSON beside the tests.

``check_golden(protocol, name, outcome)`` compares the outcome of replaying one fixture with
``tests/contract/golden/<protocol>/<name>.json``. A fixture with no golden file yet gets one
written and the test fails, asking for a review; ``CIRCLE_UPDATE_GOLDEN=1`` rewrites them all.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable
from pathlib import Path

import pytest

from circle.domain.errors import CircleError
from circle.domain.messages import Usage
from circle.domain.model import (
    ModelEvent,
    RequestSent,
    ResponseStarted,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)

GOLDEN = Path(__file__).parent / "golden"
_MERGEABLE = (TextDelta, ThinkingDelta, ToolCallDelta)


def _plain(value: object) -> object:
    if isinstance(value, Usage):
        return value.model_dump()
    if hasattr(value, "value") and type(value).__module__.startswith("circle"):
        return value.value  # enums
    return value


def event_records(events: Iterable[ModelEvent]) -> list[dict[str, object]]:
    """Events as JSON records, adjacent text/thinking/argument deltas of one part merged."""
    records: list[dict[str, object]] = []
    for event in events:
        if isinstance(event, RequestSent | ResponseStarted):  # markers for the watchdog, not content
            continue
        fields = {f.name: _plain(getattr(event, f.name)) for f in dataclasses.fields(event)}
        record: dict[str, object] = {
            "type": type(event).__name__,
            **{k: v for k, v in fields.items() if v is not None},
        }
        last = records[-1] if records else None
        if (
            isinstance(event, _MERGEABLE)
            and last is not None
            and last["type"] == record["type"]
            and last.get("index") == record.get("index")
            and last.get("provider_id") == record.get("provider_id")
            and "signature" not in last
            and "redacted" not in last
            and "redacted" not in record
        ):
            key = "arguments" if isinstance(event, ToolCallDelta) else "text"
            last[key] = str(last.get(key, "")) + str(record.get(key, ""))
            if "signature" in record:
                last["signature"] = record["signature"]
            continue
        records.append(record)
    return records


def error_record(error: CircleError) -> dict[str, object]:
    record: dict[str, object] = {"class": type(error).__name__, "code": error.code, "message": error.message}
    status = getattr(error, "status", None)
    if status is not None:
        record["status"] = status
    return record


def check_golden(
    protocol: str, name: str, events: list[ModelEvent], error: CircleError | None = None
) -> None:
    """Compare what replaying fixture ``name`` gave with its golden file."""
    actual: dict[str, object] = {"events": event_records(events)}
    if error is not None:
        actual["error"] = error_record(error)
    path = GOLDEN / protocol / f"{name}.json"
    text = json.dumps(actual, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("CIRCLE_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        pytest.fail(f"no golden file for {protocol}/{name}: wrote {path}; review it and commit it")
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert json.loads(text) == expected, (
        f"{protocol}/{name} differs from {path} (CIRCLE_UPDATE_GOLDEN=1 rewrites)"
    )
