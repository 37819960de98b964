import dataclasses
import subprocess
import sys
import typing

import pytest

import circle


def test_all_is_sorted_and_every_name_resolves() -> None:
    assert circle.__all__ == sorted(circle.__all__)
    for name in circle.__all__:
        assert getattr(circle, name) is not None
    assert not [n for n in circle.__all__ if n.startswith("_") and n != "__version__"]


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        _ = circle.NoSuchThing  # type: ignore[attr-defined]


def test_importing_circle_loads_no_sdk() -> None:
    code = (
        "import sys, circle; circle.Agent; circle.tool; circle.ToolContext; circle.run_sync; circle.query; "
        "import circle.testing; circle.testing.FunctionModel; "
        "print(sorted(m for m in ('openai','anthropic','sqlmodel','textual','typer') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


PUBLIC_NAMES = [
    "Agent",
    "AgentEnded",
    "AgentEvent",
    "AgentStarted",
    "ApprovalDecision",
    "ApprovalDeniedError",
    "ApprovalRequest",
    "Approver",
    "AttachmentError",
    "BudgetWarned",
    "CircleError",
    "CompactionEnded",
    "CompactionStarted",
    "ConfigError",
    "ContextOverflowError",
    "ErrorReported",
    "FunctionTool",
    "HookInput",
    "HookResult",
    "Hooks",
    "ImagePart",
    "Message",
    "MessageEnded",
    "MessageStarted",
    "MessageUpdated",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelStreamError",
    "ProviderProtocolError",
    "RateLimitedError",
    "RetryScheduled",
    "SessionBusyError",
    "SessionInfo",
    "SessionNotFoundError",
    "Steered",
    "StopReason",
    "StorageError",
    "SubagentEvent",
    "ToolContext",
    "ToolError",
    "ToolExecutionEnded",
    "ToolExecutionStarted",
    "ToolExecutionUpdated",
    "TurnCancelledError",
    "TurnEnded",
    "TurnLimitError",
    "TurnResult",
    "TurnStarted",
    "UntrustedFolderError",
    "Usage",
    "UsageLimitError",
    "__version__",
    "query",
    "run_sync",
    "sessions",
    "tool",
]


def test_all_is_pinned() -> None:
    assert circle.__all__ == PUBLIC_NAMES


def test_every_event_type_is_exported() -> None:
    from circle.application.events import AgentEvent

    missing = [t.__name__ for t in typing.get_args(AgentEvent) if getattr(circle, t.__name__, None) is not t]
    assert missing == []


def test_the_approver_protocol_is_exported_with_its_request_and_decision() -> None:
    from circle.application.ports.approver import Approver

    assert circle.Approver is Approver
    fields = {f.name for f in dataclasses.fields(circle.ApprovalRequest)}
    assert {"tool_name", "summary", "ask_reason", "arguments"} <= fields
