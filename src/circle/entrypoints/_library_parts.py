"""Pieces of :class:`circle.Agent` that need no agent: checking its arguments, attaching files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from circle.adapters._shared.private_files import private_folder
from circle.adapters._shared.settings_files import data_dir
from circle.application.approvals import parse_mode
from circle.application.attachments import Attached, attach_files
from circle.application.runtime import Runtime
from circle.application.tools.base import Tool
from circle.domain.errors import ConfigError
from circle.domain.thinking import parse_level


async def attach(runtime: Runtime, files: Sequence[str]) -> Attached | None:
    """The ``files=`` of a run, read for its message (None without any)."""
    if not files:
        return None
    ports = runtime.ports
    return await attach_files(
        files, workspace=runtime.options.workspace, files=ports.files, images=ports.images
    )


def split_tools(tools: Sequence[str | Tool] | None) -> tuple[list[str] | None, tuple[Tool, ...]]:
    """Built-in tool names (None: all of them) and the program's own tools, from ``tools=``."""
    if tools is None:
        return None, ()
    if isinstance(tools, str):
        raise TypeError("tools= takes a list of tool names or tools, not one string")
    names = [item for item in tools if isinstance(item, str)]
    own = tuple(item for item in tools if not isinstance(item, str))
    for item in own:
        if not (hasattr(item, "spec") and hasattr(item, "invoke") and hasattr(item, "name")):
            raise TypeError(f"tools= takes tool names and tools made with @circle.tool, not {item!r}")
    return (names if names or not own else None), own


def check_choices(approval_mode: str | None, thinking: str | None) -> None:
    """Refuse an unknown approval mode or thinking level at once, in one line."""
    try:
        if approval_mode is not None:
            parse_mode(approval_mode)
        if thinking is not None:
            parse_level(thinking)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def private_data_dir(env: dict[str, str]) -> Path:
    """The data folder, created or tightened to 0700 as every mode does."""
    data = data_dir(env)
    try:
        return private_folder(data)
    except OSError as exc:
        raise ConfigError(f"cannot create the data folder {data}: {exc.strerror}") from None


__all__ = ["attach", "check_choices", "private_data_dir", "split_tools"]
