"""``--rpc-approvals``: the client answers what asks, through pi's extension UI sub-protocol.

A call that would ask writes an ``extension_ui_request`` and waits for the client's
``extension_ui_response`` with the same ``id``:

- a command or a file change: ``method: "confirm"``, ``title`` the question, ``message`` the call's
  summary, why it asks and (for a file change) its diff; ``confirmed: true`` allows it once;
- a question of the model with options: ``method: "select"`` (``value``: the option chosen);
  without options: ``method: "input"`` (``value``: the answer typed).

It fails closed: an answer of another shape, ``cancelled: true``, no answer within ``timeout``
(milliseconds, also in the request), or the input closing while it waits, each deny the call (or
dismiss the question). ``details`` carries the call as Circle knows it (tool, kind, summary, diff).
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence

from pydantic import JsonValue

from circle.application.ports.approver import ApprovalDecision, ApprovalRequest
from circle.application.ports.asker import Answer, Question

from ._rpc_io import Output

DEFAULT_TIMEOUT_S = 300.0
TIMEOUT_ENV = "CIRCLE_RPC_APPROVAL_TIMEOUT"
Previewer = Callable[[ApprovalRequest], Awaitable[str | None]]


def approval_timeout_s(env: Mapping[str, str]) -> float:
    """``CIRCLE_RPC_APPROVAL_TIMEOUT``: seconds a request waits for its answer (300 by default)."""
    try:
        value = float(env.get(TIMEOUT_ENV, "") or DEFAULT_TIMEOUT_S)
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if value > 0 and math.isfinite(value) else DEFAULT_TIMEOUT_S


class RpcApprovals:
    """An :class:`~circle.application.ports.approver.Approver` and an
    :class:`~circle.application.ports.asker.Asker` whose person is the RPC client."""

    def __init__(self, out: Output, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.out = out
        self.timeout_s = timeout_s
        self.previewer: Previewer | None = None
        """Makes the diff of a file change (the interface's previews)."""
        self._waiting: dict[str, asyncio.Future[Mapping[str, JsonValue]]] = {}
        self._ids = itertools.count(1)
        self._closed = False

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        diff = await self.previewer(request) if self.previewer is not None else None
        message = "\n\n".join(part for part in (request.summary, request.ask_reason, diff) if part)
        details: dict[str, JsonValue] = {
            "toolName": request.tool_name,
            "kind": request.kind,
            "summary": request.summary,
            "reason": request.ask_reason,
            "diff": diff,
        }
        title = f"Allow {request.tool_name}?"
        answer = await self._ask(
            {"method": "confirm", "title": title, "message": message, "details": details}
        )
        if answer is None:
            why = "went away" if self._closed or self.out.closed else "did not answer in time"
            return ApprovalDecision(allowed=False, reason=f"the RPC client {why} (denied)")
        if answer.get("confirmed") is True:
            return ApprovalDecision(allowed=True)
        return ApprovalDecision(allowed=False, reason="the RPC client denied it")

    async def ask(self, questions: Sequence[Question]) -> list[Answer] | None:
        answers: list[Answer] = []
        for question in questions:
            if question.options:
                request: dict[str, JsonValue] = {"method": "select", "options": list(question.options)}
            else:
                request = {"method": "input", "placeholder": "your answer"}
            answer = await self._ask({**request, "title": question.question})
            value = None if answer is None else answer.get("value")
            if not isinstance(value, str):
                return None  # dismissed, late or gone: the model goes on without the answers
            if question.options and value not in question.options:
                answers.append(Answer(text=value))
            else:
                answers.append(Answer(chosen=(value,)) if question.options else Answer(text=value))
        return answers

    def answer(self, response: Mapping[str, JsonValue]) -> bool:
        """The client's ``extension_ui_response``; False when nothing waits for its ``id``."""
        ident = response.get("id")
        future = self._waiting.get(ident) if isinstance(ident, str) else None
        if future is None or future.done():
            return False
        future.set_result(response)
        return True

    def close(self) -> None:
        """The input closed: what waits, and what asks from now on, is denied."""
        self._closed = True
        for future in self._waiting.values():
            if not future.done():
                future.cancel()

    async def _ask(self, request: dict[str, JsonValue]) -> Mapping[str, JsonValue] | None:
        if self._closed or self.out.closed:
            return None
        ident = f"approval-{next(self._ids)}"
        future: asyncio.Future[Mapping[str, JsonValue]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        timeout_ms = round(self.timeout_s * 1000)
        self.out.write({"type": "extension_ui_request", "id": ident, **request, "timeout": timeout_ms})
        try:
            async with asyncio.timeout(self.timeout_s):
                return await asyncio.shield(future)
        except TimeoutError:
            return None
        except asyncio.CancelledError:
            if future.cancelled():  # closed while it waited
                return None
            raise
        finally:
            self._waiting.pop(ident, None)
            future.cancel()


__all__ = ["RpcApprovals", "approval_timeout_s"]
