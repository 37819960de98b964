"""What the interface needs from the outside world, and the real one built like print mode's.

:class:`Backend` is what the app talks to before a session exists: is an endpoint set up, is the
folder trusted, build the runtime. :class:`LiveBackend` reads the person's files and uses the
container; tests give the app a backend of fakes.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from circle.adapters._shared.settings_files import (
    data_dir,
    load_hooks,
    load_rule_layers,
    load_secrets,
    save_secrets,
)
from circle.application.approvals import ApprovalPolicy
from circle.application.ports.approver import Approver
from circle.application.ports.asker import Asker
from circle.application.ports.endpoint_probe import ProbeResult
from circle.application.runtime import Runtime
from circle.domain.secrets import Secrets
from circle.entrypoints._setup import needs_setup, probe, save_endpoint
from circle.entrypoints.container import Container, trust_list
from circle.entrypoints.headless import RunOptions, assemble, is_trusted, make_config


@dataclass
class Built:
    """A runtime put together for the interface, and what it was put together with."""

    runtime: Runtime
    policy: ApprovalPolicy
    notices: list[str]


class Backend(Protocol):
    workspace: Path
    data: Path

    def needs_setup(self) -> bool:
        """True when no endpoint is set up: no key and no base URL, or no model."""
        ...

    async def probe(self, base_url: str, api_key: str) -> ProbeResult: ...

    def save_endpoint(self, base_url: str, api_key: str, *, model: str, protocol: str) -> None: ...

    async def list_models(self) -> list[str]:
        """The models the endpoint lists."""
        ...

    async def is_trusted(self) -> bool: ...

    async def trust(self) -> None: ...

    async def build(self, *, person: Approver, asker: Asker, trusted: bool) -> Built: ...

    def reload_policy(self, policy: ApprovalPolicy, *, trusted: bool) -> list[str]:
        """Read approvals.json and hooks.json again into ``policy``; notices to show."""
        ...

    def save_secret(self, name: str, value: str) -> Secrets: ...


class LiveBackend:
    """The person's data folder, settings and endpoint (see :mod:`circle.entrypoints.headless`)."""

    def __init__(self, opts: RunOptions, env: dict[str, str] | None = None) -> None:
        self.opts = opts
        self.env = dict(os.environ) if env is None else env
        self.workspace = opts.workspace
        self.data = data_dir(self.env)
        self._container: Container | None = None

    def needs_setup(self) -> bool:
        return needs_setup(self.data, self.workspace, self.env, model=self.opts.model)

    async def probe(self, base_url: str, api_key: str) -> ProbeResult:
        return await probe(base_url, api_key)

    def save_endpoint(self, base_url: str, api_key: str, *, model: str, protocol: str) -> None:
        save_endpoint(self.data, base_url, api_key, model=model, protocol=protocol)

    async def _get_container(self) -> Container:
        if self._container is None:
            self._container = Container(config=await make_config(self.opts, self.env))
        return self._container

    async def list_models(self) -> list[str]:
        endpoint = (await self._get_container()).config().endpoint
        found = await self.probe(endpoint.base_url, endpoint.api_key or "")
        return list(found.models)

    async def is_trusted(self) -> bool:
        container = await self._get_container()
        container.trust.reset()  # a closed trust list is not used twice
        return await is_trusted(container, self.workspace)

    async def trust(self) -> None:
        container = await self._get_container()
        container.trust.reset()
        trusted = trust_list(container)
        try:
            await trusted.trust(str(self.workspace))
        finally:
            await trusted.aclose()

    async def build(self, *, person: Approver, asker: Asker, trusted: bool) -> Built:
        if trusted:  # settled now: the project's settings count too
            config = await make_config(self.opts, self.env, project_trusted=True)
            self._container = Container(config=config)
            await asyncio.sleep(0)  # a step of the interface's start apart from the next
        container = await self._get_container()
        runtime, policy, notices = assemble(container, trusted=trusted, person=person)
        runtime.ports.asker = asker
        return Built(runtime=runtime, policy=policy, notices=notices)

    def reload_policy(self, policy: ApprovalPolicy, *, trusted: bool) -> list[str]:
        layers = load_rule_layers(self.data, self.workspace, project_trusted=trusted)
        session = policy.layers.get("session", [])
        policy.layers = {**{k: list(v) for k, v in layers.items()}, "session": session}
        hooks = load_hooks(self.data, self.workspace, project_trusted=trusted)
        return [f"{path} is new or changed and was not run" for path in hooks.unapproved]

    def save_secret(self, name: str, value: str) -> Secrets:
        values = {**load_secrets(self.data), name: value}
        save_secrets(self.data, values)
        return Secrets(values)


__all__ = ["Backend", "Built", "LiveBackend"]
