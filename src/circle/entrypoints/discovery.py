"""Settling an endpoint's protocol when nobody said it: a cached probe, else a quick probe."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from circle.adapters._shared.settings_files import load_probed, save_probed
from circle.application.ports.endpoint_probe import EndpointProbe
from circle.domain.errors import CircleError
from circle.domain.settings import PROTOCOLS, Endpoint

PROBE_TIMEOUT_S = 5.0


def make_probe() -> EndpointProbe:
    from circle.adapters.models.probe import HttpEndpointProbe

    return HttpEndpointProbe()


async def settle_protocol(endpoint: Endpoint, data: Path, probe: EndpointProbe | None = None) -> Endpoint:
    """The endpoint with its protocol known: from endpoints.json, a probe, or the default."""
    if endpoint.protocol_known:
        return endpoint
    cached = load_probed(data, endpoint.base_url)
    if cached is not None:
        for name in PROTOCOLS:
            if cached["protocol"] == name:
                return replace(endpoint, protocol=name, base_url=cached["base_url"], protocol_known=True)
    try:
        found = await (probe or make_probe()).probe(
            endpoint.base_url, endpoint.api_key, timeout_s=min(PROBE_TIMEOUT_S, endpoint.timeout_s)
        )
    except CircleError:
        return endpoint
    save_probed(data, endpoint.base_url, protocol=found.protocol, probed_base_url=found.base_url)
    return replace(endpoint, protocol=found.protocol, base_url=found.base_url, protocol_known=True)
