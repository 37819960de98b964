"""What every RPC command module shares: the output, the error a command fails with, and the
helpers that read a command's fields."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, TextIO

from pydantic import JsonValue

from .event_codec import dumps

if TYPE_CHECKING:
    from .rpc import RpcServer

Command = Mapping[str, JsonValue]
Handler = Callable[["RpcServer", Command], Awaitable[JsonValue]]
"""One command: the server and the command's fields in, the response's ``data`` out."""


class RpcError(Exception):
    """A command that cannot be done: its response has ``success: false`` and this message."""


class Output:
    """Writes one JSON object a line, flushed at once (the reader waits for whole lines)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.closed = False
        """The reader went away (a write failed)."""

    def write(self, data: dict[str, JsonValue]) -> None:
        try:
            self.out.write(dumps(data) + "\n")
            self.out.flush()
        except (BrokenPipeError, ValueError):
            self.closed = True  # the work goes on and is saved; nothing more to tell


def text_field(command: Command, key: str) -> str:
    """The non-empty string ``command[key]``.

    Raises:
        RpcError: it is missing, empty or not a string.
    """
    value = command.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RpcError(f'"{key}" is required: a non-empty string')
    return value


def flag_field(command: Command, key: str) -> bool:
    """The boolean ``command[key]``.

    Raises:
        RpcError: it is missing or not true or false.
    """
    value = command.get(key)
    if not isinstance(value, bool):
        raise RpcError(f'"{key}" is required: true or false')
    return value


def failure(command: str, error: str, ident: JsonValue = None) -> dict[str, JsonValue]:
    """The response of a command that failed."""
    data: dict[str, JsonValue] = {"type": "response", "command": command, "success": False, "error": error}
    if ident is not None:
        data["id"] = ident
    return data


__all__ = ["Command", "Handler", "Output", "RpcError", "failure", "flag_field", "text_field"]
