"""A deny rule holds for a path spelt through a symlink in the workspace: the command is judged by
the file it names as well as by how it is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import circle
from circle.testing import Call, ScriptedModel, answer


def _deny_touch_secret() -> None:
    rules = [{"tool": "execute", "pattern": "touch secret*", "effect": "deny"}]
    (Path(os.environ["CIRCLE_HOME"]) / "approvals.json").write_text(json.dumps(rules))


@pytest.mark.parametrize("command", ["touch here/secretA", "touch here/./secretA", "touch alias"])
async def test_a_deny_rule_holds_through_a_symlink(tmp_path: Path, command: str) -> None:
    _deny_touch_secret()
    (tmp_path / "here").symlink_to(".")
    (tmp_path / "alias").symlink_to("secretA")
    model = ScriptedModel([answer("", Call("execute", {"command": command})), answer("ok")])
    async with circle.Agent(tmp_path, model_client=model, trust=True, approval_mode="auto") as agent:
        await agent.run("make it")
    assert not (tmp_path / "secretA").exists()
    assert "denied by your approvals.json" in model.requests[-1].messages[-1].model_dump_json()


async def test_a_symlink_elsewhere_is_not_denied(tmp_path: Path) -> None:
    _deny_touch_secret()
    (tmp_path / "sub").mkdir()
    (tmp_path / "link").symlink_to("sub")
    model = ScriptedModel([answer("", Call("execute", {"command": "touch link/secretB"})), answer("ok")])
    async with circle.Agent(tmp_path, model_client=model, trust=True, approval_mode="auto") as agent:
        await agent.run("make it")
    assert (tmp_path / "sub" / "secretB").exists()
