"""A runtime wired to fakes, for unit tests of the loop and the tools."""

from __future__ import annotations

from dataclasses import dataclass, field

from circle._testing.images import FakeImageCodec
from circle.application.approvals import AllowAll
from circle.application.event_bus import EventBus
from circle.application.ports.approver import Approver
from circle.application.ports.model_catalog import ModelCatalog, NoCatalog
from circle.application.runtime import Ports, Runtime, RuntimeOptions
from circle.application.tools.base import ToolContext
from circle.testing import (
    FakeProcessRunner,
    InMemoryFileSystem,
    InMemorySessionStore,
    InMemoryTextSearch,
    RecordingSink,
    ScriptedModel,
)

WORKSPACE = "/w"


@dataclass
class Harness:
    model: ScriptedModel = field(default_factory=ScriptedModel)
    files: InMemoryFileSystem = field(default_factory=lambda: InMemoryFileSystem({f"{WORKSPACE}/.keep": ""}))
    processes: FakeProcessRunner = field(default_factory=FakeProcessRunner)
    store: InMemorySessionStore = field(default_factory=InMemorySessionStore)
    approver: Approver = field(default_factory=AllowAll)
    sink: RecordingSink = field(default_factory=RecordingSink)
    images: FakeImageCodec = field(default_factory=FakeImageCodec)
    max_rounds: int | None = None
    catalog: ModelCatalog = field(default_factory=NoCatalog)
    budget_usd: float | None = None
    data_dir: str | None = None
    """Where the runtime keeps its data (background jobs: a command's output streams live)."""

    def runtime(self) -> Runtime:
        ports = Ports(
            model=self.model,
            store=self.store,
            files=self.files,
            search=InMemoryTextSearch(self.files),
            processes=self.processes,
            approver=self.approver,
            images=self.images,
            catalog=self.catalog,
        )
        options = RuntimeOptions(
            workspace=WORKSPACE,
            model="scripted",
            max_rounds=self.max_rounds,
            budget_usd=self.budget_usd,
            data_dir=self.data_dir,
        )
        return Runtime(ports, options, events=EventBus(self.sink))

    def context(self) -> ToolContext:
        return ToolContext(
            workspace=WORKSPACE,
            files=self.files,
            search=InMemoryTextSearch(self.files),
            processes=self.processes,
            approver=self.approver,
            images=self.images,
        )
