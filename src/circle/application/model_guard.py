"""GuardedModel: the retry policy and the deadlines of :mod:`circle.domain.retry`, around a ModelClient.

The guard is itself a :class:`~circle.application.ports.model_client.ModelClient`, so the loop
streams from it as from any model. For each request it:

- waits for the answer to start (:class:`~circle.domain.model.ResponseStarted` or any event)
  and for every next event of the stream, each within a deadline that doubles with every
  timeout of that request (:class:`~circle.domain.retry.TimeoutPolicy`); the wait for the start
  counts from :class:`~circle.domain.model.RequestSent` when the client says when it sends, so
  loading an SDK or writing a long body on a busy machine is not taken for a silent endpoint;
- on a failure, asks :func:`~circle.domain.retry.decide` whether to try again, reports the retry
  through ``on_retry`` (a :class:`~circle.application.events.RetryScheduled`), sleeps on the
  :class:`~circle.application.ports.clock.Clock` and sends the request again;
- when events of a failed attempt had already been yielded, yields
  :class:`~circle.domain.model.StreamRestarted` before the new attempt's events, so whoever
  assembles the answer drops the partial one (nothing partial reaches history);
- leaves a parameter the endpoint rejected out of every later request for that model, and
  lowers an output limit it refused to the one it says it allows, for every later request too
  (one guard serves an endpoint: every session, subagent and compaction learns from each);
- on giving up, raises the last error with `` (gave up after N retries)`` (or when a spent quota
  resets) added to its message.

The SDKs' own retries are off (``max_retries=0``), so these counts are exact. The waiting is
injectable: ``clock`` for backoffs and ``deadline`` (``asyncio.timeout`` by default) for the
deadlines, so a test can run the longest schedule at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

from circle.domain.endpoint_hints import format_duration
from circle.domain.errors import ModelConnectionError, ModelError
from circle.domain.model import ModelEvent, ModelRequest, RequestSent, ResponseStarted, StreamRestarted
from circle.domain.retry import GiveUp, Retry, RetryLedger, TimeoutPolicy, classify, decide

from .events import RetryScheduled
from .ports.clock import Clock
from .ports.model_client import ModelClient

log = logging.getLogger("circle.model")

Deadline = Callable[[float], AbstractAsyncContextManager[object]]
"""Makes a context that raises ``TimeoutError`` when its block runs longer than the seconds given."""


class GuardedModel:
    """A ModelClient that retries, times out stalled answers and drops rejected parameters.

    Args:
        inner: the model client to guard (its SDK's own retries off).
        clock: sleeps between tries, and measures the retry windows; asyncio's by default.
        timeouts: the deadlines for an answer to start and for a stream's next event.
        on_retry: called before each wait with what is retried and how long the wait is.
        jitter: a value in ``[0, 1)`` for each backoff; random by default.
        deadline: the timeout context used for the deadlines; ``asyncio.timeout`` by default.
    """

    def __init__(
        self,
        inner: ModelClient,
        *,
        clock: Clock | None = None,
        timeouts: TimeoutPolicy | None = None,
        on_retry: Callable[[RetryScheduled], None] | None = None,
        jitter: Callable[[], float] = random.random,
        deadline: Deadline = asyncio.timeout,
    ) -> None:
        self.inner = inner
        self._clock: Clock = clock or _LoopClock()
        self.timeouts = timeouts or TimeoutPolicy()
        self._on_retry = on_retry
        self._jitter = jitter
        self._deadline = deadline
        self._learned: dict[str, _Learned] = {}
        self.auto_retry = True
        """False: a failure is not tried again (a request the endpoint rejected a parameter of still
        is, without it: that corrects the request rather than waiting for the endpoint)."""
        self._waits: set[asyncio.Event] = set()

    @property
    def dropped_parameters(self) -> frozenset[str]:
        """The parameters the endpoint rejected (for any model), left out of its requests since."""
        return frozenset().union(*(learned.dropped for learned in self._learned.values()))

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """The answer to ``request``, tried again as the retry policy allows.

        Raises:
            ModelError: the last failure, once it is not retried (its message says why).
        """
        ledger = RetryLedger()
        while True:
            delivered = False
            try:
                learned = self._learned.setdefault(request.model, _Learned())
                attempt = self._attempt(learned.prepared(request), timeouts=ledger.retries("timeout"))
                async with contextlib.aclosing(attempt) as events:
                    async for event in events:
                        delivered = delivered or not isinstance(event, ResponseStarted)
                        yield event
                return
            except ModelError as error:
                retry = self._decide(error, ledger, learned)
                ledger = ledger.after(retry, now=self._clock.monotonic())
                learned.learn(retry)
                await self._wait(retry, error)
            if delivered:
                yield StreamRestarted()

    def _decide(self, error: ModelError, ledger: RetryLedger, learned: _Learned) -> Retry:
        """The retry to make after ``error``; raises ``error`` (with why) when there is none."""
        decision = decide(
            classify(error),
            ledger,
            now=self._clock.monotonic(),
            wall_time=self._clock.now(),
            jitter=self._jitter(),
            dropped=learned.dropped,
            output_cap=learned.output_cap,
        )
        if not isinstance(decision, GiveUp) and not self.auto_retry and decision.kind != "rejected_parameter":
            error.args = (error.message + " (automatic retries are off)", *error.args[1:])
            raise error
        if isinstance(decision, GiveUp):
            if decision.note:
                error.args = (error.message + decision.note, *error.args[1:])
            log.info("model request failed (%s), not retried: %s", decision.kind, error.message)
            raise error
        return decision

    async def _wait(self, retry: Retry, error: ModelError) -> None:
        log.info(
            "retrying a model request (%s %d/%d) in %s: %s",
            retry.kind,
            retry.attempt,
            retry.max_attempts,
            format_duration(retry.delay_s),
            error.message,
        )
        if self._on_retry is not None:
            self._on_retry(
                RetryScheduled(
                    kind=retry.kind,
                    attempt=retry.attempt,
                    max_attempts=retry.max_attempts,
                    delay_ms=round(retry.delay_s * 1000),
                    error=error.message,
                )
            )
        if retry.delay_s > 0 and await self._sleep_unless_aborted(retry.delay_s):
            error.args = (error.message + " (the retry was aborted)", *error.args[1:])
            raise error

    async def _sleep_unless_aborted(self, seconds: float) -> bool:
        """Wait ``seconds`` before a retry; True when :meth:`abort_retries` ended the wait first."""
        aborted = asyncio.Event()
        self._waits.add(aborted)
        sleeping = asyncio.ensure_future(self._clock.sleep(seconds))
        stopping = asyncio.ensure_future(aborted.wait())
        try:
            await asyncio.wait({sleeping, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeping.cancel()
            stopping.cancel()
            self._waits.discard(aborted)
        return aborted.is_set()

    def abort_retries(self) -> int:
        """End the waits before retries now: each request waiting fails with its last error.
        Returns how many were waiting."""
        for wait in self._waits:
            wait.set()
        return len(self._waits)

    async def _attempt(self, request: ModelRequest, *, timeouts: int) -> AsyncGenerator[ModelEvent]:
        """One try: the inner stream's events, each within its deadline."""
        start = self.timeouts.first_event_deadline(timeouts)
        stall = self.timeouts.stall_deadline(timeouts)
        events = aiter(self.inner.stream(request))
        started = False
        try:
            while True:
                limit = stall if started else start
                deadline = self._deadline(limit)
                try:
                    async with deadline:
                        event = await anext(events)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    raise _timed_out(started=started, limit=limit) from None
                except ModelError as error:  # a transport that turned the cancellation into its error
                    if _expired(deadline):
                        raise _timed_out(started=started, limit=limit) from error
                    raise
                if isinstance(event, RequestSent):  # the wait for the start begins again, from now
                    continue
                started = True
                yield event
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclasses.dataclass(slots=True)
class _Learned:
    """What the endpoint refused for one model: parameters to leave out, the output limit it allows."""

    dropped: frozenset[str] = frozenset()
    output_cap: int | None = None

    def learn(self, retry: Retry) -> None:
        if retry.parameter is not None:
            self.dropped = self.dropped | {retry.parameter}
        if retry.output_limit is not None:
            self.output_cap = retry.output_limit

    def prepared(self, request: ModelRequest) -> ModelRequest:
        """``request`` without the refused parameters, its output limit at most the allowed one."""
        if cap := self.output_cap:
            request = dataclasses.replace(
                request,
                output_limit=min(request.output_limit or cap, cap),
                max_output_tokens=min(request.max_output_tokens, cap) if request.max_output_tokens else None,
            )
        if self.dropped <= request.drop_parameters:
            return request
        return dataclasses.replace(request, drop_parameters=request.drop_parameters | self.dropped)


class _LoopClock:
    """The Clock port on the running event loop, for a guard built without one."""

    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def _expired(deadline: object) -> bool:
    expired = getattr(deadline, "expired", None)
    return bool(expired()) if callable(expired) else False


def _timed_out(*, started: bool, limit: float) -> ModelConnectionError:
    if started:
        text = f"the answer stalled: nothing came for {format_duration(limit)} (CIRCLE_LLM_STALL_TIMEOUT)"
    else:
        text = f"no answer within {format_duration(limit)} (CIRCLE_LLM_TIMEOUT)"
    return ModelConnectionError(text, kind="timeout")


__all__ = ["Deadline", "GuardedModel"]
