"""One hop of a fetch: the host resolved here, the request pinned to the address that was checked,
and a deadline that stops while the caller's check runs (a person may be answering)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from circle.domain.errors import ToolError
from circle.domain.web import ip_literal

if TYPE_CHECKING:
    import httpx


class Deadline:
    """``seconds`` to spend, counted only inside :meth:`running`."""

    def __init__(self, seconds: float) -> None:
        self.left = seconds

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Time the block against what is left; raise :class:`TimeoutError` when it runs out."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            async with asyncio.timeout(max(self.left, 0.0)):
                yield
        finally:
            self.left -= loop.time() - started


def proxied(proxy: str | None) -> bool:
    """Whether requests may go through a proxy: ``net.proxy`` or any ``*_proxy`` variable
    (``no_proxy`` alone names no proxy). urllib.request loads here, on a first fetch, not at start."""
    import urllib.request

    return bool(proxy) or any(scheme != "no" for scheme in urllib.request.getproxies_environment())


Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""A name and port to the addresses it resolves to (raising :class:`OSError` when it does not)."""


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """The system's answer (``getaddrinfo``), each address once, in the order it gives them."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def resolve(url: httpx.URL, resolver: Resolver, *, behind_proxy: bool) -> tuple[str, ...]:
    """The addresses ``url``'s host resolves to here.

    An IP literal (in any form a resolver reads) is itself; behind a proxy a name that does not
    resolve here has no address (the proxy resolves it).

    Raises:
        ToolError: the name does not resolve and no proxy would resolve it.
    """
    host = url.host
    literal = ip_literal(host)
    if literal is not None:
        return (str(literal),)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        found = tuple(await resolver(url.raw_host.decode("ascii"), port))
    except (OSError, UnicodeError) as exc:
        if behind_proxy:
            return ()
        detail = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ToolError(f"{url}: could not resolve {host} ({detail})") from None
    if not found and not behind_proxy:
        raise ToolError(f"{url}: could not resolve {host} (no address)")
    return found


def pinned_request(
    client: httpx.AsyncClient, url: httpx.URL, address: str | None, *, timeout: float
) -> httpx.Request:
    """A GET of ``url`` sent to ``address``: the name stays in the Host header and, for https, is
    the name TLS checks the certificate against. Without an address, a GET of ``url`` as it is."""
    if address is None:
        return client.build_request("GET", url, timeout=timeout)
    named = url.scheme == "https" and ip_literal(url.host) is None
    extensions = {"sni_hostname": url.raw_host.decode("ascii")} if named else {}
    return client.build_request(
        "GET",
        url.copy_with(host=address.split("%", 1)[0]),
        headers={"Host": url.netloc.decode("ascii")},
        timeout=timeout,
        extensions=extensions,
    )


__all__ = ["Deadline", "Resolver", "pinned_request", "proxied", "resolve", "system_resolver"]
