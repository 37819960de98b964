"""The rules in approvals.json judge a ``@circle.tool`` call by its arguments, as they are shown
(JSON, keys sorted), the way they judge a command by its text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import circle
from circle.testing import Call, InMemorySessionStore, ScriptedModel, answer


@circle.tool
def send(to: str, amount: int) -> str:
    """Send money."""
    return f"sent {amount} to {to}"


def _rules(rules: list[dict[str, str]]) -> None:
    home = Path(os.environ["CIRCLE_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "approvals.json").write_text(json.dumps(rules))


async def _told(tmp_path: Path, to: str, **options: object) -> str:
    model = ScriptedModel([answer("", Call("send", {"to": to, "amount": 5})), answer("ok")])
    async with circle.Agent(
        tmp_path, model_client=model, store=InMemorySessionStore(), trust=True, tools=[send], **options
    ) as agent:
        await agent.run("pay")
    return model.requests[-1].messages[-1].text


async def test_a_deny_rule_matching_a_custom_tools_arguments_blocks_it_even_in_auto_mode(
    tmp_path: Path,
) -> None:
    _rules([{"tool": "send", "pattern": '*"to": "mallory"*', "effect": "deny"}])
    assert "denied by your approvals.json" in await _told(tmp_path, "mallory", approval_mode="auto")
    assert await _told(tmp_path, "bob", approval_mode="auto") == "sent 5 to bob"


async def test_an_allow_rule_matching_a_custom_tools_arguments_lets_it_run_unasked(tmp_path: Path) -> None:
    _rules([{"tool": "send", "pattern": '{"amount": 5, "to": "bob"}', "effect": "allow"}])
    assert await _told(tmp_path, "bob") == "sent 5 to bob"
    assert "nobody can answer here" in await _told(tmp_path, "mallory")


@circle.tool
def open_ticket(title: str, priority: int = 3) -> str:
    """Open a ticket."""
    return f"ticket {title} at {priority}"


async def test_the_rule_of_docs_library_md_denies_an_urgent_ticket(tmp_path: Path) -> None:
    _rules([{"tool": "open_ticket", "pattern": '*"priority": 1,*', "effect": "deny"}])
    told = []
    for priority in (1, 2):
        model = ScriptedModel(
            [answer("", Call("open_ticket", {"title": "x", "priority": priority})), answer("ok")]
        )
        async with circle.Agent(
            tmp_path,
            model_client=model,
            store=InMemorySessionStore(),
            trust=True,
            tools=[open_ticket],
            approval_mode="auto",
        ) as agent:
            await agent.run("file it")
        told.append(model.requests[-1].messages[-1].text)
    assert "denied by your approvals.json" in told[0]
    assert told[1] == "ticket x at 2"
