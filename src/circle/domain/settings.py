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


def merge_files(base: SettingsFile, override: SettingsFile) -> SettingsFile:
    """``override`` wins key by key (a trusted project's file over the data folder's)."""
    endpoint = base.endpoint.model_copy(update=override.endpoint.model_dump(exclude_none=True))
    top = override.model_dump(exclude_none=True, exclude={"endpoint", "models", "net", "compaction"})
    models = {**base.models, **override.models}
    net = base.net.model_copy(update=override.net.model_dump(exclude_none=True))
    said = override.model_fields_set
    compaction = override.compaction if "compaction" in said else base.compaction
    return base.model_copy(
        update={**top, "endpoint": endpoint, "models": models, "net": net, "compaction": compaction}
    )


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
    "PROTOCOLS",
    "Endpoint",
    "NetFile",
    "Protocol",
    "SettingsFile",
    "merge_files",
    "parse_settings_file",
    "resolve_endpoint",
    "unknown_keys",
    "with_model",
]
