"""The loopback gateway's answers for the RPC scenario ``tests/e2e/pi_rpc_client.mjs`` plays, chosen
from each request itself, so that Circle and pi (whose requests differ) get the same answers."""

from __future__ import annotations

import dataclasses
import itertools
import json
from typing import Any

from .gateway import GatewayResponse, RecordedRequest, chat_text, chat_tool_calls

_ids = itertools.count(1)
COMMANDS = {"look around": "ls", "run a long command": "sleep 30", "run a short command": "sleep 1.5"}
"""What the model runs for each of the scenario's prompts that calls a tool."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _command_tool(body: dict[str, Any]) -> str:
    names = {tool.get("function", {}).get("name") for tool in body.get("tools") or []}
    return "execute" if "execute" in names else "bash"


def scenario_answer(request: RecordedRequest) -> GatewayResponse:
    """A tool call for the prompts of :data:`COMMANDS`, a stalled answer for "stall please", a
    greeting for anything else, and "Done." once a tool has answered."""
    body = request.json()
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "tool":
        return chat_text("Done.")
    users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    last = users[-1] if users else ""
    if last.rstrip().endswith("stall please"):
        return dataclasses.replace(chat_text("Partial answer that never ends."), stall_after=2, stall_s=30)
    for prompt, command in COMMANDS.items():
        if last.rstrip().endswith(prompt):
            call = (f"call_{next(_ids)}", _command_tool(body), {"command": command})
            return chat_tool_calls([call], text="Looking.")
    return chat_text("Hello there.")


def pi_models_json(base_url: str, *, model: str = "scripted") -> str:
    """pi's ``~/.pi/agent/models.json`` naming the gateway as the provider ``loopback``."""
    provider = {
        "baseUrl": base_url,
        "api": "openai-completions",
        "apiKey": "test-key",
        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
        "models": [{"id": model, "contextWindow": 128000, "maxTokens": 8192}],
    }
    return json.dumps({"providers": {"loopback": provider}})


__all__ = ["COMMANDS", "pi_models_json", "scenario_answer"]
