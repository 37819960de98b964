"""The installed `circle` command, run as a person runs it, against a loopback gateway."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from circle._testing.gateway import ScriptedGateway


def circle_command() -> str:
    beside = Path(sys.executable).parent / "circle"
    found = str(beside) if beside.exists() else shutil.which("circle")
    if not found:
        pytest.skip("the circle command is not installed (pip install -e .)")
    return found


@dataclass
class Circle:
    """Runs `circle` with a data folder and endpoint of its own, in a workspace it trusts (as
    `circle trust` would) unless ``trusted`` is False: every session runs in a trusted folder."""

    home: Path
    workspace: Path
    gateway: ScriptedGateway
    trusted: bool = True

    def __post_init__(self) -> None:
        if self.trusted:
            trust(self.home, self.workspace)

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_", "ANTHROPIC_"))}
        env.update(
            CIRCLE_HOME=str(self.home),
            CIRCLE_BASE_URL=self.gateway.base_url,
            CIRCLE_API_KEY="test-key",
            CIRCLE_MODEL="test-model",
            CIRCLE_CATALOG_REFRESH="0",
        )
        env.update(extra)
        return env

    def run(
        self, *args: str, timeout: float = 60, env: dict[str, str] | None = None, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [circle_command(), *args],
            cwd=self.workspace,
            env=env or self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            input=stdin if stdin is not None else "",
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [circle_command(), *args],
            cwd=self.workspace,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


def trust(home: Path, folder: Path) -> None:
    """Trust ``folder`` in the data folder ``home``, through the store `circle trust` writes."""
    from circle.adapters.storage.sqlite_store import SqliteTrustList

    async def go() -> None:
        trusted = SqliteTrustList(home / "circle.sqlite")
        try:
            await trusted.trust(str(folder))
        finally:
            await trusted.aclose()

    asyncio.run(go())


@pytest.fixture
def gateway() -> Iterator[ScriptedGateway]:
    with ScriptedGateway() as gw:
        yield gw


@pytest.fixture
def cli(tmp_path: Path, gateway: ScriptedGateway) -> Circle:
    workspace = tmp_path / "work"
    workspace.mkdir()
    return Circle(home=tmp_path / "home", workspace=workspace, gateway=gateway)


@pytest.fixture
def untrusted(tmp_path: Path, gateway: ScriptedGateway) -> Circle:
    """Like ``cli``, in a workspace not trusted yet."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    return Circle(home=tmp_path / "home", workspace=workspace, gateway=gateway, trusted=False)
