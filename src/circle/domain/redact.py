"""Passwords and tokens hidden in command and job output.

:func:`redact` replaces the secret part of what it recognizes with ``[REDACTED]``:

- provider keys and tokens by their shape: OpenAI and Anthropic keys (``sk-…``, ``sk-ant-…``),
  GitHub tokens (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``, ``github_pat_``), AWS access key ids
  (``AKIA…``, ``ASIA…``), Slack tokens (``xoxa-``, ``xoxb-``, ``xoxp-``, ``xoxr-``, ``xoxs-``), Google
  API keys (``AIza…``) and JSON Web Tokens (``eyJ….eyJ….…``);
- ``Authorization: Bearer …`` (and ``Basic``, ``Token``) headers, and a bare ``Bearer <token>``;
- assignments to a name that ends in password, passwd, secret, token, api key, access key, secret key,
  private key or credentials (``DB_PASSWORD=…``, ``"api_key": "…"``, ``aws_secret_access_key = …``):
  the value is hidden, the name kept; likewise ``--password …``, ``--token=…`` and similar flags;
- PEM private key blocks, from ``-----BEGIN … PRIVATE KEY-----`` to its END line (or to the end of the
  text when output was cut);
- the password of a URL with credentials (``https://user:[REDACTED]@host``);
- the provider keys and tokens above written backwards (``| rev``).

:func:`hidden_parts` gives the pieces :func:`redact` would hide, so that Circle can hide a key it holds
in its other forms too (see :mod:`circle.domain.masking`).

What it leaves alone: commit ids and other hashes, UUIDs, base64 data (an image, a certificate), counts
such as ``max_tokens=4096`` (the name must end in the secret word), ``PWD=…``, values that are already a
saved secret's ``%NAME%`` or a variable (``$TOKEN``, ``${TOKEN}``), short numbers, ``None``/``null``/
booleans, and code (``token = get_token()``). A generic "long random string" rule would hide hashes,
so there is none.
"""

from __future__ import annotations

import re

from .lazy_re import lazy_compile

REDACTED = "[REDACTED]"

_PEM = lazy_compile(
    r"(-----BEGIN (?P<kind>[A-Z0-9 ]*)PRIVATE KEY-----)"
    r"(?:.*?(-----END (?P=kind)PRIVATE KEY-----)|.*\Z)",
    re.DOTALL,
)
_TOKENS = lazy_compile(
    r"""
    (?<![A-Za-z0-9_-])
    (?:
        sk-ant-[A-Za-z0-9_-]{20,}
      | sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}
      | gh[pousr]_[A-Za-z0-9]{30,}
      | github_pat_[A-Za-z0-9_]{22,}
      | (?:AKIA|ASIA)[0-9A-Z]{16}
      | xox[abprs]-[A-Za-z0-9-]{10,}
      | AIza[0-9A-Za-z_-]{35}
      | eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}
    )
    (?![A-Za-z0-9_-])
    """,
    re.VERBOSE,
)
_AUTHORIZATION = lazy_compile(
    r"(?P<head>\b(?:proxy-)?authorization\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?)(?P<value>[^\s\"',;]+)",
    re.IGNORECASE,
)
_BEARER = lazy_compile(r"(?P<head>\bbearer\s+)(?P<value>[A-Za-z0-9._~+/=-]{16,})", re.IGNORECASE)
_ASSIGNMENT = lazy_compile(
    r"""
    (?P<head>
        (?<![A-Za-z0-9])
        [A-Za-z0-9_.-]*?
        (?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key
          |private[_-]?key|credentials?)
        ["']?[ \t]*[:=][ \t]*["']?
    )
    (?P<value>[^\s"',;&()\[\]{}<>]+)
    (?=$|[\s"',;&])
    """,
    re.VERBOSE | re.IGNORECASE,
)
_FLAG = lazy_compile(
    r"(?P<head>(?<![\w-])--[a-z-]*(?:password|passwd|token|secret|api-key)[ =][\"']?)(?P<value>[^\s\"']+)",
    re.IGNORECASE,
)
_URL_PASSWORD = lazy_compile(
    r"(?P<head>\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)(?P<value>[^/\s@]+)(?=@)", re.IGNORECASE
)
_KEPT = lazy_compile(
    r"^(?:%[A-Za-z_][A-Za-z0-9_]*%|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\[REDACTED\]|\*+|\d{1,7}"
    r"|none|null|nil|true|false|undefined)$",
    re.IGNORECASE,
)


def _hide(match: re.Match[str]) -> str:
    value = match.group("value")
    if _KEPT.match(value):
        return match.group(0)
    return match.group("head") + REDACTED


_BACKWARDS = REDACTED[::-1]


def _pem(match: re.Match[str]) -> str:
    end = match.group(3)
    return f"{match.group(1)}\n{REDACTED}" + (f"\n{end}" if end else "\n")


def redact(text: str) -> str:
    """``text`` with passwords and tokens replaced by ``[REDACTED]``.

    Examples:
        >>> redact("export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx")
        'export OPENAI_API_KEY=[REDACTED]'
    """
    text = _PEM.sub(_pem, text)
    text = _URL_PASSWORD.sub(_hide, text)
    text = _AUTHORIZATION.sub(_hide, text)
    text = _BEARER.sub(_hide, text)
    text = _ASSIGNMENT.sub(_hide, text)
    text = _FLAG.sub(_hide, text)
    text = _TOKENS.sub(REDACTED, text)
    return _TOKENS.sub(_BACKWARDS, text[::-1])[::-1]


def hidden_parts(text: str) -> list[str]:
    """The pieces of ``text`` that :func:`redact` hides: tokens, passwords, private keys' bodies.

    Examples:
        >>> hidden_parts("postgres://app:s3cr3t-pw@db/app")
        ['s3cr3t-pw']
    """
    parts = [match.group(0) for match in _TOKENS.finditer(text)]
    parts += [match.group(0)[::-1] for match in _TOKENS.finditer(text[::-1])]
    for pattern in (_URL_PASSWORD, _AUTHORIZATION, _BEARER, _ASSIGNMENT, _FLAG):
        parts += [m.group("value") for m in pattern.finditer(text) if not _KEPT.match(m.group("value"))]
    for match in _PEM.finditer(text):
        parts.append(text[match.end(1) : match.start(3) if match.group(3) else match.end()].strip())
    return [part for part in dict.fromkeys(parts) if part]


__all__ = ["REDACTED", "hidden_parts", "redact"]
