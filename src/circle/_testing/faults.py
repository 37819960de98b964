"""Faulty answers for ScriptedGateway, in each wire protocol: the endpoint misbehaving on purpose.

:class:`Faults` builds, for one protocol (``openai-chat``, ``openai-responses`` or ``anthropic``),
good answers and broken ones: HTTP errors with that protocol's body, an error reported inside a
stream, malformed server-sent events, a stream without its finish, an answer cut at its output
limit, filtered or empty, a tool call whose JSON is cut short, a 400 naming a parameter, and text
that repeats itself. :func:`delayed`, :func:`stalled` and :func:`dropped` turn any response into
one whose headers come late, whose stream goes silent midway, or whose connection breaks after a
number of bytes. The retry tests (tests/contract/test_model_guard.py) play them per request.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Literal

from .gateway import GatewayResponse, chat_error, chat_text, chat_tool_calls
from .wire_scripts import Calls, anthropic_answer, responses_answer

Protocol = Literal["openai-chat", "openai-responses", "anthropic"]
PROTOCOLS: tuple[Protocol, ...] = ("openai-chat", "openai-responses", "anthropic")
_SSE = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
_JSON = {"content-type": "application/json"}


def delayed(response: GatewayResponse, seconds: float) -> GatewayResponse:
    """``response`` with its headers sent ``seconds`` late."""
    return dataclasses.replace(response, delay_s=seconds)


def stalled(response: GatewayResponse, seconds: float, *, after: int = 2) -> GatewayResponse:
    """``response`` silent for ``seconds`` after its first ``after`` chunks."""
    return dataclasses.replace(response, stall_after=after, stall_s=seconds)


def dropped(response: GatewayResponse, after_bytes: int) -> GatewayResponse:
    """``response`` whose connection breaks once ``after_bytes`` bytes of its body went out."""
    return dataclasses.replace(response, drop_after_bytes=after_bytes)


def _data(payload: object, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


def _sse(chunks: list[bytes]) -> GatewayResponse:
    return GatewayResponse(200, dict(_SSE), b"", chunks)


class Faults:
    """Good and broken answers in the wire format of ``protocol``."""

    def __init__(self, protocol: Protocol) -> None:
        self.protocol = protocol

    # --- good answers ---------------------------------------------------------------------------

    def answer(self, text: str = "", calls: Calls | None = None) -> GatewayResponse:
        """A complete streamed answer: text, then tool calls ``(id, name, arguments)``."""
        if self.protocol == "openai-chat":
            return chat_tool_calls(calls, text=text) if calls else chat_text(text)
        if self.protocol == "openai-responses":
            return responses_answer(text, calls)
        return anthropic_answer(text, calls)

    def _content(self, text: str, calls: Calls | None = None) -> list[bytes]:
        """The chunks of an answer up to its content, without anything that ends it."""
        chunks = list(self.answer(text, calls).chunks or [])
        if self.protocol == "openai-chat":
            return chunks[:-3]  # the finish, usage and [DONE] chunks
        if self.protocol == "openai-responses":
            return [c for c in chunks if b"output_item.done" not in c and b"response.completed" not in c]
        ends = (b"event: content_block_stop", b"event: message_delta", b"event: message_stop")
        return [c for c in chunks if not c.startswith(ends)]

    # --- HTTP errors ----------------------------------------------------------------------------

    def error(
        self,
        status: int,
        message: str = "the endpoint failed",
        *,
        headers: dict[str, str] | None = None,
        error_type: str | None = None,
        param: str | None = None,
    ) -> GatewayResponse:
        """A JSON error answer with ``status``, shaped as this protocol's endpoints send it."""
        if self.protocol != "anthropic":
            response = chat_error(status, message, headers=headers)
            if param is None and error_type is None:
                return response
            body = json.loads(response.body)
            body["error"].update({k: v for k, v in (("param", param), ("type", error_type)) if v})
            return dataclasses.replace(response, body=json.dumps(body).encode())
        kind = error_type or {
            400: "invalid_request_error",
            401: "authentication_error",
            429: "rate_limit_error",
            529: "overloaded_error",
        }.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message}}
        return GatewayResponse(status, {**_JSON, **(headers or {})}, json.dumps(body).encode())

    def rejected(self, parameter: str) -> GatewayResponse:
        """A 400 that names ``parameter`` as one the endpoint does not take."""
        if self.protocol == "anthropic":
            return self.error(400, f"{parameter}: Extra inputs are not permitted")
        message = f"Unsupported parameter: '{parameter}' is not supported with this model."
        return self.error(400, message, param=parameter)

    # --- broken streams -------------------------------------------------------------------------

    def stream_error(self, text: str = "Half an answ", *, server: bool = False) -> GatewayResponse:
        """Some text, then an error event in the stream: an unknown one, or an overloaded server."""
        if self.protocol == "openai-chat":
            error: dict[str, Any] = {"message": "Upstream failed", "code": 502 if server else "weird"}
            tail = _data({"error": error})
        elif self.protocol == "openai-responses":
            error = {"code": "server_error" if server else "weird", "message": "The model had a problem."}
            tail = _data({"type": "response.failed", "response": {"status": "failed", "error": error}})
        else:
            kind = "overloaded_error" if server else "weird_error"
            tail = _data({"type": "error", "error": {"type": kind, "message": "Overloaded"}}, "error")
        return _sse([*self._content(text), tail])

    def malformed(self, text: str = "Half an answ") -> GatewayResponse:
        """Some text, then an event whose data is not JSON."""
        return _sse([*self._content(text), b'data: {"choices": [{"delta": \n\n'])

    def missing_finish(self, text: str = "An answer without its end") -> GatewayResponse:
        """A stream that ends cleanly but never says how the answer finished."""
        chunks = self._content(text)
        return _sse([*chunks, b"data: [DONE]\n\n"] if self.protocol == "openai-chat" else chunks)

    def cut_tool_call(self, name: str, arguments: dict[str, Any]) -> GatewayResponse:
        """A tool call whose JSON arguments are cut short (their last piece never comes), and no finish."""
        marker = {
            "openai-chat": b'"function":{"arguments"',
            "openai-responses": b"function_call_arguments.delta",
            "anthropic": b"input_json_delta",
        }[self.protocol]
        chunks = self._content("", [("call_cut", name, arguments)])
        del chunks[max(i for i, chunk in enumerate(chunks) if marker in chunk)]
        return _sse([*chunks, b"data: [DONE]\n\n"] if self.protocol == "openai-chat" else chunks)

    def stopped(self, reason: Literal["length", "filtered"], text: str = "An answer cut") -> GatewayResponse:
        """An answer that ends at its output limit or is filtered, with a tool call it asked for."""
        calls: Calls = [("call_1", "ls", {})]
        chunks = self._content(text, calls)
        if self.protocol == "openai-chat":
            finish = {"length": "length", "filtered": "content_filter"}[reason]
            choice = {"index": 0, "delta": {}, "finish_reason": finish}
            end = {"id": "c", "object": "chat.completion.chunk", "model": "scripted", "choices": [choice]}
            return _sse([*chunks, _data(end), b"data: [DONE]\n\n"])
        if self.protocol == "openai-responses":
            why = {"length": "max_output_tokens", "filtered": "content_filter"}[reason]
            details = {"reason": why}
            response = {"id": "r", "status": "incomplete", "output": [], "incomplete_details": details}
            return _sse([*chunks, _data({"type": "response.incomplete", "response": response})])
        stop = {"length": "max_tokens", "filtered": "refusal"}[reason]
        delta = {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}}
        return _sse([*chunks, _data(delta, "message_delta"), _data({"type": "message_stop"}, "message_stop")])

    def empty(self) -> GatewayResponse:
        """A complete answer with no content at all."""
        return self.answer("")

    def repeating(self, sentence: str, times: int) -> GatewayResponse:
        """A complete answer whose text is ``sentence`` over and over."""
        return self.answer(sentence * times)


__all__ = ["PROTOCOLS", "Faults", "Protocol", "delayed", "dropped", "stalled"]
