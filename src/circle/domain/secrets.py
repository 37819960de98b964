"""Saved secrets: values the model writes as ``%NAME%`` and never sees.

A person keeps them in the data folder's secrets.json (``{"NAME": "value"}``, 0600). The model writes
``%NAME%`` in a tool call's arguments; the loop puts the values in (:meth:`Secrets.expand`) only as the
tool runs, after the call was approved, and turns every value back into ``%NAME%``
(:meth:`Secrets.mask`) in whatever the model reads. Commands run without variables that hold secrets
(:func:`scrub_environment`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import overload

from pydantic import JsonValue

from .redact import redact

SECRET_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What a secret's name may be, as written between the ``%``."""
MIN_MASKED_LENGTH = 4
"""Values shorter than this are never masked: ``%A%`` for every ``a`` would garble all output."""

_REFERENCE = re.compile(r"%([A-Za-z_][A-Za-z0-9_]*)%")
_SECRET_PARTS = frozenset(
    {"TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS"}
    | {"APIKEY"}
)
_SECRET_ENDINGS = ("PASSWORD", "PASSWD", "_TOKEN", "_SECRET", "_KEY", "APIKEY", "_PAT")


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Secrets:
    """Saved secrets by name. Its ``repr`` shows the names only.

    Args:
        values: Name -> value, as in secrets.json.
    """

    values: Mapping[str, str] = field(default_factory=dict)
    _pattern: re.Pattern[str] | None = field(init=False, default=None)
    _names: Mapping[str, str] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        values = dict(sorted(self.values.items()))
        names: dict[str, str] = {}
        for name, value in values.items():
            if len(value) >= MIN_MASKED_LENGTH:
                names.setdefault(value, name)
        longest_first = sorted(names, key=len, reverse=True)
        pattern = re.compile("|".join(map(re.escape, longest_first))) if names else None
        object.__setattr__(self, "values", MappingProxyType(values))
        object.__setattr__(self, "_names", MappingProxyType(names))
        object.__setattr__(self, "_pattern", pattern)

    def __repr__(self) -> str:
        return f"Secrets(names={sorted(self.values)!r})"

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
        """``text`` with every secret's value (of 4 characters or more) written ``%NAME%``, longest first."""
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: f"%{self._names[m.group(0)]}%", text)

    def names_in(self, arguments: JsonValue) -> tuple[str, ...]:
        """The known names that ``arguments`` refer to as ``%NAME%``, sorted."""
        found: set[str] = set()
        _collect(arguments, found)
        return tuple(sorted(name for name in found if name in self.values))

    def holds(self, value: str) -> bool:
        """True when ``value`` is one of the secrets' values (of 4 characters or more)."""
        return value in self._names


def _collect(value: JsonValue, found: set[str]) -> None:
    if isinstance(value, str):
        found.update(_REFERENCE.findall(value))
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


def scrub_environment(env: Mapping[str, str], secrets: Secrets) -> dict[str, str]:
    """The environment for a command: ``env`` without variables named like secrets, holding a saved
    secret's value, or holding something :func:`~circle.domain.redact.redact` would hide (a token, a
    URL with a password)."""
    return {
        name: value
        for name, value in env.items()
        if not looks_secret_name(name) and not secrets.holds(value) and redact(value) == value
    }


__all__ = ["MIN_MASKED_LENGTH", "SECRET_NAME", "Secrets", "looks_secret_name", "scrub_environment"]
