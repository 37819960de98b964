"""Circle: a coding agent for the terminal, and a library that gives other programs the same loop.

Names load on first use (PEP 562), so ``import circle`` loads no SDK.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "Agent": "circle.entrypoints.library",
    "AgentEnded": "circle.application.events",
    "AgentEvent": "circle.application.events",
    "AgentStarted": "circle.application.events",
    "ApprovalDecision": "circle.application.ports.approver",
    "ApprovalDeniedError": "circle.domain.errors",
    "ApprovalRequest": "circle.application.ports.approver",
    "Approver": "circle.application.ports.approver",
    "AttachmentError": "circle.domain.errors",
    "BudgetWarned": "circle.application.events",
    "CircleError": "circle.domain.errors",
    "CompactionEnded": "circle.application.events",
    "CompactionStarted": "circle.application.events",
    "ConfigError": "circle.domain.errors",
    "ContextOverflowError": "circle.domain.errors",
    "ErrorReported": "circle.application.events",
    "FunctionTool": "circle.application.tools.functions",
    "HookInput": "circle.application.code_hooks",
    "HookResult": "circle.application.code_hooks",
    "Hooks": "circle.application.code_hooks",
    "ImagePart": "circle.domain.messages",
    "Message": "circle.domain.messages",
    "MessageEnded": "circle.application.events",
    "MessageStarted": "circle.application.events",
    "MessageUpdated": "circle.application.events",
    "ModelConnectionError": "circle.domain.errors",
    "ModelError": "circle.domain.errors",
    "ModelHTTPError": "circle.domain.errors",
    "ModelStreamError": "circle.domain.errors",
    "ProviderProtocolError": "circle.domain.errors",
    "RateLimitedError": "circle.domain.errors",
    "RetryScheduled": "circle.application.events",
    "SessionBusyError": "circle.domain.errors",
    "SessionInfo": "circle.application.ports.session_store",
    "SessionNotFoundError": "circle.domain.errors",
    "Steered": "circle.application.events",
    "StopReason": "circle.domain.messages",
    "StorageError": "circle.domain.errors",
    "SubagentEvent": "circle.application.events",
    "ToolContext": "circle.application.tools.functions",
    "ToolError": "circle.domain.errors",
    "ToolExecutionEnded": "circle.application.events",
    "ToolExecutionStarted": "circle.application.events",
    "ToolExecutionUpdated": "circle.application.events",
    "TurnCancelledError": "circle.domain.errors",
    "TurnEnded": "circle.application.events",
    "TurnLimitError": "circle.domain.errors",
    "TurnResult": "circle.application.agent_loop",
    "TurnStarted": "circle.application.events",
    "UntrustedFolderError": "circle.domain.errors",
    "Usage": "circle.domain.messages",
    "UsageLimitError": "circle.domain.errors",
    "query": "circle.entrypoints.oneshot",
    "run_sync": "circle.entrypoints.oneshot",
    "sessions": "circle.entrypoints.library",
    "tool": "circle.application.tools.functions",
}

__all__ = [
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

if TYPE_CHECKING:
    from circle.application.agent_loop import TurnResult
    from circle.application.code_hooks import HookInput, HookResult, Hooks
    from circle.application.events import (
        AgentEnded,
        AgentEvent,
        AgentStarted,
        BudgetWarned,
        CompactionEnded,
        CompactionStarted,
        ErrorReported,
        MessageEnded,
        MessageStarted,
        MessageUpdated,
        RetryScheduled,
        Steered,
        SubagentEvent,
        ToolExecutionEnded,
        ToolExecutionStarted,
        ToolExecutionUpdated,
        TurnEnded,
        TurnStarted,
    )
    from circle.application.ports.approver import ApprovalDecision, ApprovalRequest, Approver
    from circle.application.ports.session_store import SessionInfo
    from circle.application.tools.functions import FunctionTool, ToolContext, tool
    from circle.domain.errors import (
        ApprovalDeniedError,
        AttachmentError,
        CircleError,
        ConfigError,
        ContextOverflowError,
        ModelConnectionError,
        ModelError,
        ModelHTTPError,
        ModelStreamError,
        ProviderProtocolError,
        RateLimitedError,
        SessionBusyError,
        SessionNotFoundError,
        StorageError,
        ToolError,
        TurnCancelledError,
        TurnLimitError,
        UntrustedFolderError,
        UsageLimitError,
    )
    from circle.domain.messages import ImagePart, Message, StopReason, Usage
    from circle.entrypoints.library import Agent, sessions
    from circle.entrypoints.oneshot import query, run_sync


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'circle' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
