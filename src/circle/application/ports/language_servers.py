"""LanguageServers: code intelligence from language servers (pylsp, basedpyright ... over stdio).

A server is started on demand for the language of the file asked about, with the workspace as its
root, and stopped when idle and at :meth:`LanguageServers.aclose`. The file is read from disk before
every query, so the answer reflects what is saved. Every failure (no server for the language, a
server that will not start or stops, a timeout, an error answer) raises
:class:`circle.domain.errors.ToolError` with a one-line reason the model can act on.
"""

from __future__ import annotations

from typing import Literal, Protocol

LspOperation = Literal["definition", "references", "hover", "symbols", "diagnostics"]
LSP_OPERATIONS: tuple[LspOperation, ...] = ("definition", "references", "hover", "symbols", "diagnostics")


class LanguageServers(Protocol):
    async def query(self, operation: LspOperation, *, file_path: str, line: int, character: int) -> str:
        """Ask the language server of ``file_path`` (an absolute path) about a position.

        Args:
            operation: what to ask; ``symbols`` and ``diagnostics`` are about the whole file and
                ignore the position.
            file_path: the file, absolute.
            line: 0-based line.
            character: 0-based column, in characters (code points) of the line.

        Returns:
            Text for the model: locations as ``path:line:col: text`` (workspace-relative, 1-based),
            hover as plain text, symbols as an indented list, diagnostics as
            ``path:line:col severity message``.

        Raises:
            ToolError: see the module docstring.
        """
        ...

    async def aclose(self) -> None:
        """Stop every server started."""
        ...


__all__ = ["LSP_OPERATIONS", "LanguageServers", "LspOperation"]
