"""The agent loop: a model request, then the tool calls it asked for, until the model stops.

Tool calls run one after another, except that adjacent ``task`` calls run at the same time;
results are appended in call order. Cancellation is checked at every model and tool boundary,
and cancelling the running task stops a model stream or a command (with its process group).
A tool output's ``usage`` (a subagent's answers) counts in the turn's usage and cost, and in the
session's cost (kept in memory by the :class:`CostMeter`, since those answers are not stored).
So do the output tokens no endpoint counted (a stream stopped before its count came), guessed
from what streamed (:func:`~.guards.uncounted_tokens`): the turn's end says how many of its
tokens are guessed (``estimated``), so whatever shows the turn's count and the session's total
can mark both as estimates, and the two agree.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Literal
from uuid import uuid4

from pydantic import JsonValue

from circle.domain.budget import CompactionSettings, RequestBudget
from circle.domain.call_marks import outcome_of
from circle.domain.catalog import ModelInfo, unknown_model
from circle.domain.errors import CircleError, ContextOverflowError, TurnLimitError
from circle.domain.messages import (
    NOT_RUN_RESULT,
    STOPPED_RESULT,
    DocumentPart,
    ImagePart,
    Message,
    Shown,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
    close_unanswered,
    unanswered_tool_calls,
)
from circle.domain.model import ModelRequest
from circle.domain.thinking import ThinkingLevel
from circle.domain.tool_repair import RepairError

from .call_runs import CallRun, changed_note
from .compaction import CompactionOutcome, Compactor
from .context_window import ContextKeeper, requested_compaction
from .conversation import Conversation
from .events import (
    CompactionReason,
    ErrorReported,
    Steered,
    ToolExecutionEnded,
    ToolExecutionStarted,
    ToolExecutionUpdated,
    TurnEnded,
    TurnStarted,
)
from .guards import Sendable, ask_model, check_call, request_messages, with_repair_note
from .hooks import HookRunner
from .media import MediaFilter
from .ports.approver import ApprovalRequest
from .ports.call_log import CallLog
from .ports.event_sink import EventSink
from .ports.model_catalog import ModelCatalog
from .ports.model_client import ModelClient
from .spending import CostMeter
from .tools.base import ArgumentsChanged, Tool, ToolContext, ToolOutput, raise_if_changed
from .unanswered import PERSON_ASKED, WatchedApprover, stopped_end

log = logging.getLogger("circle.loop")
CURRENT_CALL: ContextVar[str | None] = ContextVar("circle_tool_call", default=None)
"""The id of the tool call running in this task (what a subagent it starts is tagged with)."""
PARALLEL_TOOLS = frozenset({"task"})
MAX_STOP_CONTINUATIONS = 3
LARGE_RESULT_CHARS = 60_000
LARGE_RESULT_HEAD = 20_000
LARGE_RESULT_TAIL = 5_000


@dataclass(frozen=True, slots=True)
class TurnResult:
    session_id: str
    answer: str
    usage: Usage
    incomplete: bool = False
    aborted: bool = False
    error: CircleError | None = None
    cost: float | None = None
    """US dollars this turn's answers cost; None when the model's price is unknown."""
    session_cost: float | None = None
    """US dollars the session's answers cost so far, this turn included; None when unknown."""
    estimated: int = 0
    """Of ``usage``'s output tokens, those guessed: no endpoint counted them."""


@dataclass
class LoopSettings:
    model: str
    system: str
    max_output_tokens: int | None = None
    thinking: ThinkingLevel | None = None
    max_rounds: int | None = None
    model_info: ModelInfo | None = None
    """What the catalog says of ``model``; unknown (no price) when not given."""
    budget_usd: float | None = None
    """The session budget: checked before each model request, a warning at 80%, a stop at 100%."""
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    """When to compact (``compaction`` in settings.json); the window is ``model_info``'s."""


QueueMode = Literal["all", "one-at-a-time"]
"""How queued steering messages or follow-ups are delivered."""


@dataclass
class Inbox:
    """Messages a person sends while a turn runs: steering (read before the next request)
    and follow-ups (each starts a new turn when one ends)."""

    steering: deque[str] = field(default_factory=deque)
    follow_ups: deque[str] = field(default_factory=deque)
    notices: deque[str] = field(default_factory=deque)
    """Background jobs' notices, read before the next request like steering (without a
    ``Steered`` event: nobody sent them)."""
    steering_mode: QueueMode = "all"
    """``all``: every steering message waiting is read before the next request; ``one-at-a-time``:
    the oldest only, the rest before the requests after it."""
    follow_up_mode: QueueMode = "one-at-a-time"
    """``one-at-a-time``: each follow-up starts a turn of its own; ``all``: the follow-ups waiting
    when a turn ends go together, as one message, in the next."""
    stop: bool = False
    """The person asked the turn to end once the call running now has its result (esc on an
    approval card): the calls after it are not run and no further request is sent."""

    def next_follow_up(self) -> str | None:
        """The follow-up (or, in ``all`` mode, the follow-ups joined) the next turn starts with."""
        if not self.follow_ups:
            return None
        if self.follow_up_mode == "one-at-a-time":
            return self.follow_ups.popleft()
        joined = "\n\n".join(self.follow_ups)
        self.follow_ups.clear()
        return joined

    def clear(self) -> tuple[list[str], list[str]]:
        """Take back the person's waiting messages: (steering, follow-ups)."""
        steering, follow_ups = list(self.steering), list(self.follow_ups)
        self.steering.clear()
        self.follow_ups.clear()
        return steering, follow_ups


class AgentLoop:
    def __init__(
        self,
        *,
        model: ModelClient,
        tools: dict[str, Tool],
        context: ToolContext,
        events: EventSink,
        settings: LoopSettings,
        catalog: ModelCatalog | None = None,
        hooks: HookRunner | None = None,
        compactor: Compactor | None = None,
        calls: CallLog | None = None,
    ) -> None:
        self.model = model
        self.hooks = hooks
        self.calls = calls
        """Where each call is marked started and finished, so a crash loses only its result."""
        self.tools = tools
        self.context = context
        self.events = events
        self.settings = settings
        self._specs = tuple(tool.spec() for tool in tools.values())
        info = settings.model_info or unknown_model(settings.model)
        self._media = MediaFilter(reads_images=info.reads_images, reads_pdfs=info.reads_pdfs)
        self._output_limit = info.max_output
        self._turn_start = 0
        self._turn_unstored = Usage()
        self._turn_estimated = 0
        self.estimated = 0
        """The output tokens of the session's answers no endpoint counted, guessed (in
        ``costs.unstored`` too: kept in memory, as those are not stored)."""
        self._stopped: Message | None = None  # what an answer stopped as it streamed had said
        self._sendable = Sendable()
        self._so_far: dict[str, str] = {}
        """The running calls' output so far by call id: a stopped call's result keeps it."""
        self._waited: set[str] = set()
        """The calls stopped while their approval waited for an answer: they never ran."""
        self._begun: set[str] = set()
        """The turn's calls that began; one a stop came before never ran."""
        budget = RequestBudget.for_model(
            info.context_window,
            max_output=settings.max_output_tokens or info.max_output,
            settings=settings.compaction,
        )
        if compactor is not None:
            budget = compactor.budget
        self.window = ContextKeeper(events=events, budget=budget, compactor=compactor)
        self.costs = CostMeter(
            settings.model,
            settings.model_info or unknown_model(settings.model),
            catalog=catalog,
            budget_usd=settings.budget_usd,
        )

    async def run_turn(
        self,
        conversation: Conversation,
        prompt: str | None,
        inbox: Inbox,
        *,
        media: Sequence[ImagePart | DocumentPart] = (),
        shown: Shown | None = None,
    ) -> TurnResult:
        """Run one turn for ``prompt`` (with the images and PDFs in ``media``, shown as ``shown``
        says), or for the job notices waiting when it is None. Steering messages a turn ended
        without reading (it was cancelled) are read before ``prompt``: they were typed first.

        Cancelling the task that runs it stops the turn at once: the text and thinking of an answer
        still streaming are stored as an ``aborted`` answer, unanswered tool calls get an "interrupted"
        result, and the turn returns with ``aborted`` set instead of raising.
        """
        await conversation.load()  # a session opened by its tail: the model reads all of it
        self.events.emit(TurnStarted(session_id=conversation.session_id, message=prompt))
        self._turn_unstored = Usage()
        self._turn_estimated = 0
        self._turn_start = len(conversation.messages)
        self._stopped = None
        self._so_far.clear()
        self._waited.clear()
        self._begun.clear()
        self.window.start_turn(self._turn_start)
        try:
            if prompt is not None:  # typed before this prompt, in a turn that ended without reading them
                await self._read_steering(conversation, inbox, every=True)
            turn_id = (
                None
                if prompt is None
                else await conversation.append(Message.user(prompt, media=media, shown=shown), self.events)
            )
            if self.context.journal is not None:
                self.context.journal.begin(turn_id, label=prompt or "")
            rounds = stops = 0
            inbox.stop = False
            while True:
                if inbox.stop:
                    for result in close_unanswered(conversation.messages, text=STOPPED_RESULT):
                        await conversation.append(result, self.events)
                    return self._end(conversation, "", aborted=True)
                await self._read_inbox(conversation, inbox)
                if (warning := self.costs.check(self.window.session_messages(conversation))) is not None:
                    self.events.emit(warning)
                answer = await self._ask_model(conversation)
                await conversation.append(answer, self.events)
                calls = answer.tool_calls
                if answer.stop_reason is not None and not answer.stop_reason.is_complete:
                    for result in close_unanswered(conversation.messages, text=NOT_RUN_RESULT):
                        await conversation.append(result, self.events)
                    return self._end(conversation, answer.text, incomplete=True)
                if not calls:
                    if inbox.steering:  # sent while the model answered: it reads them and goes on
                        continue
                    if await self._stop_hook_goes_on(conversation, answer.text, stops):
                        stops += 1
                        continue
                    return self._end(conversation, answer.text)
                await self._run_calls(conversation, calls, inbox)
                if (instructions := requested_compaction(calls)) is not None:
                    await self.compact(conversation, instructions=instructions)
                rounds += 1
                if self.settings.max_rounds is not None and rounds >= self.settings.max_rounds:
                    limit = TurnLimitError(f"stopped after {rounds} tool rounds (--max-turns)")
                    self.events.emit(ErrorReported(code=limit.code, message=limit.message))
                    return self._end(conversation, answer.text, incomplete=True, error=limit)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            kept = await asyncio.shield(self._record_interruption(conversation))
            return self._end(conversation, kept, aborted=True)
        except CircleError as exc:
            self.events.emit(ErrorReported(code=exc.code, message=exc.message))
            return self._end(conversation, "", error=exc)

    async def _read_inbox(self, conversation: Conversation, inbox: Inbox) -> None:
        while inbox.notices:
            notice = Message.user(inbox.notices.popleft(), shown=Shown(source="job"))
            await conversation.append(notice, self.events)
        await self._read_steering(conversation, inbox, every=inbox.steering_mode == "all")

    async def _read_steering(self, conversation: Conversation, inbox: Inbox, *, every: bool) -> None:
        while inbox.steering:
            text = inbox.steering.popleft()
            await conversation.append(Message.user(text), self.events)
            self.events.emit(Steered(session_id=conversation.session_id, message=text))
            if not every:
                break

    async def _ask_model(self, conversation: Conversation) -> Message:
        """One answer; compacted first when the request passes the budget, and once more (then
        sent again) when the endpoint says it overflowed."""
        system, name = self.settings.system, self.settings.model
        messages = self._messages(conversation)  # prepared once, again only if compacted
        compacted = await self.window.before_request(
            conversation, system=system, messages=messages, tools=self._specs
        )
        if compacted:
            messages = self._messages(conversation)
        try:
            request = self._request(messages)
            return await ask_model(
                self.model,
                request,
                events=self.events,
                model_name=name,
                stopped=self._keep,
                estimated=self._estimated,
            )
        except ContextOverflowError:
            if await self.compact(conversation, reason="overflow") is None:
                raise
            request = self._request(self._messages(conversation))
            return await ask_model(
                self.model,
                request,
                events=self.events,
                model_name=name,
                stopped=self._keep,
                estimated=self._estimated,
            )

    def _messages(self, conversation: Conversation) -> tuple[Message, ...]:
        sent = request_messages(conversation.messages, sendable=self._sendable)
        return self._media.apply(self.window.prune(sent))

    def _request(self, messages: tuple[Message, ...]) -> ModelRequest:
        return ModelRequest(
            model=self.settings.model,
            system=self.settings.system,
            messages=messages,
            tools=self._specs,
            max_output_tokens=self.settings.max_output_tokens,
            thinking=self.settings.thinking,
            output_limit=self._output_limit,
        )

    async def compact(
        self,
        conversation: Conversation,
        *,
        instructions: str | None = None,
        reason: CompactionReason = "manual",
    ) -> CompactionOutcome | None:
        """Compact the conversation now (/compact, compact_conversation); None when nothing was."""
        return await self.window.compact(
            conversation,
            reason=reason,
            system=self.settings.system,
            tools=self._specs,
            instructions=instructions,
        )

    async def _run_calls(
        self, conversation: Conversation, calls: Sequence[ToolCallPart], inbox: Inbox
    ) -> None:
        index = 0
        self._begun.clear()  # of this answer's calls (an id may come again in a later one)
        while index < len(calls) and not inbox.stop:
            group = [calls[index]]
            if calls[index].name in PARALLEL_TOOLS:
                while index + len(group) < len(calls) and calls[index + len(group)].name in PARALLEL_TOOLS:
                    group.append(calls[index + len(group)])
            waits = len(group) > 1  # a lone call's result is stored as it ends: no finished mark
            runs = (self._run_call(call, conversation.session_id, waits=waits) for call in group)
            results = await asyncio.gather(*runs)  # each in a task: a subagent's stop stays its own
            for result in results:
                await conversation.append(result, self.events)
            index += len(group)

    async def _run_call(self, call: ToolCallPart, session_id: str, *, waits: bool) -> Message:
        """Run one call; ``waits``: its result is stored only once the calls beside it end."""
        arguments = call.parsed_arguments()
        args_event: dict[str, JsonValue] = arguments if arguments is not None else {}
        self.events.emit(ToolExecutionStarted(tool_call_id=call.id, tool_name=call.name, args=args_event))
        self._begun.add(call.id)
        token = CURRENT_CALL.set(call.id)
        asking = PERSON_ASKED.set(lambda waiting: self._mark(session_id, call.id, asking=waiting))
        try:
            output = await self._invoke(call, session_id, waits=waits)
        except asyncio.CancelledError:  # stopped: its end is told now, as its record will say it
            self.events.emit(stopped_end(call, waited=call.id in self._waited))
            raise
        finally:
            PERSON_ASKED.reset(asking)
            CURRENT_CALL.reset(token)
        self._so_far.pop(call.id, None)
        if output.usage is not None:
            self._turn_unstored = self._turn_unstored + output.usage
            self.costs.count_unstored(output.usage)
        diff = None if output.diff is None else self.context.secrets.mask(output.diff)
        self.events.emit(
            ToolExecutionEnded(
                tool_call_id=call.id,
                tool_name=call.name,
                result=output.text,
                is_error=output.is_error,
                diff=diff,
                shown=output.shown,
            )
        )
        part = ToolResultPart(
            tool_call_id=call.id,
            tool_name=call.name,
            content=(TextPart(text=output.text), *output.attachments),
            is_error=output.is_error,
            diff=diff,
            shown=output.shown,
        )
        return Message(role="tool", parts=(part,))

    async def _invoke(self, call: ToolCallPart, session_id: str, *, waits: bool) -> ToolOutput:
        """Run a call, its name and arguments mended when clear and checked against the schema.

        Saved secrets written ``%NAME%`` get their values only here, as the tool runs (its approval
        shows ``%NAME%``); the values are written ``%NAME%`` again in the output. A call is marked
        finished only when its result ``waits`` for the calls beside it; otherwise the result,
        stored next, says so itself (see :mod:`circle.domain.call_marks`).
        """
        checked = check_call(call, {spec.name: spec.parameters for spec in self._specs})
        if isinstance(checked, RepairError):
            return ToolOutput(checked.message, is_error=True)
        run = CallRun(
            self.tools[checked.name],
            schema=next(spec.parameters for spec in self._specs if spec.name == checked.name),
            gate=lambda arguments: self._hook_gate(checked.name, arguments, call.id),
            started=lambda: self._mark(session_id, call.id),
            progress=self._progress(call),
            secrets=self.context.secrets,
        )
        outcome = await run.run(checked.arguments)
        if not outcome.started:
            return outcome.output
        output, arguments = outcome.output, outcome.arguments
        if arguments != checked.arguments:
            output = replace(output, text=f"{changed_note(arguments, by=outcome.changed_by)}\n{output.text}")
        output = with_repair_note(output, checked)
        if self.hooks is not None:
            said = await self.hooks.post_tool(
                checked.name, arguments, output.text, output.is_error, tool_use_id=call.id
            )
            if said:
                output = replace(output, text=f"{output.text}\n\n[PostToolUse hook] {said}")
        mask = self.context.secrets.mask
        text, shown = mask(output.text), None if output.shown is None else mask(output.shown)
        if text != output.text or shown != output.shown:
            output = replace(output, text=text, shown=shown)
        kept = await self._keep_large(output, call.id)
        if waits:
            await self._mark(session_id, call.id, finished=kept)
        return kept

    def _progress(self, call: ToolCallPart) -> Callable[[str], None]:
        """What a running call tells its output so far with: a ``ToolExecutionUpdated`` event."""
        args: dict[str, JsonValue] = call.parsed_arguments() or {}

        def report(partial: str) -> None:
            self._so_far[call.id] = partial
            self.events.emit(
                ToolExecutionUpdated(tool_call_id=call.id, tool_name=call.name, args=args, partial=partial)
            )

        return report

    async def _mark(
        self, session_id: str, call_id: str, *, finished: ToolOutput | None = None, asking: bool = False
    ) -> None:
        """Mark the call started (or finished, or ``asking``: its approval waits for the person; see
        :func:`~.unanswered.note_asking`): a failure to mark is logged and the work goes on."""
        if self.calls is None:
            return
        try:
            if asking:
                await self.calls.asking(session_id, call_id)
            elif finished is None:
                await self.calls.started(session_id, call_id)
            else:
                outcome = outcome_of(finished.text, is_error=finished.is_error)
                await self.calls.finished(session_id, call_id, outcome=outcome)
        except CircleError:
            log.warning("the call %s was not marked", call_id, exc_info=True)

    async def _keep_large(self, output: ToolOutput, call_id: str) -> ToolOutput:
        """A result too large for the conversation goes to /large_tool_results/; the model gets its
        head and tail and the path to read the rest with read_file."""
        data_dir = self.context.data_dir
        if data_dir is None or len(output.text) <= LARGE_RESULT_CHARS:
            return output
        name = f"{''.join(c if c.isalnum() or c in '-_' else '_' for c in call_id)}-{uuid4().hex[:8]}.txt"
        try:
            await self.context.files.write_bytes(
                f"{data_dir.rstrip('/')}/large_tool_results/{name}", output.text.encode("utf-8")
            )
        except OSError:
            log.warning("could not keep a large tool result in the data folder", exc_info=True)
            return output
        head, tail = output.text[:LARGE_RESULT_HEAD], output.text[-LARGE_RESULT_TAIL:]
        note = (
            f"\n\n[… {len(output.text) - len(head) - len(tail)} characters left out; the whole result "
            f"({len(output.text)} characters) is in /large_tool_results/{name}: read it with read_file, "
            "offset and limit …]\n\n"
        )
        return replace(output, text=head + note + tail)

    async def _hook_gate(
        self, name: str, arguments: dict[str, JsonValue], call_id: str
    ) -> ToolContext | ToolOutput:
        """The PreToolUse hooks' word: a refusal, or the context the tool runs with.

        A deny stands in every mode; an ask goes to the person (or is refused where nobody can
        answer); an allow lets the call skip asking, but never past a deny rule or a refusal.
        """
        watched = WatchedApprover.around(self.context.approver, self._waited, CURRENT_CALL.get)
        context = self.context.for_call(call_arguments=arguments, approver=watched)
        if self.hooks is None:
            return context
        verdict = await self.hooks.pre_tool(name, arguments, tool_use_id=call_id)
        if verdict.decision == "deny":
            return ToolOutput(
                f"blocked by a PreToolUse hook: {verdict.reason or verdict.hook}", is_error=True
            )
        if verdict.updated_input is not None and dict(verdict.updated_input) != arguments:
            raise ArgumentsChanged(verdict.updated_input, by="a PreToolUse hook", approved=False)
        if verdict.decision == "ask":
            summary = f"a PreToolUse hook asks about {name}: {verdict.reason or verdict.hook}"
            request = ApprovalRequest(
                tool_name=name,
                kind="other",
                summary=summary,
                workspace=context.workspace,
                always_ask=True,
                arguments=arguments,
            )
            decision = await context.approver.decide(request)
            if not decision.allowed:
                text = f"{name} was not approved: {decision.reason}"
                return ToolOutput(text, is_error=True, shown=decision.shown or None)
            raise_if_changed(decision, arguments)
        if verdict.decision in ("allow", "ask"):
            return context.for_call(hook_allowed=True)
        return context

    async def _stop_hook_goes_on(self, conversation: Conversation, answer: str, stops: int) -> bool:
        """A Stop hook saying "not yet" hands the model its reason; the turn goes on (3 times at most)."""
        if self.hooks is None or stops >= MAX_STOP_CONTINUATIONS:
            return False
        verdict = await self.hooks.stop(answer, active=stops > 0)
        if verdict.decision != "deny":
            return False
        await conversation.append(
            Message.user(f"[Stop hook] {verdict.reason or 'the Stop hook asks to go on'}"), self.events
        )
        return True

    def _keep(self, partial: Message) -> None:
        self._stopped = partial

    def _estimated(self, tokens: int) -> None:
        """Output tokens no endpoint counted: in the turn's count and the session's cost."""
        self._turn_estimated += tokens
        self.estimated += tokens
        self.costs.count_unstored(Usage(output=tokens))

    async def _record_interruption(self, conversation: Conversation) -> str:
        """Store what a stop left: the answer's text and thinking shown so far (its text returned:
        the turn's answer), results for unanswered calls (a running command's with its output so far;
        one stopped while its approval waited, and those after it, say they were not run)."""
        partial, self._stopped = self._stopped, None
        if partial is not None:
            await conversation.append(partial, self.events)
        mask = self.context.secrets.mask
        outputs = {call: mask(output) for call, output in self._so_far.items()}
        self._so_far.clear()
        unbegun = {call.id for call in unanswered_tool_calls(conversation.messages)} - self._begun
        closed = close_unanswered(
            conversation.messages, outputs=outputs, waiting=self._waited, unbegun=unbegun
        )
        for result in closed:
            await conversation.append(result, self.events)
        self._waited.clear()
        self._begun.clear()
        return "" if partial is None else partial.text

    def _end(
        self,
        conversation: Conversation,
        answer: str,
        *,
        incomplete: bool = False,
        aborted: bool = False,
        error: CircleError | None = None,
    ) -> TurnResult:
        unstored = self._turn_unstored + Usage(output=self._turn_estimated)
        usage = self.window.turn_usage(conversation) + unstored  # compactions' calls too
        cost = self.costs.total_cost(self.window.turn_messages(conversation), unstored)
        session_cost = self.costs.total_cost(self.window.session_messages(conversation), self.costs.unstored)
        self.events.emit(
            TurnEnded(
                session_id=conversation.session_id,
                answer=answer,
                usage=usage,
                incomplete=incomplete,
                aborted=aborted,
                error=error.message if error else None,
                error_code=error.code if error else None,
                cost=cost,
                session_cost=session_cost,
                estimated=self._turn_estimated,
            )
        )
        return TurnResult(
            session_id=conversation.session_id,
            answer=answer,
            usage=usage,
            incomplete=incomplete,
            aborted=aborted,
            error=error,
            cost=cost,
            session_cost=session_cost,
            estimated=self._turn_estimated,
        )


__all__ = ["AgentLoop", "Inbox", "LoopSettings", "QueueMode", "TurnResult"]
