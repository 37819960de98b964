"""Compaction: older messages summarized by the model, the session tree extended, nothing rewritten.

:class:`Compactor` plans with :func:`~circle.domain.compaction.plan_compaction`, asks the model for
a summary (a plain request without tools), saves the full text of what it replaces in the data
folder (``projects/<folder>-<id>/conversation_history/``, through the FileSystem port), then
commits in one transaction (:class:`~.ports.compaction_store.CompactionStore`): a new chain
``[summary, pinned..., kept...]`` becomes the branch's path, and the record links the summary to
the checkpoints it replaced. Until that commit nothing changes, so a failure or a kill leaves the
session as it was. Pinned: the newest request, the latest todo list and plan rounds; the system
prompt (instruction files included) is rebuilt for every request and never summarized.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass, field

from circle.domain.budget import RequestBudget, messages_tokens, text_tokens
from circle.domain.checkpoints import Checkpoint
from circle.domain.compaction import (
    CompactionPlan,
    is_summary,
    pinned_rounds,
    plan_compaction,
    summary_message,
)
from circle.domain.errors import ModelError
from circle.domain.file_lists import FileLists, file_lists
from circle.domain.messages import Message, Usage
from circle.domain.model import AnswerAssembler, ModelRequest
from circle.domain.transcript import history_file, transcript

from .conversation import Conversation
from .ports.compaction_store import CompactionRecord, CompactionStore
from .ports.file_system import FileSystem
from .ports.model_client import ModelClient
from .prompts import load_prompt

log = logging.getLogger("circle.compaction")
CLIP_TOOL_OUTPUT = 2_000
"""Characters of each tool output the summary request shows (the history file keeps all)."""


@dataclass(frozen=True, slots=True)
class CompactionOutcome:
    """A committed compaction: its record, its plan, and what it did to the conversation."""

    record: CompactionRecord
    plan: CompactionPlan
    before: tuple[Message, ...]
    summary_answer: Message
    tokens_after: int
    files: FileLists = field(default_factory=FileLists)
    """What the summarized work read and changed, an earlier summary's among it included."""

    @property
    def summarized(self) -> int:
        return len(self.plan.summarize)

    @property
    def kept(self) -> int:
        return len(self.plan.pinned) + len(self.plan.kept)

    def retired(self, since: int = 0) -> list[Message]:
        """The answers that left the conversation (from index ``since`` on), and the summary's own:
        what the session's cost must still count. Pinned copies carry no usage, so their originals
        are counted here."""
        gone = sorted({*self.plan.summarize, *self.plan.pinned})
        answers = [self.before[i] for i in gone if i >= since and self.before[i].role == "assistant"]
        return [*answers, self.summary_answer]

    def moved(self, index: int) -> int:
        """Where the message at ``index`` before the compaction (or the first kept after it) is now."""
        return 1 + len(self.plan.pinned) + max(0, index - self.plan.keep_from)


class Compactor:
    """Compacts conversations (see the module docstring).

    Args:
        model: the client that writes the summary.
        store: where the compaction is committed.
        budget: the request budget the compacted conversation must fit.
        model_name: the model to ask.
        files: the FileSystem the history file is written with (absolute paths).
        data_dir: the data folder; None: no history file is written.
        workspace: the workspace, which names the project folder in the data folder.
    """

    def __init__(
        self,
        *,
        model: ModelClient,
        store: CompactionStore,
        budget: RequestBudget,
        model_name: str,
        files: FileSystem | None = None,
        data_dir: str | None = None,
        workspace: str = "",
    ) -> None:
        self.model = model
        self.store = store
        self.budget = budget
        self.model_name = model_name
        self.files = files
        self.data_dir = data_dir
        self.workspace = workspace

    def plan(
        self, messages: list[Message], *, fixed_tokens: int = 0, shrink: bool = False, scale: float = 1.0
    ) -> CompactionPlan:
        """The plan for ``messages``. With ``shrink`` (on request, after an overflow) the tail kept is
        a tenth of the conversation when that is less than a tenth of the window. ``scale``: the
        endpoint's tokens for each estimated one (see :func:`~circle.domain.compaction.plan_compaction`)."""
        budget = self.budget
        if shrink and budget.context_window > 0:
            share = budget.keep * messages_tokens(messages) * scale / budget.context_window
            budget = dataclasses.replace(budget, keep=min(budget.keep, share))
        return plan_compaction(
            messages, budget, pinned_indices=pinned_rounds(messages), fixed_tokens=fixed_tokens, scale=scale
        )

    async def compact(
        self,
        conversation: Conversation,
        *,
        fixed_tokens: int = 0,
        instructions: str | None = None,
        shrink: bool = False,
        scale: float = 1.0,
    ) -> CompactionOutcome | None:
        """Compact ``conversation``; None when there is nothing to summarize (see :meth:`plan`).

        Raises:
            ModelError: the summary could not be written (nothing changed).
            StorageError: the commit failed (nothing changed).
        """
        await conversation.load()
        checkpoints = await conversation.history()
        messages = [cp.message for cp in checkpoints]
        plan = self.plan(messages, fixed_tokens=fixed_tokens, shrink=shrink, scale=scale)
        if not plan.summarize:
            return None
        replaced = [messages[i] for i in plan.summarize]
        files = file_lists(await self._stood_for(conversation, [checkpoints[i] for i in plan.summarize]))
        answer = await self._summarize(replaced, instructions, scale=scale)
        path = await self._save(conversation.session_id, replaced)
        note = f"\n\n({len(replaced)} earlier messages are summarized here"
        note += f"; their full text is saved in {path})" if path else "; they stay in the session)"
        summary = summary_message(answer.text + note)  # with its call's usage: the session paid for it
        summary = summary.model_copy(update={"usage": answer.usage, "model": answer.model})
        carried = [messages[i].model_copy(update={"usage": None}) for i in plan.pinned]
        carried += messages[plan.keep_from :]
        record, _ = await self.store.commit(
            conversation.session_id,
            summary=summary,
            carried=carried,
            replaced_ids=[checkpoints[i].id for i in plan.summarize],
            previous_head_id=checkpoints[-1].id if checkpoints else None,
            history_file=path,
            branch=conversation.branch,
        )
        after = [summary, *carried]
        conversation.messages[:] = after  # the store's path is now this; the list is the loop's view of it
        log.info("compacted %d messages into a summary; %d kept", len(replaced), len(carried))
        return CompactionOutcome(
            record=record,
            plan=plan,
            before=tuple(messages),
            summary_answer=answer,
            tokens_after=math.ceil((fixed_tokens + messages_tokens(after)) * scale),
            files=files,
        )

    async def _stood_for(self, conversation: Conversation, replaced: list[Checkpoint]) -> list[Message]:
        """The messages ``replaced`` stand for: an earlier summary among them stands for what its
        compaction replaced (still stored), so its files carry over, as pi's do."""
        if not any(is_summary(cp.message) for cp in replaced):
            return [cp.message for cp in replaced]
        records = {r.summary_checkpoint_id: r for r in await self.store.compactions(conversation.session_id)}
        stored = {cp.id: cp for cp in await conversation.checkpoints()}
        found: list[Message] = []
        todo, seen = list(reversed(replaced)), set[str]()
        while todo:
            checkpoint = todo.pop()
            if checkpoint.id in seen:
                continue
            seen.add(checkpoint.id)
            record = records.get(checkpoint.id)
            if record is None:
                found.append(checkpoint.message)
                continue
            todo += [stored[i] for i in reversed(record.replaced_ids) if i in stored]
        return found

    async def _summarize(self, replaced: list[Message], instructions: str | None, *, scale: float) -> Message:
        room = self.budget.context_window - self.budget.summary_tokens - self.budget.reserve_output // 2
        prompt = load_prompt("compaction/summary.md")
        max_chars = max(4_000, int((room - text_tokens(prompt) - 512) * 4 / scale))
        text = transcript(replaced, clip=CLIP_TOOL_OUTPUT, max_chars=max_chars)
        ask = f"<transcript>\n{text}\n</transcript>"
        if instructions:
            ask += f"\n\nWhat to keep or focus on, as asked: {instructions}"
        request = ModelRequest(
            model=self.model_name,
            system=prompt,
            messages=(Message.user(ask),),
            max_output_tokens=self.budget.summary_tokens,
        )
        assembler = AnswerAssembler()
        async for event in self.model.stream(request):
            assembler.add(event)
        answer = assembler.message(model=self.model_name)
        if not answer.text.strip():  # a summary cut at its length limit is still worth keeping
            raise ModelError(f"the summary came back empty ({answer.stop_reason}): nothing was compacted")
        return answer.model_copy(update={"usage": answer.usage or Usage()})

    async def _save(self, session_id: str, replaced: list[Message]) -> str | None:
        if self.files is None or self.data_dir is None:
            return None
        number = len(await self.store.compactions(session_id)) + 1
        path = history_file(self.data_dir, self.workspace, session_id, number)
        header = (
            f"# Session {session_id}: compaction {number}\n\nThe messages this compaction summarized.\n\n"
        )
        try:
            await self.files.write_bytes(path, (header + transcript(replaced)).encode())
        except OSError as exc:  # the session keeps the originals; the file is a convenience
            log.warning("could not save the conversation history to %s: %s", path, exc)
            return None
        return path


__all__ = ["CompactionOutcome", "Compactor"]
