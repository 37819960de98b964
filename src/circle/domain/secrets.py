"""Saved secrets: values the model writes as ``%NAME%`` and never sees.

A person keeps them in the data folder's secrets.json (``{"NAME": "value"}``, 0600). The model writes
``%NAME%`` in a tool call's arguments; the loop puts the values in (:meth:`Secrets.expand`) only as the
tool runs, after the call was approved, and turns every value back into ``%NAME%``
(:meth:`Secrets.mask`) in whatever the model reads: also reversed, case-folded, in hex, base64 or
percent-encoded, split across lines, and any run of 8 characters of those (half a short value), written
``%NAME%(part)``; see :mod:`circle.domain.masking`. The keys Circle holds itself (:func:`own_keys`: the
endpoint's API key, its environment's secrets) are hidden the same way, written ``[REDACTED]``.
Commands run without variables that hold secrets (:func:`scrub_environment`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import overload

from pydantic import JsonValue

from .lazy_re import lazy_compile
from .masking import LONG_RUN, Hide, Masker
from .redact import REDACTED, hidden_parts, redact

SECRET_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What a secret's name may be, as written between the ``%``."""
MIN_MASKED_LENGTH = 4
"""Values shorter than this are never masked: ``%A%`` for every ``a`` would garble all output."""

_REFERENCE = lazy_compile(r"%([A-Za-z_][A-Za-z0-9_]*)%")
_SECRET_PARTS = frozenset(
    {"TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS"}
    | {"APIKEY"}
)
_SECRET_ENDINGS = ("PASSWORD", "PASSWD", "_TOKEN", "_SECRET", "_KEY", "APIKEY", "_PAT")
_PLAIN = lazy_compile(
    r"(?:\d{1,7}|none|null|nil|true|false|yes|no|on|off|[/~.].*)", re.IGNORECASE | re.DOTALL
)
"""Values of a secret-looking variable that are not a key: small numbers, switches, paths."""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Secrets:
    """Saved secrets by name. Its ``repr`` shows the names only.

    Args:
        values: Name -> value, as in secrets.json.
        hidden: Keys Circle holds itself (see :func:`own_keys`): never expanded, masked ``[REDACTED]``.
    """

    values: Mapping[str, str] = field(default_factory=dict)
    hidden: tuple[str, ...] = ()
    _masker: Masker = field(init=False, repr=False)
    _names: Mapping[str, str] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        values = dict(sorted(self.values.items()))
        names: dict[str, str] = {}
        for name, value in values.items():
            if len(value) >= MIN_MASKED_LENGTH:
                names.setdefault(value, name)
        hidden = tuple(
            dict.fromkeys(v for v in self.hidden if len(v) >= MIN_MASKED_LENGTH and v not in names)
        )
        hides = [Hide(value, f"%{names[value]}%", f"%{names[value]}%(part)") for value in names]
        hides.sort(key=lambda hide: len(hide.value), reverse=True)
        hides += [Hide(value, REDACTED, REDACTED, floor=LONG_RUN) for value in hidden]
        object.__setattr__(self, "values", MappingProxyType(values))
        object.__setattr__(self, "hidden", hidden)
        object.__setattr__(self, "_names", MappingProxyType(names))
        object.__setattr__(self, "_masker", Masker(hides))

    def __repr__(self) -> str:
        return f"Secrets(names={sorted(self.values)!r}, hidden={len(self.hidden)})"

    def with_values(self, values: Mapping[str, str]) -> Secrets:
        """These secrets with the saved ones replaced by ``values`` (the keys Circle holds kept)."""
        return Secrets(values, hidden=self.hidden)

    def __bool__(self) -> bool:
        return bool(self.values)

    @overload
    def expand(self, arguments: dict[str, JsonValue]) -> dict[str, JsonValue]: ...

    @overload
    def expand(self, arguments: JsonValue) -> JsonValue: ...

    def expand(self, arguments: JsonValue) -> JsonValue:
        """``arguments`` with ``%NAME%`` replaced by its value in every string; unknown names kept."""
        if not self.values:
            return arguments
        if isinstance(arguments, str):
            return _REFERENCE.sub(lambda m: self.values.get(m.group(1), m.group(0)), arguments)
        if isinstance(arguments, list):
            return [self.expand(item) for item in arguments]
        if isinstance(arguments, dict):
            return {key: self.expand(value) for key, value in arguments.items()}
        return arguments

    def mask(self, text: str) -> str:
        """``text`` with every saved value (of 4 characters or more), or a whole encoding of it, written
        ``%NAME%``, a run of one written ``%NAME%(part)``, and the keys Circle holds ``[REDACTED]``."""
        return self._masker.mask(text)

    def names_in(self, arguments: JsonValue) -> tuple[str, ...]:
        """The known names that ``arguments`` refer to as ``%NAME%``, sorted."""
        found: set[str] = set()
        _collect(arguments, found)
        return tuple(sorted(name for name in found if name in self.values))

    def holds(self, value: str) -> bool:
        """True when ``value`` is a saved value (of 4 characters or more) or a key Circle holds."""
        return value in self._names or value in self.hidden


def _collect(value: JsonValue, found: set[str]) -> None:
    if isinstance(value, str):
        found.update(m.group(1) for m in _REFERENCE.finditer(value))
    elif isinstance(value, list):
        for item in value:
            _collect(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, found)


def looks_secret_name(name: str) -> bool:
    """True for an environment variable named like a secret (``OPENAI_API_KEY``, ``GH_TOKEN``,
    ``PGPASSWORD``, ``MYSQL_PWD``); ``PWD``, ``TOKENIZERS_PARALLELISM`` and ``SSH_AUTH_SOCK`` are not."""
    upper = name.upper()
    parts = upper.split("_")
    if _SECRET_PARTS.intersection(parts) or upper.endswith(_SECRET_ENDINGS):
        return True
    return len(parts) > 1 and parts[-1] == "PWD"


def own_keys(*sources: Mapping[str, str], keys: Iterable[str | None] = ()) -> tuple[str, ...]:
    """The keys Circle holds itself, to hide from the model: ``keys`` (the endpoint's API key) and, in
    each of ``sources`` (its environment, credentials.json), the values of names like a secret and the
    parts of other values that :func:`~circle.domain.redact.redact` hides.

    A secret-looking name's value that is a small number, a switch (``true``, ``off``) or a path is not
    a key and is left out: hiding ``3600`` or ``/home`` would garble every output.
    """
    found = [key for key in keys if key]
    for source in sources:
        for name, value in source.items():
            if looks_secret_name(name):
                found += [] if _PLAIN.fullmatch(value.strip()) else [value]
            else:
                found += hidden_parts(value)
    return tuple(dict.fromkeys(key for key in found if len(key) >= MIN_MASKED_LENGTH))


_DOTENV_LINE = lazy_compile(r"\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=\s*(.*)")
MIN_FILE_VALUE_LENGTH = 8
"""A credential file's values shorter than this are not hidden (``DEBUG=1``, ``PORT=8080``)."""


def dotenv_values(text: str) -> tuple[str, ...]:
    """The values of a dotenv file's assignments (``KEY=value``, ``export KEY="value"``) that could be
    secrets, to hide from the model wherever a command prints them: not small numbers, switches or
    paths, and :data:`MIN_FILE_VALUE_LENGTH` characters or more.

    Examples:
        >>> dotenv_values('SALT="pepper-and-salt"\\nDEBUG=1\\n# NOTE=comment-line-here')
        ('pepper-and-salt',)
    """
    found: list[str] = []
    for line in text.splitlines():
        match = _DOTENV_LINE.fullmatch(line)
        if match is None or line.lstrip().startswith("#"):
            continue
        value = match.group(1).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        if len(value) >= MIN_FILE_VALUE_LENGTH and not _PLAIN.fullmatch(value):
            found.append(value)
    return tuple(dict.fromkeys(found))


def scrub_environment(env: Mapping[str, str], secrets: Secrets) -> dict[str, str]:
    """The environment for a command: ``env`` without variables named like secrets, holding a saved
    secret's value, or holding something :func:`~circle.domain.redact.redact` would hide (a token, a
    URL with a password)."""
    return {
        name: value
        for name, value in env.items()
        if not looks_secret_name(name) and not secrets.holds(value) and redact(value) == value
    }


__all__ = [
    "MIN_FILE_VALUE_LENGTH",
    "MIN_MASKED_LENGTH",
    "SECRET_NAME",
    "Secrets",
    "dotenv_values",
    "looks_secret_name",
    "own_keys",
    "scrub_environment",
]
