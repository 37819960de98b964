"""The retry policy of model requests, as pure functions: what failed, whether to try again, when.

A failed request is first *classified* (:func:`classify`) into a :data:`FailureKind`, then
:func:`decide` weighs it against the retries already made for that request (a
:class:`RetryLedger`) and answers :class:`Retry` (after how long) or :class:`GiveUp`.

=====================  =========  ========  ==============================================
kind                   retries    within    wait before the retry
=====================  =========  ========  ==============================================
``timeout``            10         -         1 s, doubling, at most 30 s
``rate_limit``         5          10 min    Retry-After, else 2 s doubling, at most 2 min
``server``             6          5 min     Retry-After, else 1 s doubling, at most 1 min
``dropped``            6          5 min     1 s doubling, at most 1 min
``stream_error``       3          -         1 s doubling
``rejected_parameter`` 5          -         none: sent again at once without the parameter, or
                                            with the output limit the endpoint allows
``quota``, ``tls``,    0                    the turn stops at once
``unreachable``,
``fatal``
=====================  =========  ========  ==============================================

``dropped`` is a connection the endpoint accepted and then closed or broke, before or during
the answer; ``unreachable`` is one that could not be made at all (refused, no such host): like a
certificate error it fails the same way every time (a wrong URL, a server not started), so the
person hears of it at once instead of after a minute of retries.

A retry whose wait would end outside its kind's window is not made. Jitter is a value in
``[0, 1)`` passed in by the caller and lengthens a computed backoff by up to a quarter; a wait
the endpoint asked for (Retry-After) is kept as it is.

:class:`TimeoutPolicy` holds the deadlines: each try after a timeout waits twice as long as the
one before for the answer to start (up to five minutes) and for content in the stream (up to
eight times the first stall deadline). The endpoint's own hints are read by
:mod:`circle.domain.endpoint_hints` (Retry-After, spent quotas, rejected parameters).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from .endpoint_hints import (
    OUTPUT_PARAMETERS,
    allowed_output,
    format_duration,
    is_spent_quota,
    parse_retry_after,
    quota_note,
    rejected_parameter,
    should_retry_header,
)
from .errors import (
    ConfigError,
    ContextOverflowError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamError,
    ProviderProtocolError,
)

FailureKind = Literal[
    "timeout",
    "rate_limit",
    "quota",
    "server",
    "dropped",
    "stream_error",
    "tls",
    "unreachable",
    "rejected_parameter",
    "fatal",
]

TIMEOUT_STATUSES = frozenset({408, 504, 524})
"""Statuses a gateway answers when the model behind it took too long: retried as timeouts."""
SERVER_STATUSES = frozenset({500, 502, 503, 529})
_PERMANENT_5XX = frozenset({501, 505})


@dataclass(frozen=True, slots=True)
class Budget:
    """How often one kind of failure is retried, within how long, and the backoff between tries."""

    retries: int
    window_s: float | None = None
    first_delay_s: float = 1.0
    max_delay_s: float = 60.0


BUDGETS: Mapping[FailureKind, Budget] = MappingProxyType(
    {
        "timeout": Budget(10, first_delay_s=1.0, max_delay_s=30.0),
        "rate_limit": Budget(5, window_s=600.0, first_delay_s=2.0, max_delay_s=120.0),
        "server": Budget(6, window_s=300.0),
        "dropped": Budget(6, window_s=300.0),
        "stream_error": Budget(3, max_delay_s=30.0),
        "rejected_parameter": Budget(5, first_delay_s=0.0, max_delay_s=0.0),
    }
)
"""The retried kinds; ``quota``, ``tls``, ``unreachable`` and ``fatal`` are never retried."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A classified failure: its kind, the wait the endpoint asked for, the parameter it rejected."""

    kind: FailureKind
    retry_after: float | None = None
    parameter: str | None = None
    output_limit: int | None = None
    """For a rejected ``max_tokens`` (or its kin): the most the endpoint says it allows."""


def classify(error: ModelError) -> Failure:
    """The kind of failure ``error`` is (see the module docstring for what each kind means)."""
    if isinstance(error, ContextOverflowError):
        return Failure("fatal")
    if isinstance(error, ModelConnectionError):
        kinds: dict[str, FailureKind] = {"timeout": "timeout", "tls": "tls", "connect": "unreachable"}
        return Failure(kinds.get(error.kind, "dropped"))
    if isinstance(error, ModelHTTPError):
        if error.should_retry is False:
            return Failure("fatal")
        failure = _status_failure(error.status, error.message, error.retry_after, error.param)
        if failure.kind == "fatal" and error.should_retry:
            return Failure("server", retry_after=error.retry_after)
        return failure
    if isinstance(error, ModelStreamError):
        if error.status is None:
            return Failure("stream_error")
        failure = _status_failure(error.status, error.message, None, None)
        return Failure("fatal") if failure.kind == "rejected_parameter" else failure
    if isinstance(error, ProviderProtocolError):
        return Failure("stream_error")
    return Failure("fatal")


def _status_failure(status: int, message: str, retry_after: float | None, param: str | None) -> Failure:
    if status in TIMEOUT_STATUSES:
        return Failure("timeout", retry_after=retry_after)
    if status == 429:
        spent = is_spent_quota(message, retry_after, window_s=BUDGETS["rate_limit"].window_s)
        return Failure("quota" if spent else "rate_limit", retry_after=retry_after)
    if status in SERVER_STATUSES or (500 <= status < 600 and status not in _PERMANENT_5XX):
        return Failure("server", retry_after=retry_after)
    if status in (400, 422) and (name := rejected_parameter(param, message)) is not None:
        limit = allowed_output(message) if name in OUTPUT_PARAMETERS else None
        return Failure("rejected_parameter", parameter=name, output_limit=limit)
    return Failure("fatal")


@dataclass(frozen=True, slots=True)
class _Entry:
    kind: FailureKind
    retries: int
    first_at: float


@dataclass(frozen=True, slots=True)
class RetryLedger:
    """The retries made for one request so far: how many of each kind, and when each kind began."""

    entries: tuple[_Entry, ...] = ()

    def retries(self, kind: FailureKind) -> int:
        return next((e.retries for e in self.entries if e.kind == kind), 0)

    def first_at(self, kind: FailureKind) -> float | None:
        return next((e.first_at for e in self.entries if e.kind == kind), None)

    @property
    def total(self) -> int:
        return sum(e.retries for e in self.entries)

    def after(self, retry: Retry, *, now: float) -> RetryLedger:
        """The ledger once ``retry`` is made; ``now`` starts its kind's window if it is the first."""
        first = self.first_at(retry.kind)
        rest = tuple(e for e in self.entries if e.kind != retry.kind)
        entry = _Entry(retry.kind, self.retries(retry.kind) + 1, now if first is None else first)
        return RetryLedger((*rest, entry))


@dataclass(frozen=True, slots=True)
class Retry:
    """Send the request again after ``delay_s``; ``attempt`` of ``max_attempts`` for its kind."""

    kind: FailureKind
    attempt: int
    max_attempts: int
    delay_s: float
    parameter: str | None = None
    """For ``rejected_parameter``: the parameter to leave out from now on."""
    output_limit: int | None = None
    """For a rejected output limit: the limit to send from now on (the parameter stays)."""


@dataclass(frozen=True, slots=True)
class GiveUp:
    """Stop: the failure is not retried, or its retries are spent. ``note`` ends the error's message."""

    kind: FailureKind
    note: str = ""


def backoff(budget: Budget, attempt: int, *, jitter: float) -> float:
    """The wait before retry number ``attempt`` (1-based): doubling, capped, then up to 25% longer."""
    base = min(budget.first_delay_s * float(2 ** min(max(attempt - 1, 0), 30)), budget.max_delay_s)
    return base * (1 + 0.25 * min(max(jitter, 0.0), 1.0))


def decide(
    failure: Failure,
    ledger: RetryLedger,
    *,
    now: float,
    wall_time: float,
    jitter: float,
    dropped: frozenset[str] = frozenset(),
    output_cap: int | None = None,
) -> Retry | GiveUp:
    """Whether and when to retry after ``failure``.

    Args:
        failure: what went wrong, from :func:`classify`.
        ledger: the retries already made for this request.
        now: monotonic seconds, to measure the kinds' windows.
        wall_time: seconds since the epoch, to say when a spent quota resets.
        jitter: a value in ``[0, 1)`` that lengthens a computed backoff by up to 25%.
        dropped: parameters already left out; one rejected again is not retried.
        output_cap: the output limit already lowered to; a limit refused again at or above it
            is not retried.
    """
    done = gave_up_note(ledger.total)
    budget = BUDGETS.get(failure.kind)
    if failure.kind == "quota":
        return GiveUp("quota", quota_note(failure.retry_after, wall_time=wall_time) + done)
    if budget is None:
        return GiveUp(failure.kind, done)
    if failure.output_limit is not None:
        if output_cap is not None and output_cap <= failure.output_limit:
            return GiveUp(failure.kind, done)
    elif failure.kind == "rejected_parameter" and (failure.parameter is None or failure.parameter in dropped):
        return GiveUp(failure.kind, done)
    made = ledger.retries(failure.kind)
    if made >= budget.retries:
        return GiveUp(failure.kind, done)
    delay = failure.retry_after
    if delay is None:
        delay = backoff(budget, made + 1, jitter=jitter)
    if budget.window_s is not None:
        first = ledger.first_at(failure.kind)
        spent = 0.0 if first is None else now - first
        if spent + delay > budget.window_s:
            return GiveUp(failure.kind, done)
    if failure.output_limit is not None:
        return Retry(failure.kind, made + 1, budget.retries, delay, output_limit=failure.output_limit)
    return Retry(failure.kind, made + 1, budget.retries, delay, parameter=failure.parameter)


def gave_up_note(retries: int) -> str:
    """`` (gave up after N retries)``, or nothing when no retry was made."""
    if retries <= 0:
        return ""
    return f" (gave up after {retries} {'retry' if retries == 1 else 'retries'})"


DEFAULT_FIRST_EVENT_S = 45.0
DEFAULT_STALL_S = 180.0


@dataclass(frozen=True, slots=True)
class TimeoutPolicy:
    """How long to wait for an answer to start, and for content while it streams.

    Attributes:
        first_event_s: the first try's deadline for the answer to start (CIRCLE_LLM_TIMEOUT).
        stall_s: the first try's deadline for the next content in a stream (CIRCLE_LLM_STALL_TIMEOUT).
        max_first_event_s: the longest the answer's start is waited for, however many timeouts came.
        max_stall_factor: the stall deadline grows to at most this many times ``stall_s``.
    """

    first_event_s: float = DEFAULT_FIRST_EVENT_S
    stall_s: float = DEFAULT_STALL_S
    max_first_event_s: float = 300.0
    max_stall_factor: float = 8.0

    def first_event_deadline(self, timeouts: int) -> float:
        """The deadline for the answer to start after ``timeouts`` timeouts of this request."""
        cap = max(self.max_first_event_s, self.first_event_s)
        return min(self.first_event_s * float(2 ** min(timeouts, 30)), cap)

    def stall_deadline(self, timeouts: int) -> float:
        """The deadline for the next content of a stream after ``timeouts`` timeouts."""
        return min(self.stall_s * float(2 ** min(timeouts, 30)), self.stall_s * self.max_stall_factor)

    @property
    def longest_s(self) -> float:
        """The longest any deadline can be: what a transport's own timeout should not cut short."""
        return max(self.first_event_deadline(30), self.stall_deadline(30))

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> TimeoutPolicy:
        """The policy with CIRCLE_LLM_TIMEOUT and CIRCLE_LLM_STALL_TIMEOUT (seconds) applied.

        Raises:
            ConfigError: a value that is not a positive number of seconds.
        """
        return cls(
            first_event_s=_seconds(env, "CIRCLE_LLM_TIMEOUT", DEFAULT_FIRST_EVENT_S),
            stall_s=_seconds(env, "CIRCLE_LLM_STALL_TIMEOUT", DEFAULT_STALL_S),
        )


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{name} must be a positive number of seconds, not {text!r}")
    return value


_LABELS: Mapping[str, str] = {
    "rate_limit": "rate limit",
    "server": "server error",
    "dropped": "connection",
    "stream_error": "stream error",
    "rejected_parameter": "rejected parameter",
}


def retry_line(kind: str, attempt: int, max_attempts: int, delay_s: float) -> str:
    """What the busy line says while a retry waits: ``Retrying… · timeout 3/10 · 4m 2s``."""
    return f"Retrying… · {_LABELS.get(kind, kind)} {attempt}/{max_attempts} · {format_duration(delay_s)}"


def retry_countdown(kind: str, attempt: int, max_attempts: int, remaining_s: float) -> str:
    """The same retry as it counts down: ``timeout · retrying in 4s (3/10)``, then ``retrying
    now`` once the wait is over."""
    when = f"in {format_duration(math.ceil(remaining_s))}" if remaining_s > 0 else "now"
    return f"{_LABELS.get(kind, kind)} · retrying {when} ({attempt}/{max_attempts})"


__all__ = [
    "BUDGETS",
    "SERVER_STATUSES",
    "TIMEOUT_STATUSES",
    "Budget",
    "Failure",
    "FailureKind",
    "GiveUp",
    "Retry",
    "RetryLedger",
    "TimeoutPolicy",
    "backoff",
    "classify",
    "decide",
    "gave_up_note",
    "parse_retry_after",
    "retry_countdown",
    "retry_line",
    "should_retry_header",
]
