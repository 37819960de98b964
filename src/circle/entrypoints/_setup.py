"""First-run setup shared by the interactive modes: is an endpoint set up, and saving one.

The endpoint goes to settings.json (``endpoint.base_url``, ``endpoint.protocol``, ``model``), the key
to credentials.json (0600), and what the probe found to endpoints.json.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from circle.adapters._shared.settings_files import (
    load_credentials,
    load_settings,
    save_credentials,
    save_endpoint_settings,
    save_probed,
)
from circle.application.ports.endpoint_probe import ProbeResult
from circle.domain.errors import ConfigError
from circle.domain.settings import resolve_endpoint

PROBE_TIMEOUT_S = 10.0


def needs_setup(data: Path, workspace: Path, env: Mapping[str, str], *, model: str | None = None) -> bool:
    """No model is chosen, or neither a key nor a base URL is given anywhere."""
    try:
        settings = load_settings(data, workspace)
        endpoint = resolve_endpoint(settings, env, load_credentials(data), model_override=None)
    except ConfigError:
        return False  # a broken file is reported when the session starts, not papered over
    configured = bool(env.get("CIRCLE_BASE_URL") or settings.endpoint.base_url)
    return not (model or endpoint.model) or (not endpoint.api_key and not configured)


async def probe(base_url: str, api_key: str) -> ProbeResult:
    """Which protocol ``base_url`` speaks and which models it lists (a ModelError when none answers)."""
    from .discovery import make_probe

    return await make_probe().probe(base_url, api_key or None, timeout_s=PROBE_TIMEOUT_S)


def save_endpoint(
    data: Path, base_url: str, api_key: str, *, model: str, protocol: str, probed_base_url: str | None = None
) -> None:
    """Keep the endpoint in settings.json, the key in credentials.json, the protocol in endpoints.json."""
    save_endpoint_settings(data, base_url=base_url, protocol=protocol, model=model)
    if api_key:
        save_credentials(data, {**load_credentials(data), "api_key": api_key})
    save_probed(data, base_url, protocol=protocol, probed_base_url=probed_base_url or base_url)


__all__ = ["needs_setup", "probe", "save_endpoint"]
