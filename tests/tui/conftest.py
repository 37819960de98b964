"""A backend of fakes for the interface: a scripted model, an in-memory store and files, scripted
commands; and a fixed clock, so turn lines and snapshots never change."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from circle._testing.call_log import InMemoryCallLog
from circle._testing.lease import InMemorySessionLease
from circle.application.approvals import ApprovalMode, ApprovalPolicy
from circle.application.ports.approver import Approver
from circle.application.ports.asker import Asker
from circle.application.ports.endpoint_probe import ProbeResult
from circle.application.runtime import Ports, Runtime, RuntimeOptions
from circle.domain.catalog import ModelInfo, Prices
from circle.domain.errors import ModelError
from circle.domain.secrets import Secrets
from circle.entrypoints.headless import RunOptions
from circle.entrypoints.tui._backend import Built
from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.main import MainScreen
from circle.testing import (
    FakeProcessRunner,
    InMemoryCatalog,
    InMemoryCompactionStore,
    InMemoryFileJournal,
    InMemoryFileSystem,
    InMemorySessionStore,
    InMemoryTextSearch,
    InMemoryTrustList,
    ScriptedModel,
)

WORKSPACE = "/work"
SIZE = (100, 32)


class FixedClock:
    """Seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeBackend:
    model: ScriptedModel = field(default_factory=ScriptedModel)
    files: InMemoryFileSystem = field(default_factory=InMemoryFileSystem)
    processes: FakeProcessRunner | None = None
    store: InMemorySessionStore = field(default_factory=InMemorySessionStore)
    trust_list: InMemoryTrustList = field(default_factory=InMemoryTrustList)
    mode: ApprovalMode = "default"
    setup_needed: bool = False
    probe_models: tuple[str, ...] = ("model-a", "model-b")
    saved: list[tuple[str, str, str, str]] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    workspace: Path = Path(WORKSPACE)
    data: Path = Path("/data")
    runtime: Runtime | None = None
    journal: InMemoryFileJournal = field(default_factory=InMemoryFileJournal)
    catalog: InMemoryCatalog | None = None
    """The models the runtime knows (default: ``scripted``, priced and reasoning)."""
    calls: InMemoryCallLog | None = None
    """How far each tool call got (None: not kept)."""
    lease: InMemorySessionLease | None = None
    """The sessions' leases (None: not kept)."""

    def needs_setup(self) -> bool:
        return self.setup_needed

    async def probe(self, base_url: str, api_key: str) -> ProbeResult:
        if "bad" in base_url:
            raise ModelError(f"no model listing found at {base_url}/models (404)")
        return ProbeResult(base_url=base_url, protocol="openai-chat", models=self.probe_models)

    def save_endpoint(self, base_url: str, api_key: str, *, model: str, protocol: str) -> None:
        self.saved.append((base_url, api_key, model, protocol))
        self.setup_needed = False

    async def list_models(self) -> list[str]:
        return list(self.probe_models)

    async def is_trusted(self) -> bool:
        return await self.trust_list.is_trusted(str(self.workspace))

    async def trust(self) -> None:
        await self.trust_list.trust(str(self.workspace))

    async def build(self, *, person: Approver, asker: Asker, trusted: bool) -> Built:
        policy = ApprovalPolicy(self.mode, {}, person=person)
        processes = self.processes or FakeProcessRunner(files=self.files)
        ports = Ports(
            model=self.model,
            store=self.store,
            files=self.files,
            search=InMemoryTextSearch(self.files),
            processes=processes,
            approver=policy,
            catalog=self.catalog
            or InMemoryCatalog(
                [
                    ModelInfo(
                        id="scripted",
                        provider="p",
                        context_window=200_000,
                        prices=Prices(1000, 2000),
                        reasoning=True,
                    )
                ]
            ),
            asker=asker,
            journal=self.journal,
            compactions=InMemoryCompactionStore(self.store),
            calls=self.calls,
            lease=self.lease,
        )
        options = RuntimeOptions(workspace=WORKSPACE, model="scripted", data_dir="/data", home="/home/person")
        self.runtime = Runtime(ports, options)
        return Built(runtime=self.runtime, policy=policy, notices=[])

    def reload_policy(self, policy: ApprovalPolicy, *, trusted: bool) -> list[str]:
        return []

    def save_secret(self, name: str, value: str) -> Secrets:
        self.secrets[name] = value
        return Secrets(dict(self.secrets))


def options(**changes: object) -> RunOptions:
    opts = RunOptions(workspace=Path(WORKSPACE), message="")
    for key, value in changes.items():
        setattr(opts, key, value)
    return opts


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def backend() -> FakeBackend:
    backend = FakeBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    return backend


@pytest.fixture
def make_app(backend: FakeBackend, clock: FixedClock) -> Callable[..., CircleApp]:
    def make(**changes: object) -> CircleApp:
        return CircleApp(backend, options(**changes), clock=clock, history=InputHistory(), cursor_blink=False)

    return make


async def until(pilot: object, found: Callable[[], bool], *, within: float = 15.0) -> None:
    """Let the app run until ``found()`` holds; fail after ``within`` seconds (generous: a loaded
    machine is slow, and a state reached sooner returns sooner)."""
    import asyncio

    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not found():
        if loop.time() > deadline:
            raise AssertionError("the app never got there")
        await pilot.pause(0.02)


def main_screen(app: CircleApp) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen), type(screen)
    return screen


async def card_ready(pilot: object, screen: MainScreen, kind: type[object] | None = None) -> None:
    """Let the app run until a card (of ``kind``) is up and takes keys: one shown for less than
    ``cards.READY_S`` gives what is typed on it to the input box."""
    from textual import _time

    from circle.entrypoints.tui.widgets.cards import Card

    def ready() -> bool:
        card = screen.card
        return isinstance(card, kind or Card) and card.ready(_time.get_time())

    await until(pilot, ready)


def texts(screen: MainScreen) -> str:
    """Everything the conversation shows, as plain text."""
    from textual.widgets import Static

    from circle.entrypoints.tui.widgets.markdown import ChatMarkdown

    said = []
    for widget in screen.conversation.walk_children():
        if isinstance(widget, ChatMarkdown):
            said.append(widget.source)
        elif isinstance(widget, Static):
            said.append(str(widget.content))
    return "\n".join(said)


async def send(pilot: object, screen: MainScreen, text: str) -> None:
    """Put ``text`` in the input box as typed, then press enter."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    screen.composer.insert(text)
    await pilot.press("enter")


def screen_lines(app: CircleApp) -> list[str]:
    """What the terminal shows now, line by line, as plain text."""
    return [strip.text for strip in app.screen._compositor.render_strips()]
