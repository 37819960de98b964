"""What an endpoint's failed answer says about trying again: pure readers of headers and bodies.

- :func:`parse_retry_after`: the wait an answer asks for, as the SDKs read it: ``retry-after-ms``
  first, then ``retry-after`` in seconds or as an HTTP date.
- :func:`should_retry_header`: ``x-should-retry`` (``false`` means do not retry).
- :func:`is_spent_quota`: a 429 that is a spent quota or credit rather than a rate.
- :func:`rejected_parameter`: the optional request parameter a 400 rejects, if it names one.
- :func:`allowed_output`: the output limit a 400 rejecting ``max_tokens`` says is allowed.

The adapters call the first two when they translate an HTTP error; :mod:`circle.domain.retry`
uses the others.
"""

from __future__ import annotations

import contextlib
import email.utils
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime

from .lazy_re import lazy_compile

DROPPABLE_PARAMETERS = frozenset(
    {
        "frequency_penalty",
        "include",
        "logprobs",
        "max_completion_tokens",
        "max_output_tokens",
        "max_tokens",
        "metadata",
        "output_config",
        "parallel_tool_calls",
        "prediction",
        "presence_penalty",
        "reasoning",
        "reasoning_effort",
        "seed",
        "service_tier",
        "store",
        "stream_options",
        "temperature",
        "thinking",
        "tool_choice",
        "top_k",
        "top_logprobs",
        "top_p",
        "truncation",
        "verbosity",
        "web_search_options",
    }
)
"""Optional request parameters a request can do without; nothing else is ever left out."""

_BARE = frozenset(name for name in DROPPABLE_PARAMETERS if "_" in name) | {
    "temperature",
    "thinking",
    "reasoning",
}
"""The names distinctive enough to be recognized unquoted in an error message."""

_CUE = lazy_compile(
    r"unsupported|not supported|does not support|doesn't support|unrecognized|unknown|not allowed"
    r"|not permitted|extra (inputs|fields)|invalid|unexpected|not available|should be|must be"
    r"|is too large|not compatible|incompatible|which is the maximum",
    re.IGNORECASE,
)
_QUOTED = lazy_compile(r"""['"`]([A-Za-z_][\w.\[\]]*)['"`]""")
_LOC_PREFIX = lazy_compile(r"^\s*([A-Za-z_][\w.\[\]]*)\s*:")
_SIGNATURE = lazy_compile(r"signature|thinking`? blocks?", re.IGNORECASE)

_QUOTA = lazy_compile(
    r"insufficient[_ ]quota|exceeded your (current )?quota|quota (has been |was |is )?"
    r"(exhausted|spent|used up)|out of credits?|credit balance is too low"
    r"|insufficient (credits?|balance|funds)|credits? (are |have been |has been |is )?"
    r"(exhausted|depleted|used up|spent)|billing (hard )?limit|per[- ]day|daily (limit|quota)",
    re.IGNORECASE,
)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is not None:
        return value
    return next((v for k, v in headers.items() if k.lower() == name), None)


def parse_retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds to wait from ``retry-after-ms``, else ``retry-after`` (seconds or an HTTP date).

    Args:
        headers: the answer's headers (names in any case).
        now: seconds since the epoch, to turn a date into a wait.

    Returns:
        The wait (0 or more), or None when neither header holds a usable value.
    """
    with contextlib.suppress(TypeError, ValueError):
        millis = float(_header(headers, "retry-after-ms") or "")
        if math.isfinite(millis):
            return max(millis / 1000, 0.0)
    value = _header(headers, "retry-after")
    if value is None:
        return None
    with contextlib.suppress(ValueError):
        seconds = float(value)
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    with contextlib.suppress(TypeError, ValueError, OverflowError, IndexError):
        return max(email.utils.parsedate_to_datetime(value).timestamp() - now, 0.0)
    return None


def should_retry_header(headers: Mapping[str, str]) -> bool | None:
    """``x-should-retry`` as a bool: ``true`` asks for a retry, ``false`` forbids one; None if absent."""
    value = (_header(headers, "x-should-retry") or "").strip().lower()
    return {"true": True, "false": False}.get(value)


def is_spent_quota(message: str, retry_after: float | None, *, window_s: float | None) -> bool:
    """Whether a 429 is a spent quota or credit (not worth waiting for) rather than a rate limit.

    It is when the wait asked for ends beyond ``window_s``, or the message says so ("quota
    exceeded" alone is not enough: Google says it of per-minute limits too).
    """
    if retry_after is not None and window_s is not None and retry_after > window_s:
        return True
    return bool(_QUOTA.search(message))


def quota_note(retry_after: float | None, *, wall_time: float) -> str:
    """The end of a spent quota's error message: when it resets, if the endpoint said."""
    if retry_after is None:
        return " — the quota is spent (the endpoint did not say when it resets)"
    at = datetime.fromtimestamp(wall_time + retry_after, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f" — the quota is spent; it resets in {format_duration(retry_after)} (at {at})"


PARAMETER_ALIASES: Mapping[str, frozenset[str]] = {
    "reasoning": frozenset({"reasoning_effort"}),
    "reasoning_effort": frozenset({"reasoning"}),
}
"""Other names under which a rejected parameter may have been sent."""


def request_keys(dropped: frozenset[str]) -> frozenset[str]:
    """The top-level body keys to leave out for the parameters in ``dropped`` (aliases included)."""
    return dropped.union(*(PARAMETER_ALIASES.get(name, frozenset()) for name in dropped))


def _top_level(name: str) -> str:
    name = name.removeprefix("body.").removeprefix("body->")
    return re.split(r"[.\[]", name, maxsplit=1)[0].strip().lower()


def rejected_parameter(param: str | None, message: str) -> str | None:
    """The optional parameter a 400 rejects: its ``param`` field, else the one its message names.

    Only :data:`DROPPABLE_PARAMETERS` are answered; a 400 about messages, tools, input or a
    thinking signature names nothing to leave out.
    """
    if param:
        name = _top_level(param)
        return name if name in DROPPABLE_PARAMETERS else None
    if _SIGNATURE.search(message):
        return None
    if prefix := _LOC_PREFIX.match(message):  # "thinking.budget_tokens: Input should be ..."
        name = _top_level(prefix.group(1))
        if name in DROPPABLE_PARAMETERS:
            return name
    if not _CUE.search(message):
        return None
    for quoted in _QUOTED.finditer(message):
        name = _top_level(quoted.group(1))
        if name in DROPPABLE_PARAMETERS:
            return name
    words = re.finditer(r"(?<![\w.])([a-z_]+)(?:\.[\w.]+)?(?!\w)", message.lower())
    return next((m.group(1) for m in words if m.group(1) in _BARE), None)


OUTPUT_PARAMETERS = frozenset({"max_tokens", "max_output_tokens", "max_completion_tokens"})
"""The parameters that limit the answer's length, under each protocol's name."""

_ALLOWED_OUTPUT = (
    lazy_compile(r"\d+\s*>\s*(\d+),?\s*which is the maximum", re.IGNORECASE),  # Anthropic
    lazy_compile(r"(?:supports|allows|accepts)? at most (\d+)", re.IGNORECASE),  # OpenAI
    lazy_compile(r"(?:less than or equal to|<=|maximum(?: value)?(?: is| of)?:?)\s*(\d+)", re.IGNORECASE),
)
_ROOM_LEFT = lazy_compile(r"\d+\s*>\s*(\d+)\s*-\s*(\d+)")
"""vLLM's ``(30000 > 32768 - 3000)``: the window less the input is what the answer may take."""


def allowed_output(message: str) -> int | None:
    """The output limit a 400 about ``max_tokens`` (or its kin) says the endpoint allows, if it says."""
    if room := _ROOM_LEFT.search(message):
        return max(int(room.group(1)) - int(room.group(2)), 1)
    for pattern in _ALLOWED_OUTPUT:
        if found := pattern.search(message):
            return int(found.group(1)) or None
    return None


def format_duration(seconds: float) -> str:
    """``850ms``, ``2s``, ``1.5s``, ``4m 2s``, ``5m``, ``1h 5m``: a wait as a person reads it."""
    if seconds < 1:
        return f"{max(round(seconds * 1000), 0)}ms"
    if seconds < 10:
        return f"{round(seconds, 1):g}s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes}m {rest}s" if rest else f"{minutes}m"
    hours, rest = divmod(whole, 3600)
    minutes = rest // 60
    return f"{hours}h {minutes}m" if minutes else f"{hours}h"


__all__ = [
    "DROPPABLE_PARAMETERS",
    "OUTPUT_PARAMETERS",
    "PARAMETER_ALIASES",
    "allowed_output",
    "format_duration",
    "is_spent_quota",
    "parse_retry_after",
    "quota_note",
    "rejected_parameter",
    "request_keys",
    "should_retry_header",
]
