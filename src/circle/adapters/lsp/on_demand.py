"""The language servers a session is given: :class:`~.servers.StdioLanguageServers`, imported and
made at the first query, so an agent that never asks one (most) does not load the adapter (its
JSON-RPC client and formatter) as it starts."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from circle.application.ports.language_servers import LspOperation

if TYPE_CHECKING:
    from .servers import StdioLanguageServers


class OnDemandLanguageServers:
    """A :class:`~circle.application.ports.language_servers.LanguageServers` of a workspace that
    makes its :class:`~.servers.StdioLanguageServers` when first asked."""

    def __init__(self, workspace: str | os.PathLike[str]) -> None:
        self.workspace = os.path.abspath(os.fspath(workspace))
        self._servers: StdioLanguageServers | None = None

    async def query(self, operation: LspOperation, *, file_path: str, line: int, character: int) -> str:
        return await self._made().query(operation, file_path=file_path, line=line, character=character)

    async def aclose(self) -> None:
        if self._servers is not None:
            await self._servers.aclose()

    def _made(self) -> StdioLanguageServers:
        if self._servers is None:
            from .servers import StdioLanguageServers

            self._servers = StdioLanguageServers(self.workspace)
        return self._servers


__all__ = ["OnDemandLanguageServers"]
