"""A compaction's end in pi's shapes: its CompactionResult and the ``compaction_end`` event."""

from __future__ import annotations

from pydantic import JsonValue

from circle.application.events import CompactionEnded


def compaction_result(event: CompactionEnded) -> JsonValue:
    """pi's CompactionResult of a compaction that succeeded (null for one that failed)."""
    if event.error is not None:
        return None
    return {
        "summary": event.summary,
        "firstKeptEntryId": event.summary_checkpoint_id,
        "tokensBefore": event.tokens_before,
        "details": {
            "readFiles": list(event.read_files),
            "modifiedFiles": list(event.modified_files),
            "summarized": event.summarized,
            "kept": event.kept,
            "tokensAfter": event.tokens_after,
        },
    }


def compaction_end_json(event: CompactionEnded) -> dict[str, JsonValue]:
    """pi's ``result``, ``aborted``, ``willRetry`` and ``errorMessage``, then Circle's own counts."""
    result = compaction_result(event)
    data: dict[str, JsonValue] = {
        "type": "compaction_end",
        "reason": event.reason,
        "result": result,
        "aborted": False,
        "willRetry": event.will_retry,
        "session_id": event.session_id,
        "summarized": event.summarized,
        "kept": event.kept,
        "tokens_before": event.tokens_before,
        "tokens_after": event.tokens_after,
        "summary_checkpoint_id": event.summary_checkpoint_id,
        "history_file": event.history_file,
        "will_retry": event.will_retry,
    }
    if event.error is not None:
        data["error"] = event.error
        data["errorMessage"] = f"Compaction failed: {event.error}"
    return data


__all__ = ["compaction_end_json", "compaction_result"]
