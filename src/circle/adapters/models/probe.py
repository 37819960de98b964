"""The endpoint probe: GET <base>/models with and without /v1, and read the protocol from the answer."""

from __future__ import annotations

from urllib.parse import urlparse

from circle.application.ports.endpoint_probe import ProbeResult
from circle.domain.errors import ModelConnectionError, ModelError, ModelHTTPError
from circle.domain.settings import Protocol

ANTHROPIC_VERSION = "2023-06-01"


def candidates(base_url: str) -> list[str]:
    """The URLs to try: as given, then with /v1 added (or taken off)."""
    base = base_url.rstrip("/")
    other = base[: -len("/v1")] if base.endswith("/v1") else f"{base}/v1"
    return [base, other]


def read_listing(body: object) -> tuple[bool, list[str]] | None:
    """(is Anthropic's shape, model ids) for a models listing, or None when it is not one."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        return None
    items = [item for item in body["data"] if isinstance(item, dict) and isinstance(item.get("id"), str)]
    anthropic = "first_id" in body or "has_more" in body or any(i.get("type") == "model" for i in items)
    return anthropic, sorted(str(i["id"]) for i in items)


def _protocol(url: str, anthropic: bool) -> tuple[Protocol, str]:
    if anthropic:
        return "anthropic", url[: -len("/v1")] if url.endswith("/v1") else url
    if urlparse(url).hostname == "api.openai.com":
        return "openai-responses", url
    return "openai-chat", url


class HttpEndpointProbe:
    """Asks on the client the model requests use (:mod:`._http11`): httpx2's own transport made
    its TLS settings and loaded anyio's backend on the event loop, 100 ms and more at every start
    whose protocol is not configured, with "Starting Circle…" on the screen and keys waiting."""

    async def probe(self, base_url: str, api_key: str | None, *, timeout_s: float) -> ProbeResult:
        from ._sdk import loaded

        await loaded("httpx2", "circle.adapters.models._http11")  # on a thread: 40 ms of imports
        import httpx2

        from ._http11 import http11_client

        headers = {"anthropic-version": ANTHROPIC_VERSION, "accept": "application/json"}
        if api_key:
            headers |= {"authorization": f"Bearer {api_key}", "x-api-key": api_key}
        tried: list[str] = []
        async with http11_client(timeout=timeout_s) as client:
            for url in candidates(base_url):
                try:
                    response = await client.get(f"{url}/models", headers=headers)
                except httpx2.HTTPError as exc:
                    raise ModelConnectionError(f"cannot reach {url}: {exc or type(exc).__name__}") from exc
                tried.append(f"{url}/models ({response.status_code})")
                if response.status_code in (401, 403):
                    raise ModelHTTPError(
                        f"the endpoint refused the API key ({response.status_code}) at {url}/models",
                        status=response.status_code,
                    )
                if response.status_code != 200:
                    continue
                try:
                    listing = read_listing(response.json())
                except (ValueError, RecursionError):
                    listing = None
                if listing is None:
                    continue
                protocol, base = _protocol(url, listing[0])
                return ProbeResult(base_url=base, protocol=protocol, models=tuple(listing[1]))
        raise ModelError(f"no model listing found at {', '.join(tried)}")
