"""Which URLs webfetch may read, what its approval rules see, and which addresses always ask.

- Only http and https URLs with a host are read (:func:`check_web_url`).
- A *site* is a URL's scheme, host and port (``https://docs.python.org``, the default port left out).
  The first fetch from a site asks; "allow for this session" remembers the site
  (:func:`site_rule`).
- The *subject* approval rules match is the URL written plainly (:func:`web_subject`): the site,
  then the path (at least ``/``) and the query; no user name, password or fragment. So
  ``{"tool": "webfetch", "pattern": "https://docs.python.org/*", "effect": "allow"}`` allows every
  page of that site and nothing on ``https://docs.python.org.example``.
- An address that is not public always asks, in every mode (:func:`address_concern`): loopback,
  private, shared (100.64/10), link-local (where cloud metadata is served), unspecified, the
  IPv4-mapped and NAT64 forms of these, and every other address that is not globally reachable.
  IP literals are read in every form a resolver accepts (``2130706433``, ``0x7f.1``, ``0177.0.0.1``).
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from urllib.parse import SplitResult, urlsplit

from .approval_rules import Rule, exact_pattern
from .errors import ToolError

WEB_SCHEMES = ("http", "https")
WEBFETCH_TOOL = "webfetch"
DEFAULT_PORTS = {"http": 80, "https": 443}
IPAddress = IPv4Address | IPv6Address

_SHARED = IPv4Network("100.64.0.0/10")
_NAT64 = IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE = IPv6Network("::/96")


def check_web_url(url: str) -> str:
    """``url`` stripped, when it is an http or https URL with a host (and a valid port).

    Raises:
        ToolError: another scheme (file:, ftp:, data:, javascript: ...), no scheme or no host.
    """
    url = url.strip()
    if not url:
        raise ToolError("a URL is required")
    parts = _split(url)
    scheme = parts.scheme.lower()
    if not scheme:
        raise ToolError(f"not a URL: {url} (write it in full, e.g. https://{url})")
    if scheme not in WEB_SCHEMES:
        raise ToolError(f"only http and https URLs can be fetched, not {scheme}: ({url})")
    if not parts.hostname:
        raise ToolError(f"the URL has no host: {url}")
    return url


def _split(url: str) -> SplitResult:
    try:
        parts = urlsplit(url)
        _ = parts.hostname, parts.port
    except ValueError as exc:
        raise ToolError(f"not a valid URL: {url} ({exc})") from None
    return parts


def ip_literal(host: str) -> IPAddress | None:
    """``host`` as an address when it is one: IPv6, or IPv4 in any form ``inet_aton`` reads.

    Dotted, decimal (``2130706433``), hexadecimal (``0x7f.0.0.1``), octal (``0177.0.0.1``) and short
    forms (``127.1``) all count; None when ``host`` is a name.
    """
    host = host.strip("[]").lower()
    if ":" in host:
        try:
            return IPv6Address(host)
        except ValueError:
            return None
    parts = host.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if not 1 <= len(parts) <= 4:
        return None
    numbers = [_number(part) for part in parts]
    if any(n is None for n in numbers):
        return None
    values = [n for n in numbers if n is not None]
    *head, last = values
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(values)):
        return None
    value = last
    for index, number in enumerate(head):
        value += number << (8 * (3 - index))
    return IPv4Address(value)


def _number(part: str) -> int | None:
    try:
        if part[:2] in ("0x", "0X"):
            return int(part[2:] or "0", 16)
        if len(part) > 1 and part.startswith("0"):
            return int(part[1:], 8)
        return int(part, 10) if part.isdigit() else None
    except ValueError:
        return None


def address_concern(address: str | IPAddress) -> str:
    """Why fetching from ``address`` always asks ("a loopback address" ...); "" when it is public."""
    try:
        ip = ip_address(address) if isinstance(address, str) else address
    except ValueError:
        return "not an address"
    if isinstance(ip, IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            concern = address_concern(inner)
            return f"{concern}, {inner} written as IPv6" if concern else ""
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address (where cloud metadata is served)"
    if isinstance(ip, IPv4Address) and ip in _SHARED:
        return "a private address (shared, carrier-grade NAT)"
    if ip.is_private:
        return "a private address"
    if ip.is_multicast or ip.is_reserved or not ip.is_global:
        return "an address that is not public (reserved or multicast)"
    return ""


def _embedded_ipv4(ip: IPv6Address) -> IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def addresses_concern(host: str, addresses: tuple[str, ...]) -> str:
    """Why a fetch from ``host``, resolved to ``addresses``, asks in every mode; "" when all are public.

    No address at all (the name was resolved by a proxy, not here) is a concern too: where the
    request leads cannot be seen.
    """
    if not addresses:
        return f"the address of {host} is not known here (the proxy resolves it)"
    for address in addresses:
        if concern := address_concern(address):
            if ip_literal(host) is not None:
                return f"{address} is {concern}"
            return f"{host} resolves to {address}, {concern}"
    return ""


def web_site(url: str) -> str:
    """The site of ``url``: ``scheme://host[:port]``, lowercase, the default port left out."""
    parts = _split(url)
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    literal = ip_literal(host)
    if literal is not None:
        host = f"[{literal}]" if isinstance(literal, IPv6Address) else str(literal)
    port = parts.port
    shown = "" if port is None or port == DEFAULT_PORTS.get(scheme) else f":{port}"
    return f"{scheme}://{host}{shown}"


def web_subject(url: str) -> str:
    """What approval rules match for a fetch of ``url``: the site, the path (``/`` at least), the query."""
    parts = _split(url)
    query = f"?{parts.query}" if parts.query else ""
    return f"{web_site(url)}{parts.path or '/'}{query}"


def site_pattern(url: str) -> str:
    """The rule pattern for every page of ``url``'s site (``https://docs.python.org/*``); for what
    is not an http or https URL (a hook's question has no URL), a pattern matching it alone."""
    try:
        check_web_url(url)
    except ToolError:
        return exact_pattern(url)
    return exact_pattern(web_site(url)) + "/*"


def site_rule(url: str) -> Rule:
    """The session rule an "allow for this session" answer to a webfetch becomes: its site."""
    return Rule(tool=WEBFETCH_TOOL, pattern=site_pattern(url), effect="allow")


def no_one_to_ask(
    url: str,
    *,
    always_ask: bool,
    auto: str = "--approval-mode auto (or --yolo)",
    person: str = "a person asked in the interface or in line mode",
) -> str:
    """How the person could allow a fetch that asked where nobody can answer (print, JSON, RPC,
    a library agent without an approver); ``auto`` and ``person`` name the face's own settings."""
    if always_ask:
        return f"nobody can answer here, so it is refused; only {person} can allow it"
    rule = f'{{"tool": "{WEBFETCH_TOOL}", "pattern": "{site_pattern(url)}", "effect": "allow"}}'
    return (
        f"nobody can answer here; allow the site with a rule in approvals.json ({rule}), or every "
        f"public site with {auto}"
    )


__all__ = [
    "WEBFETCH_TOOL",
    "WEB_SCHEMES",
    "address_concern",
    "addresses_concern",
    "check_web_url",
    "ip_literal",
    "no_one_to_ask",
    "site_pattern",
    "site_rule",
    "web_site",
    "web_subject",
]
