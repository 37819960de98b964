"""The composition root: the one place adapters are chosen and wired.

Adapters are named in one table and imported on first use, so an unused SDK never loads.
Entrypoints and :class:`circle.Agent` call the providers explicitly; tests override them.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from circle import __version__
from circle.application.approvals import AllowAll, ApprovalMode
from circle.application.ports.approver import Approver
from circle.application.ports.call_log import CallLog
from circle.application.ports.clock import Clock
from circle.application.ports.compaction_store import CompactionStore
from circle.application.ports.file_journal import FileJournal
from circle.application.ports.file_system import FileSystem
from circle.application.ports.image_codec import ImageCodec
from circle.application.ports.language_servers import LanguageServers
from circle.application.ports.model_catalog import ModelCatalog
from circle.application.ports.model_client import ModelClient
from circle.application.ports.native_search import NativeSearch
from circle.application.ports.process_runner import ProcessRunner
from circle.application.ports.session_lease import SessionLease
from circle.application.ports.session_store import SessionStore, TrustList
from circle.application.ports.spec_cache import SpecCache
from circle.application.ports.text_search import TextSearch
from circle.application.ports.web import WebClient
from circle.application.ports.workspace_snapshots import WorkspaceSnapshots
from circle.application.runtime import Ports, Runtime, RuntimeOptions
from circle.domain.catalog import ModelOverride, refresh_allowed
from circle.domain.errors import ConfigError
from circle.domain.retry import TimeoutPolicy
from circle.domain.sandbox import SandboxPolicy, parse_sandbox, sandbox_policy
from circle.domain.settings import Endpoint, NetFile, SettingsFile
from circle.entrypoints._di import containers, providers

STORE_FILE = "circle.sqlite"
ADAPTERS: dict[str, str] = {
    "store.sqlite": "circle.adapters.storage.sqlite_store:SqliteSessionStore",
    "trust.sqlite": "circle.adapters.storage.sqlite_store:SqliteTrustList",
    "lease.sqlite": "circle.adapters.storage.session_lock:SqliteSessionLease",
    "model.openai-chat": "circle.adapters.models.openai_chat:OpenAIChatModel",
    "model.openai-responses": "circle.adapters.models.openai_responses:OpenAIResponsesModel",
    "model.anthropic": "circle.adapters.models.anthropic:AnthropicModel",
    "websearch.openai-responses": "circle.adapters.models.openai_responses_search:for_model",
    "websearch.anthropic": "circle.adapters.models.anthropic_search:for_model",
    "files.local": "circle.adapters.local.files:LocalFileSystem",
    "search.ripgrep": "circle.adapters.local.search:RipgrepSearch",
    "processes.local": "circle.adapters.local.processes:LocalProcessRunner",
    "images.pillow": "circle.adapters.local.images:PillowImageCodec",
    "clock.system": "circle.adapters.local.clock:SystemClock",
    "catalog.models-dev": "circle.adapters.catalog.models_dev:ModelsDevCatalog",
    "journal.sqlite": "circle.adapters.storage.file_journal:SqliteFileJournal",
    "calls.sqlite": "circle.adapters.storage.call_log:SqliteCallLog",
    "compactions.sqlite": "circle.adapters.storage.compaction_store:SqliteCompactionStore",
    "snapshots.local": "circle.adapters.local.snapshots:LocalWorkspaceSnapshots",
    "web.httpx": "circle.adapters.web.httpx_web:HttpxWebClient",
    "lsp.stdio": "circle.adapters.lsp.on_demand:OnDemandLanguageServers",
    "specs.json": "circle.adapters.local.spec_cache:JsonSpecCache",
}


def make(name: str, *args: object, **kwargs: object) -> object:
    """Import the adapter named ``name`` in :data:`ADAPTERS` and build it."""
    module, _, attr = ADAPTERS[name].partition(":")
    return getattr(importlib.import_module(module), attr)(*args, **kwargs)


def make_model(endpoint: Endpoint, timeouts: TimeoutPolicy | None = None) -> object:
    """The endpoint's protocol adapter. Under a timeout policy (the runtime's guard keeps the
    deadlines) the SDK's own timeout is only a backstop, longer than any deadline of the policy."""
    name = f"model.{endpoint.protocol}"
    if name not in ADAPTERS:
        raise ConfigError(f"the {endpoint.protocol} protocol is not available in this version")
    if timeouts is not None:
        endpoint = dataclasses.replace(endpoint, timeout_s=max(endpoint.timeout_s, timeouts.longest_s + 60))
    return make(name, endpoint)


@dataclass
class Config:
    """What the entrypoint decided: folders, endpoint, and run options."""

    workspace: Path
    data_dir: Path
    endpoint: Endpoint
    options: RuntimeOptions
    ephemeral: bool = False
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    model_overrides: Mapping[str, ModelOverride] = field(default_factory=dict)
    approval_mode: ApprovalMode = "default"
    net: NetFile = field(default_factory=NetFile)
    """settings.json's ``net``: the web tools' proxy and certificate authorities."""
    notices: tuple[str, ...] = ()
    """Lines to show the person as the session starts (project settings left out)."""

    @property
    def store_path(self) -> Path:
        return self.data_dir / STORE_FILE

    @property
    def blobs_path(self) -> Path:
        return self.data_dir / "blobs"


def make_web(config: Config) -> object:
    """The web client, through settings.json's ``net`` proxy and certificate authorities."""
    return make("web.httpx", proxy=config.net.proxy, ca_file=config.net.ca_file)


def make_native_search(config: Config, model: object) -> object:
    """The protocol's own web search over the session's model client; None where it has none."""
    name = f"websearch.{config.endpoint.protocol}"
    return make(name, model, model=config.options.model) if name in ADAPTERS else None


def make_catalog(config: Config) -> object:
    """The models.dev catalog with settings.json's ``models``; it refreshes unless the env says not."""
    return make(
        "catalog.models-dev",
        config.data_dir,
        overrides=config.model_overrides,
        refresh=refresh_allowed(config.env),
    )


class Container(containers.DeclarativeContainer):
    config = providers.Dependency(instance_of=Config)

    store = providers.Singleton(
        make,
        "store.sqlite",
        providers.Callable(lambda c: Path(":memory:") if c.ephemeral else c.store_path, config),
    )
    trust = providers.Singleton(make, "trust.sqlite", config.provided.store_path)
    lease = providers.Singleton(make, "lease.sqlite", store)  # None when the store is not SQLite
    model = providers.Singleton(make_model, config.provided.endpoint, config.provided.options.timeouts)
    clock = providers.Singleton(make, "clock.system")
    files = providers.Singleton(make, "files.local")
    search = providers.Singleton(make, "search.ripgrep")
    processes = providers.Singleton(make, "processes.local", sandbox=config.provided.options.sandbox)
    hook_processes = providers.Singleton(make, "processes.local")
    images = providers.Singleton(make, "images.pillow")
    compactions = providers.Singleton(
        make,
        "compactions.sqlite",
        config.provided.store_path,
        fences=providers.Callable(lambda store: getattr(store, "fenced_token", None), store),
    )
    approver = providers.Singleton(AllowAll)
    catalog = providers.Singleton(make_catalog, config)
    journal = providers.Singleton(
        make, "journal.sqlite", config.provided.store_path, blobs=config.provided.blobs_path
    )
    snapshots = providers.Singleton(make, "snapshots.local", config.provided.data_dir)
    calls = providers.Singleton(make, "calls.sqlite", config.provided.store_path)
    web = providers.Singleton(make_web, config)
    native_search = providers.Singleton(make_native_search, config, model)
    lsp = providers.Singleton(make, "lsp.stdio", config.provided.workspace)
    specs = providers.Singleton(
        make, "specs.json", providers.Callable(lambda c: c.data_dir / "cache", config), version=__version__
    )


def build_runtime(container: Container) -> Runtime:
    """Resolve every port (typed here, once) and put the runtime together."""
    config: Config = container.config()
    ports = Ports(
        model=cast(ModelClient, container.model()),
        store=cast(SessionStore, container.store()),
        files=cast(FileSystem, container.files()),
        search=cast(TextSearch, container.search()),
        processes=cast(ProcessRunner, container.processes()),
        approver=cast(Approver, container.approver()),
        images=cast(ImageCodec, container.images()),
        catalog=cast(ModelCatalog, container.catalog()),
        clock=cast(Clock, container.clock()),
        lease=cast(SessionLease | None, container.lease()),
        web=cast(WebClient, container.web()),
        native_search=cast(NativeSearch | None, container.native_search()),
        lsp=cast(LanguageServers, container.lsp()),
        specs=cast(SpecCache, container.specs()),
    )
    if config.options.sandbox is not None:
        ports.hook_processes = cast(ProcessRunner, container.hook_processes())
    if not config.ephemeral and not container.store.overridden:  # kept elsewhere: no compaction, rewind
        ports.compactions = cast(CompactionStore, container.compactions())
        ports.journal = cast(FileJournal, container.journal())
        ports.snapshots = cast(WorkspaceSnapshots, container.snapshots())
        ports.calls = cast(CallLog, container.calls())
    return Runtime(ports, config.options)


def sandbox_from(
    choice: str | None, settings: SettingsFile, *, workspace: Path, data_dir: Path
) -> SandboxPolicy | None:
    """The sandbox asked for (``--sandbox`` beats settings.json's ``sandbox``; None when off), with
    the data folder hidden but its background_jobs/, writable, and the network as
    ``sandbox_network`` says."""
    mode = parse_sandbox(choice) if choice is not None else (settings.sandbox or "off")
    return sandbox_policy(
        mode,
        workspace=str(workspace),
        writable=(str(data_dir / "background_jobs"),),
        network=bool(settings.sandbox_network),
        data_dir=str(data_dir),
    )


def sandbox_problem(config: Config) -> str | None:
    """Why commands cannot be sandboxed here as configured, in one line; None when they can (or
    when the sandbox is off). A sandboxed run refuses to start on it rather than run unsandboxed."""
    policy = config.options.sandbox
    if policy is None or not policy.active:
        return None
    from circle.adapters.local.sandbox import check_bwrap

    problem = check_bwrap(config.options.env or None, policy=policy)
    if problem is None:
        return None
    return f"cannot sandbox commands ({policy.mode}): {problem}; nothing was run"


def trust_list(container: Container) -> TrustList:
    return cast(TrustList, container.trust())


def trust_list_at(data_dir: Path) -> TrustList:
    """The trust list in the data folder's store, before any container is made (trust comes
    first: it decides which settings are read)."""
    return cast(TrustList, make("trust.sqlite", data_dir / STORE_FILE))


def store(container: Container) -> SessionStore:
    return cast(SessionStore, container.store())
