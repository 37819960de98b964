"""Settings as values, and the rule that the environment beats settings.json.

Reading the files is an adapter's work; this module only merges what was read.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .catalog import ModelOverride
from .errors import ConfigError
from .sandbox import SandboxMode

Protocol = Literal["openai-chat", "openai-responses", "anthropic"]
PROTOCOLS: tuple[Protocol, ...] = ("openai-chat", "openai-responses", "anthropic")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com"


class EndpointFile(BaseModel):
    model_config = ConfigDict(extra="ignore")

    base_url: str | None = None
    protocol: Protocol | None = None
    api_key_env: str | None = None


class CompactionFile(BaseModel):
    """``compaction`` in settings.json: compact past ``threshold`` of the window, keep ``keep`` of it."""

    model_config = ConfigDict(extra="ignore")

    threshold: float = Field(0.85, gt=0.1, le=1.0)
    keep: float = Field(0.1, gt=0.0, lt=0.9)
    enabled: bool = True


class NetFile(BaseModel):
    """``net`` in settings.json: how webfetch and websearch reach the web."""

    model_config = ConfigDict(extra="ignore")

    proxy: str | None = None
    """A proxy URL for web requests (``http://host:port``); unset: none beyond ``HTTPS_PROXY``."""
    ca_file: str | None = None
    """A PEM file of certificate authorities to trust (a company's TLS inspection)."""


class SettingsFile(BaseModel):
    """The shape of settings.json; unknown keys are kept out, not refused."""

    model_config = ConfigDict(extra="ignore")

    endpoint: EndpointFile = Field(default_factory=EndpointFile)
    model: str | None = None
    thinking: str | None = None
    approval_mode: str | None = None
    models: dict[str, ModelOverride] = Field(default_factory=dict)
    """Per-model overrides of the catalog (context, output, prices, reasoning, images)."""
    budget_usd: float | None = Field(default=None, ge=0)
    """The session budget in US dollars (``--max-budget-usd`` beats it)."""
    compaction: CompactionFile = Field(default_factory=lambda: CompactionFile())
    sandbox: SandboxMode | None = None
    """Run commands under bubblewrap: ``read-only`` or ``workspace-write`` (``--sandbox`` beats it)."""
    sandbox_network: bool | None = None
    """Sandboxed commands keep the network (unset: they do not)."""
    net: NetFile = Field(default_factory=lambda: NetFile())
    """The web tools' proxy and certificate authorities."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    base_url: str
    protocol: Protocol
    api_key: str | None
    model: str | None
    timeout_s: float = 45.0
    protocol_known: bool = True


def parse_settings_file(data: object, *, source: str) -> SettingsFile:
    """Validate the parsed JSON of a settings file.

    Raises:
        ConfigError: the file does not have the settings' shape.
    """
    try:
        return SettingsFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise ConfigError(f"{source}: {where}: {first['msg']}") from None


_SECTIONS: dict[str, type[BaseModel]] = {
    "endpoint": EndpointFile,
    "compaction": CompactionFile,
    "net": NetFile,
}
_NOT_SETTINGS = frozenset({"$schema"})


def unknown_keys(data: object, *, source: str) -> tuple[str, ...]:
    """A warning for each key in a settings file's JSON that no setting reads (it is ignored),
    naming the closest known key; for the top level and the ``endpoint``, ``compaction`` and
    ``net`` sections."""
    if not isinstance(data, dict):
        return ()
    said = _unknown_in(data, SettingsFile, prefix="")
    for section, shape in _SECTIONS.items():
        value = data.get(section)
        if isinstance(value, dict):
            said += _unknown_in(value, shape, prefix=f"{section}.")
    return tuple(f"{source}: {line}" for line in said)


def _unknown_in(data: dict[object, object], shape: type[BaseModel], *, prefix: str) -> list[str]:
    known = list(shape.model_fields)
    lines = []
    for key in data:
        if not isinstance(key, str) or key in known or key in _NOT_SETTINGS:
            continue
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        hint = f": did you mean {prefix}{close[0]}?" if close else f" (known: {', '.join(known)})"
        lines.append(f"unknown setting {prefix + key!r} is ignored{hint}")
    return lines


PERSON_ONLY: frozenset[str] = frozenset({"endpoint", "approval_mode", "sandbox", "sandbox_network", "net"})
"""Keys only the person's settings.json sets. A project's would weaken safety (the approval mode,
the sandbox and its network) or redirect credentials (the endpoint and its key variable, the web
tools' proxy and certificate authorities), so a trusted project's file is not read for them. Hooks
are hooks.json's, approved apart."""


@dataclass(frozen=True, slots=True)
class SettingsLayers:
    """The settings in effect, and where each came from.

    Attributes:
        settings: The person's settings.json with a trusted project's .circle/settings.json over it.
        sources: Each top-level key a file set, and that file (both, for ``models`` from both).
        ignored: A line for each key the project set that it may not (:data:`PERSON_ONLY`, or a
            higher budget), saying why.
    """

    settings: SettingsFile
    sources: Mapping[str, str]
    ignored: tuple[str, ...] = ()


def layer_settings(
    person: SettingsFile,
    project: SettingsFile | None = None,
    *,
    person_source: str = "settings.json",
    project_source: str = ".circle/settings.json",
) -> SettingsLayers:
    """A trusted project's settings over the person's, key by key, except :data:`PERSON_ONLY`;
    ``models`` merge model by model; a project's ``budget_usd`` may lower the person's, not raise it."""
    sources = {key: person_source for key in person.model_fields_set}
    if project is None:
        return SettingsLayers(person, sources)
    said = project.model_fields_set
    ignored = [
        f"{project_source}: {key} is left out (only your settings.json sets it)"
        for key in sorted(said & PERSON_ONLY)
    ]
    update: dict[str, object] = {}
    for key in sorted(said - PERSON_ONLY - {"models", "budget_usd"}):
        update[key] = getattr(project, key)
        sources[key] = project_source
    if "models" in said:
        update["models"] = {**person.models, **project.models}
        both = "models" in person.model_fields_set
        sources["models"] = f"{project_source} over {person_source}" if both else project_source
    if "budget_usd" in said and project.budget_usd is not None:
        if person.budget_usd is None or project.budget_usd <= person.budget_usd:
            update["budget_usd"] = project.budget_usd
            sources["budget_usd"] = project_source
        else:
            ignored.append(f"{project_source}: budget_usd is left out (a project may lower it, not raise it)")
    return SettingsLayers(person.model_copy(update=update), sources, tuple(ignored))


def merge_files(base: SettingsFile, override: SettingsFile) -> SettingsFile:
    """``override`` (a trusted project's file) over ``base`` (the person's), as :func:`layer_settings`."""
    return layer_settings(base, override).settings


def resolve_endpoint(
    settings: SettingsFile,
    env: Mapping[str, str],
    credentials: Mapping[str, str] | None = None,
    *,
    model_override: str | None = None,
) -> Endpoint:
    """The endpoint to use: command line, then environment, then settings, then defaults.

    Raises:
        ConfigError: an unknown protocol or a timeout that is not a number.
    """
    credentials = credentials or {}
    configured = env.get("CIRCLE_BASE_URL") or settings.endpoint.base_url
    explicit = env.get("CIRCLE_PROTOCOL") or settings.endpoint.protocol
    if explicit is not None and explicit not in PROTOCOLS:
        raise ConfigError(f"unknown protocol {explicit!r}: use one of {', '.join(PROTOCOLS)}")
    protocol, known = _protocol(explicit, configured, env)
    if protocol == "anthropic":
        base_url = configured or env.get("ANTHROPIC_BASE_URL") or DEFAULT_ANTHROPIC_URL
    else:
        base_url = configured or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    key_env = settings.endpoint.api_key_env
    api_key = (
        env.get("CIRCLE_API_KEY")
        or (env.get(key_env) if key_env else None)
        or credentials.get("api_key")
        or env.get("ANTHROPIC_API_KEY" if protocol == "anthropic" else "OPENAI_API_KEY")
    )
    model = model_override or env.get("CIRCLE_MODEL") or settings.model
    timeout_text = env.get("CIRCLE_LLM_TIMEOUT")
    try:
        timeout = float(timeout_text) if timeout_text else 45.0
    except ValueError:
        raise ConfigError(f"CIRCLE_LLM_TIMEOUT must be seconds, not {timeout_text!r}") from None
    return Endpoint(
        base_url=base_url,
        protocol=protocol,
        api_key=api_key,
        model=model,
        timeout_s=timeout,
        protocol_known=known,
    )


def _protocol(explicit: str | None, configured: str | None, env: Mapping[str, str]) -> tuple[Protocol, bool]:
    """The protocol, and whether it is known (said, or plain from the URL) rather than a default."""
    for name in PROTOCOLS:
        if explicit == name:
            return name, True
    host = (urlparse(configured).hostname or "") if configured else ""
    if "anthropic" in host:
        return "anthropic", True
    if host == "api.openai.com":
        return "openai-chat", True
    openai_said = configured or env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_KEY")
    if not openai_said and (env.get("ANTHROPIC_API_KEY") or env.get("ANTHROPIC_BASE_URL")):
        return "anthropic", True
    return "openai-chat", configured is None


def with_model(endpoint: Endpoint, model: str) -> Endpoint:
    return replace(endpoint, model=model)


__all__ = [
    "DEFAULT_BASE_URL",
    "PERSON_ONLY",
    "PROTOCOLS",
    "Endpoint",
    "NetFile",
    "Protocol",
    "SettingsFile",
    "SettingsLayers",
    "layer_settings",
    "merge_files",
    "parse_settings_file",
    "resolve_endpoint",
    "unknown_keys",
    "with_model",
]
