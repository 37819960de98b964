"""OpenAIResponsesWebSearch: web search through the Responses API's hosted ``web_search`` tool.

A side request to the session's model over the session's own
:class:`~.openai_responses.OpenAIResponsesModel` (so the same endpoint, key, proxy and
certificates) with only the search tool enabled, a short instruction to search the query, and
``web_search_call.action.sources`` included. The answer is read by the shared
:class:`~._openai_responses_wire.EventTranslator` (its text, its errors, its end) and
:class:`_KeepingTranslator`, which also keeps the finished output items: ``web_search_call``
items carry the queries and the sources, the ``message`` item's ``url_citation`` annotations the
pages the answer cites (their snippet is the passage of the answer that cites them).

Chat Completions has no such tool (``web_search_options`` is for search-preview models only and
other models refuse it), so there is no native search for that protocol.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from circle.domain.model import ModelEvent

from ._native_search import INSTRUCTIONS, Findings, SideSearch, search_prompt
from ._openai_responses_wire import EventTranslator, Wire
from .openai_responses import OpenAIResponsesModel

SEARCH_TOOL: Wire = {"type": "web_search"}
_TERMINAL = ("response.completed", "response.incomplete")


class _KeepingTranslator(EventTranslator):
    """An :class:`EventTranslator` that also keeps the answer's finished output items."""

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[str, Wire] = {}

    def feed(self, event: object, *, name: str | None = None) -> list[ModelEvent]:
        if isinstance(event, dict) and not self.done:
            kind = event.get("type") or name
            if kind == "response.output_item.done":
                self._keep(event.get("item"))
            elif kind in _TERMINAL and isinstance(response := event.get("response"), dict):
                for item in response.get("output") or ():  # a non-streamed answer, or items left out
                    self._keep(item)
        return super().feed(event, name=name)

    def _keep(self, item: object) -> None:
        if isinstance(item, dict):
            key = item.get("id")
            self.items.setdefault(key if isinstance(key, str) and key else f"#{len(self.items)}", item)


class OpenAIResponsesWebSearch(SideSearch):
    """A :class:`~circle.application.ports.native_search.NativeSearch` over the Responses API.

    Args:
        client: the session's model client (its owner closes it).
        model: the model to ask.
    """

    def __init__(self, client: OpenAIResponsesModel, *, model: str) -> None:
        super().__init__(model=model)
        self._client = client

    async def _search(self, query: str) -> Findings:
        body: dict[str, Any] = {
            "model": self.model,
            "stream": True,
            "store": False,
            "instructions": INSTRUCTIONS,
            "input": [{"role": "user", "content": search_prompt(query)}],
            "tools": [SEARCH_TOOL],
            "include": ["web_search_call.action.sources"],
        }
        translator = _KeepingTranslator()
        findings = Findings()
        pieces: list[str] = []
        async with contextlib.aclosing(self._client.send(json.dumps(body).encode(), translator)) as events:
            async for event in events:
                findings.take(event, pieces)
        _gather(findings, list(translator.items.values()))
        findings.add_text("".join(pieces))
        return findings


def _gather(findings: Findings, items: list[Wire]) -> None:
    """The queries, cited pages, sources and errors of the answer's output items."""
    sources: list[object] = []
    for item in items:
        kind = item.get("type")
        if kind == "web_search_call":
            findings.searched = True
            action = item.get("action")
            action = action if isinstance(action, dict) else {}
            findings.query(action.get("query"))
            for query in action.get("queries") or ():
                findings.query(query)
            sources += [s.get("url") for s in action.get("sources") or () if isinstance(s, dict)]
            if item.get("status") == "failed":
                findings.errors.append("failed")
        elif kind == "message":
            for part in item.get("content") or ():
                if isinstance(part, dict) and part.get("type") == "output_text":
                    _citations(findings, part)
    for url in sources:  # after the cited pages, which come with titles
        findings.page(url)


def _citations(findings: Findings, part: Wire) -> None:
    text = part.get("text")
    text = text if isinstance(text, str) else ""
    for note in part.get("annotations") or ():
        if not isinstance(note, dict) or note.get("type") != "url_citation":
            continue
        start, end = note.get("start_index"), note.get("end_index")
        cited = text[start:end] if isinstance(start, int) and isinstance(end, int) else ""
        findings.page(note.get("url"), note.get("title"), cited)


def for_model(client: object, *, model: str) -> OpenAIResponsesWebSearch | None:
    """The native search over ``client``; None when it is not a Responses client (a fake) or no
    model is named."""
    if isinstance(client, OpenAIResponsesModel) and model:
        return OpenAIResponsesWebSearch(client, model=model)
    return None


__all__ = ["OpenAIResponsesWebSearch", "for_model"]
