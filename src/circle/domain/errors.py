"""The one error tree of Circle.

::

    CircleError                      code
    ├── ConfigError                  config-error
    │   └── AttachmentError          attachment-error
    ├── ModelError                   model-error
    │   ├── ModelHTTPError           model-http-error
    │   │   └── RateLimitedError     rate-limited
    │   ├── ContextOverflowError     context-overflow
    │   ├── ModelConnectionError     model-connection-error
    │   ├── ModelStreamError         model-stream-error
    │   └── ProviderProtocolError    provider-protocol-error
    ├── ToolError                    tool-error (its message goes back to the model)
    │   └── ApprovalDeniedError      approval-denied
    ├── StorageError                 storage-error
    │   ├── SessionBusyError         session-busy
    │   └── SessionNotFoundError     session-not-found
    ├── UsageLimitError              usage-limit (the session budget)
    │   └── TurnLimitError           turn-limit (``--max-turns``, ``max_turns=``)
    ├── TurnCancelledError           cancelled
    └── UntrustedFolderError         untrusted-folder

Every error has a stable kebab-case ``code`` used in JSON and RPC output. Adapters translate
their SDK's exceptions into the most specific class here, so nothing from an SDK crosses a port.
"""

from __future__ import annotations

from typing import Literal


class CircleError(Exception):
    """The root of every error Circle reports to a person or a program."""

    code = "circle-error"

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else self.code


class ConfigError(CircleError):
    """Settings, credentials or command-line values that cannot be used."""

    code = "config-error"


class AttachmentError(ConfigError):
    """A file attached to a message (``@file``) that cannot be sent: missing, binary or too large."""

    code = "attachment-error"


class ModelError(CircleError):
    """The model endpoint failed to give an answer."""

    code = "model-error"


class ModelHTTPError(ModelError):
    """The endpoint answered with an HTTP error status."""

    code = "model-http-error"

    def __init__(
        self,
        message: str,
        *,
        status: int,
        retry_after: float | None = None,
        should_retry: bool | None = None,
        param: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        """Seconds the endpoint asked to wait (``retry-after-ms`` or ``retry-after``), if it did."""
        self.should_retry = should_retry
        """``x-should-retry`` as the endpoint sent it (None when absent)."""
        self.param = param
        """The request parameter the error body names (OpenAI's ``error.param``), if any."""


class RateLimitedError(ModelHTTPError):
    """HTTP 429: the endpoint asks to slow down."""

    code = "rate-limited"


class ContextOverflowError(ModelError):
    """The request was larger than the model's context window."""

    code = "context-overflow"


ConnectionKind = Literal["connect", "dropped", "timeout", "tls"]


class ModelConnectionError(ModelError):
    """The endpoint could not be reached, the connection dropped or timed out, or TLS failed."""

    code = "model-connection-error"

    def __init__(self, message: str, *, kind: ConnectionKind = "connect") -> None:
        super().__init__(message)
        self.kind: ConnectionKind = kind


class ModelStreamError(ModelError):
    """An error the endpoint reported inside a streamed answer; ``status`` is its HTTP equivalent."""

    code = "model-stream-error"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ProviderProtocolError(ModelError):
    """The endpoint sent something that does not fit its wire protocol."""

    code = "provider-protocol-error"


class ToolError(CircleError):
    """A tool could not do what was asked; the message is returned to the model.

    Args:
        message: What the model is told.
        shown: What a person reads on the call's row instead (None: the message).
    """

    code = "tool-error"

    def __init__(self, message: str, *, shown: str | None = None) -> None:
        super().__init__(message)
        self.shown = shown


class ApprovalDeniedError(ToolError):
    """The person, a rule or the mode refused a tool call."""

    code = "approval-denied"


class StorageError(CircleError):
    """The session store could not read or write."""

    code = "storage-error"


class SessionBusyError(StorageError):
    """Another Circle holds the session's lease (or took it over from this one): nothing was written."""

    code = "session-busy"


class SessionNotFoundError(StorageError):
    """No stored session (or no checkpoint in it) has the id given."""

    code = "session-not-found"


class UsageLimitError(CircleError):
    """A turn, token or budget limit was reached."""

    code = "usage-limit"


class TurnLimitError(UsageLimitError):
    """A turn reached its limit of tool rounds (``--max-turns``) and stopped."""

    code = "turn-limit"


class TurnCancelledError(CircleError):
    """The turn was stopped (``cancel()``, esc or Ctrl-C) before it ended; what it did is kept."""

    code = "cancelled"


class UntrustedFolderError(CircleError):
    """The workspace folder has not been trusted."""

    code = "untrusted-folder"


__all__ = [
    "ApprovalDeniedError",
    "AttachmentError",
    "CircleError",
    "ConfigError",
    "ContextOverflowError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelStreamError",
    "ProviderProtocolError",
    "RateLimitedError",
    "SessionBusyError",
    "SessionNotFoundError",
    "StorageError",
    "ToolError",
    "TurnCancelledError",
    "TurnLimitError",
    "UntrustedFolderError",
    "UsageLimitError",
]
