"""Stop reasons by the names pi's RPC protocol gives them (``stopReason``)."""

from __future__ import annotations

from circle.domain.messages import StopReason

STOP_NAMES = {
    StopReason.END: "stop",
    StopReason.TOOL_USE: "toolUse",
    StopReason.MAX_TOKENS: "length",
    StopReason.FILTERED: "filtered",
    StopReason.EMPTY: "empty",
    StopReason.INCOMPLETE: "incomplete",
    StopReason.ABORTED: "aborted",
    StopReason.ERROR: "error",
}

__all__ = ["STOP_NAMES"]
