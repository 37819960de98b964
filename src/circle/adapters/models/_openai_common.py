"""What the two OpenAI protocol adapters share: the HTTP client, the raw streamed body, the errors.

Circle writes its own request bodies and reads the streamed answers itself, so the OpenAI SDK
would only send the request; importing it costs a third of a second (its ``openai.types``
alone), on the critical path of every first request. The request is sent here with httpx2 as the
SDK sends it (bearer key, JSON headers, ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID``, the
endpoint's timeout, redirects followed, no retries), and :func:`translate_error` is the one place
where transport exceptions become :mod:`circle.domain.errors` (an HTTP error answer through
:func:`~._status_errors.status_error`, which Anthropic shares). :mod:`._sse` (shared with
Anthropic) splits the body into events.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from circle.domain.errors import ConfigError, ModelError
from circle.domain.model import ModelEvent, ModelRequest, RequestSent, ResponseStarted
from circle.domain.settings import Endpoint

from ._error_hints import transport_error
from ._sdk import loaded
from ._status_errors import status_error

if TYPE_CHECKING:
    import httpx2

_NO_KEY = "no-key-needed"
_MISSING_KEY = "no API key: set CIRCLE_API_KEY or OPENAI_API_KEY (or api_key in credentials.json)"
_ENV_HEADERS = (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project"))


class EndpointUnreachableError(Exception):
    """No answer could be had: the connection failed before any status came back."""


class OpenAIClient:
    """What both OpenAI protocol clients are: an endpoint, its HTTP client made on first use, and
    :meth:`post` (a written body out, the answer's events in, errors translated).

    Args:
        endpoint: where to send requests, the API key and the timeout.
        http_client: an httpx2 client to use (its owner closes it); by default one of its own.
    """

    def __init__(self, endpoint: Endpoint, *, http_client: httpx2.AsyncClient | None = None) -> None:
        self._endpoint = endpoint
        self._http_client = http_client
        self._client: httpx2.AsyncClient | None = None
        self._headers: dict[str, str] = {}
        self._sent: _RequestParts | None = None

    def _http(self) -> httpx2.AsyncClient:
        """The HTTP client, made (with the request headers) on first use.

        Raises:
            ConfigError: no key for api.openai.com, or a base URL that cannot be used.
        """
        if self._client is None:
            self._headers = request_headers(self._endpoint, os.environ)
            self._client = self._http_client or new_http_client(self._endpoint)
        return self._client

    def _model(self, request: ModelRequest) -> str:
        """The model to name: the request's, else the endpoint's; ConfigError when neither says."""
        model = request.model or self._endpoint.model
        if not model:
            raise ConfigError("no model: set CIRCLE_MODEL or pass --model")
        return model

    async def post(
        self, path: str, body: bytes, read: Callable[[httpx2.Response], AsyncGenerator[ModelEvent]]
    ) -> AsyncGenerator[ModelEvent]:
        """Post ``body`` to ``path`` and yield what ``read`` makes of the 200 answer, between the
        :class:`RequestSent` and :class:`ResponseStarted` markers; transport errors and error
        answers are raised as :mod:`circle.domain.errors`."""
        await loaded("httpx2")
        import httpx2

        client = self._http()
        if self._sent is None:
            self._sent = _RequestParts(client, self._endpoint, headers=self._headers)
        request = self._sent.request(path, body)
        yield RequestSent()
        try:
            response = await post_streamed(client, request)
            try:
                yield ResponseStarted()
                async with contextlib.aclosing(read(response)) as events:
                    async for event in events:
                        yield event
            finally:
                await response.aclose()
        except (EndpointUnreachableError, httpx2.HTTPError, httpx2.StreamError) as exc:
            raise translate_error(exc, self._endpoint) from exc

    async def aclose(self) -> None:
        """Close the HTTP client (a given ``http_client`` stays open for its owner)."""
        client, self._client, self._sent = self._client, None, None
        if client is not None and client is not self._http_client:
            await client.aclose()


def request_headers(endpoint: Endpoint, env: Mapping[str, str]) -> dict[str, str]:
    """The headers of every request: the bearer key (a local endpoint needs none, api.openai.com
    does), JSON both ways, and the organization and project the SDK's variables name.

    Raises:
        ConfigError: no key for api.openai.com.
    """
    key = endpoint.api_key
    if not key:
        if urlsplit(endpoint.base_url).hostname == "api.openai.com":
            raise ConfigError(_MISSING_KEY)
        key = _NO_KEY
    headers = {
        "Authorization": f"Bearer {key}",
        "Accept": "application/json",
        "Content-Type": "application/json",
        "User-Agent": "circle",
    }
    headers.update((header, env[name]) for name, header in _ENV_HEADERS if env.get(name))
    return headers


def new_http_client(endpoint: Endpoint) -> httpx2.AsyncClient:
    """A client for ``endpoint``: its timeout, redirects followed, proxies from the environment, its
    direct connections framed by Circle (:mod:`._http11`) on asyncio's own transports.

    Raises:
        ConfigError: a base URL that cannot be used.
    """
    from ._http11 import http11_client

    endpoint_url(endpoint.base_url, "/")
    return http11_client(timeout=endpoint.timeout_s)


class _RequestParts:
    """What every request to one endpoint shares, worked out once: each path's URL, the client's
    headers merged with ours, the timeout (each cost as much as the rest of a request's set-up).

    :meth:`request` makes what ``client.build_request("POST", url, content=body, headers=headers,
    timeout=endpoint.timeout_s)`` would, cookies included.
    """

    def __init__(self, client: httpx2.AsyncClient, endpoint: Endpoint, *, headers: Mapping[str, str]) -> None:
        import httpx2

        self._client = client
        self._base_url = endpoint.base_url
        self._headers = httpx2.Headers(client.headers)
        self._headers.update(headers)
        self._timeout = httpx2.Timeout(endpoint.timeout_s).as_dict()
        self._urls: dict[str, httpx2.URL] = {}

    def request(self, path: str, body: bytes) -> httpx2.Request:
        """The POST of ``body`` to ``path`` under the endpoint's base URL."""
        import httpx2

        url = self._urls.get(path)
        if url is None:
            url = self._urls[path] = endpoint_url(self._base_url, path)
        cookies = self._client.cookies or None
        return httpx2.Request(
            "POST",
            url,
            content=body,
            headers=self._headers,
            cookies=cookies,
            extensions={"timeout": self._timeout},
        )


def endpoint_url(base_url: str, path: str) -> httpx2.URL:
    """``path`` under ``base_url`` (its query kept), as the SDK joins them.

    Raises:
        ConfigError: a base URL that is not an http(s) URL.
    """
    import httpx2

    try:
        base = httpx2.URL(base_url)
    except (httpx2.InvalidURL, ValueError) as exc:
        raise ConfigError(f"cannot use the endpoint {base_url!r}: {exc}") from exc
    if base.scheme not in ("http", "https") or not base.host:
        raise ConfigError(f"cannot use the endpoint {base_url!r}: not an http(s) URL")
    return base.copy_with(path=base.path.rstrip("/") + "/" + path.lstrip("/"))


async def post_streamed(client: httpx2.AsyncClient, request: httpx2.Request) -> httpx2.Response:
    """Send a POST of a ready JSON body and return the 2xx response, its body not yet read.

    Raises:
        ModelError: the endpoint answered an error status (see :func:`status_error`).
        httpx2.TimeoutException: no answer in time.
        EndpointUnreachableError: the request could not be sent or answered.
    """
    import httpx2

    try:
        response = await client.send(request, stream=True)
    except httpx2.TimeoutException:
        raise
    except Exception as exc:
        raise EndpointUnreachableError(str(exc)) from exc
    if response.is_success:
        return response
    try:
        await response.aread()
    finally:
        await response.aclose()
    raise status_error(response.status_code, error_body(response.text), response.headers)


def error_body(text: str) -> object:
    """An error answer's body as the SDK hands it over: the ``error`` object of its JSON, the
    JSON itself without one, or the stripped text when it is not JSON."""
    text = text.strip()
    try:
        body: object = json.loads(text)
    except ValueError:
        return text
    if isinstance(body, dict) and "error" in body:
        return body["error"]
    return body


def translate_error(exc: Exception, endpoint: Endpoint) -> ModelError:
    """The Circle error for a transport exception: the one place they are mapped."""
    return transport_error(exc, endpoint, sdk="OpenAI", timeouts=(), connections=(EndpointUnreachableError,))


_STREAM_STATUSES = (
    ("rate_limit", 429),
    ("quota", 429),
    ("overloaded", 529),
    ("timeout", 504),
    ("unavailable", 503),
    ("server_error", 500),
    ("internal", 500),
    ("api_error", 500),
    ("invalid_request", 400),
    ("authentication", 401),
    ("permission", 403),
    ("not_found", 404),
)


def stream_error_status(error: object) -> int | None:
    """The HTTP equivalent of an error reported inside a stream, from its code, type or status.

    A failed tool-call generation (Groq's ``tool_use_failed``) has none: another try may differ.
    """
    if not isinstance(error, dict):
        return None
    if "error" in error and isinstance(error["error"], dict):
        error = error["error"]
    assert isinstance(error, dict)
    if error.get("code") == "tool_use_failed":
        return None
    for key in ("status_code", "status", "code"):
        value = error.get(key)
        if isinstance(value, int) and 400 <= value < 600:
            return value
    words = " ".join(str(error.get(key) or "") for key in ("code", "type")).lower()
    return next((status for word, status in _STREAM_STATUSES if word in words), None)


__all__ = [
    "EndpointUnreachableError",
    "OpenAIClient",
    "endpoint_url",
    "error_body",
    "new_http_client",
    "post_streamed",
    "request_headers",
    "stream_error_status",
    "translate_error",
]
