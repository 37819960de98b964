"""Which URLs the web tools may read: http and https only, with a host."""

from __future__ import annotations

from urllib.parse import urlsplit

from .errors import ToolError

WEB_SCHEMES = ("http", "https")


def check_web_url(url: str) -> str:
    """``url`` stripped, when it is an http or https URL with a host.

    Raises:
        ToolError: another scheme (file:, ftp:, data:, javascript: ...), no scheme or no host.
    """
    url = url.strip()
    if not url:
        raise ToolError("a URL is required")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:
        raise ToolError(f"not a valid URL: {url} ({exc})") from None
    scheme = parts.scheme.lower()
    if not scheme:
        raise ToolError(f"not a URL: {url} (write it in full, e.g. https://{url})")
    if scheme not in WEB_SCHEMES:
        raise ToolError(f"only http and https URLs can be fetched, not {scheme}: ({url})")
    if not host:
        raise ToolError(f"the URL has no host: {url}")
    return url


__all__ = ["WEB_SCHEMES", "check_web_url"]
