"""AnthropicWebSearch: web search through Anthropic's server tool ``web_search_20250305``.

A side request to the session's model over the session's own :class:`~.anthropic.AnthropicModel`
(so the same endpoint, key, proxy and certificates) with only the search tool enabled and a
short instruction to search the query. The answer streams as usual, read by the shared
:class:`~._anthropic_wire.StreamTranslator` (its text) and :class:`_KeepingTranslator` (the
blocks as they came): ``server_tool_use`` blocks carry the queries, ``web_search_tool_result``
blocks the pages (or a ``web_search_tool_result_error``), and the text's
``web_search_result_location`` citations the passages quoted.

An answer that stops with ``pause_turn`` (the server paused its own tool loop) is continued by
sending its content back as the assistant's message, up to :data:`MAX_CONTINUATIONS` times; a
continuation that fails leaves the pages found so far.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from circle.domain.errors import ModelError, ProviderProtocolError
from circle.domain.model import ModelEvent

from ._anthropic_wire import StreamTranslator, Wire
from ._native_search import INSTRUCTIONS, MAX_OUTPUT_TOKENS, MAX_SEARCHES, Findings, SideSearch, search_prompt
from .anthropic import AnthropicModel

MAX_CONTINUATIONS = 3
SEARCH_TOOL: Wire = {"type": "web_search_20250305", "name": "web_search", "max_uses": MAX_SEARCHES}


class _KeepingTranslator(StreamTranslator):
    """A :class:`StreamTranslator` that also keeps every content block whole, as the wire had it,
    so an answer paused by the server can be sent back as it came."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: dict[int, Wire] = {}
        self.stop_reason: str | None = None
        self._json: dict[int, list[str]] = {}

    def feed(self, data: Wire) -> list[ModelEvent]:
        if not self.done:
            self._keep(data)
        return super().feed(data)

    def _keep(self, data: Wire) -> None:
        kind, index = data.get("type"), data.get("index")
        if kind == "content_block_start" and isinstance(index, int):
            block = data.get("content_block")
            if isinstance(block, dict):
                self.blocks[index] = dict(block)
        elif kind == "content_block_delta" and isinstance(index, int) and index in self.blocks:
            delta = data.get("delta")
            if isinstance(delta, dict):
                self._add(index, self.blocks[index], delta)
        elif kind == "content_block_stop" and isinstance(index, int) and index in self._json:
            text = "".join(self._json.pop(index)).strip()
            if text:
                try:
                    self.blocks[index]["input"] = json.loads(text)
                except (ValueError, RecursionError):
                    raise ProviderProtocolError(
                        f"the endpoint sent a tool input that is not JSON: {text[:200]!r}"
                    ) from None
        elif kind == "message_delta" and isinstance(delta := data.get("delta"), dict):
            reason = delta.get("stop_reason")
            self.stop_reason = reason if isinstance(reason, str) else self.stop_reason

    def _add(self, index: int, block: Wire, delta: Wire) -> None:
        match delta.get("type"):
            case "text_delta":
                block["text"] = str(block.get("text") or "") + str(delta.get("text") or "")
            case "citations_delta" if isinstance(citation := delta.get("citation"), dict):
                block["citations"] = [*(block.get("citations") or ()), citation]
            case "input_json_delta":
                self._json.setdefault(index, []).append(str(delta.get("partial_json") or ""))
            case "thinking_delta":
                block["thinking"] = str(block.get("thinking") or "") + str(delta.get("thinking") or "")
            case "signature_delta":
                block["signature"] = delta.get("signature")
            case _:
                pass  # other deltas change nothing that is sent back

    def content(self) -> list[Wire]:
        """The answer's blocks in order, empty text left out (the API refuses it)."""
        blocks = [self.blocks[i] for i in sorted(self.blocks)]
        return [b for b in blocks if b.get("type") != "text" or b.get("text")]


class AnthropicWebSearch(SideSearch):
    """A :class:`~circle.application.ports.native_search.NativeSearch` over Anthropic Messages.

    Args:
        client: the session's model client (its owner closes it).
        model: the model to ask.
    """

    def __init__(self, client: AnthropicModel, *, model: str) -> None:
        super().__init__(model=model)
        self._client = client

    async def _search(self, query: str) -> Findings:
        findings = Findings()
        messages: list[Wire] = [{"role": "user", "content": [{"type": "text", "text": search_prompt(query)}]}]
        for round_ in range(MAX_CONTINUATIONS + 1):
            translator = _KeepingTranslator()
            try:
                text = await self._round(messages, translator, findings)
            except ModelError:
                if round_ == 0:
                    raise
                break  # a continuation failed: the pages found so far stand
            content = translator.content()
            _gather(findings, content)
            findings.add_text(text)
            if translator.stop_reason != "pause_turn" or not content:
                break
            messages = [*messages[:1], {"role": "assistant", "content": _continued(messages, content)}]
        return findings

    async def _round(self, messages: list[Wire], translator: _KeepingTranslator, findings: Findings) -> str:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": MAX_OUTPUT_TOKENS,
            "stream": True,
            "system": INSTRUCTIONS,
            "messages": messages,
            "tools": [SEARCH_TOOL],
        }
        pieces: list[str] = []
        events = self._client.send(json.dumps(body).encode(), translator)
        async with contextlib.aclosing(events) as stream:
            async for event in stream:
                findings.take(event, pieces)
        return "".join(pieces)


def _continued(messages: list[Wire], content: list[Wire]) -> list[Wire]:
    """The assistant's content so far: what earlier rounds said, then this round's blocks."""
    before = messages[1]["content"] if len(messages) > 1 else []
    return [*before, *content]


def _gather(findings: Findings, content: list[Wire]) -> None:
    """The queries, pages, errors and quoted passages of one answer's blocks."""
    for block in content:
        kind = block.get("type")
        if kind == "server_tool_use" and block.get("name") == "web_search":
            given = block.get("input")
            findings.query(given.get("query") if isinstance(given, dict) else None)
        elif kind == "web_search_tool_result":
            findings.searched = True
            results = block.get("content")
            if isinstance(results, dict):  # web_search_tool_result_error
                findings.errors.append(str(results.get("error_code") or "unknown_error"))
            for result in results if isinstance(results, list) else ():
                if isinstance(result, dict) and result.get("type") == "web_search_result":
                    findings.page(result.get("url"), result.get("title"))
        elif kind == "text":
            for citation in block.get("citations") or ():
                if isinstance(citation, dict) and citation.get("type") == "web_search_result_location":
                    findings.page(citation.get("url"), citation.get("title"), citation.get("cited_text"))


def for_model(client: object, *, model: str) -> AnthropicWebSearch | None:
    """The native search over ``client``; None when it is not an Anthropic client (a fake) or no
    model is named."""
    return AnthropicWebSearch(client, model=model) if isinstance(client, AnthropicModel) and model else None


__all__ = ["MAX_CONTINUATIONS", "AnthropicWebSearch", "for_model"]
