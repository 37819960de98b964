"""The lsp tool: definition, references, hover, symbols and diagnostics from a language server.

It reads code and changes nothing, so it asks for no approval (like read_file); the file must be in
the workspace. Lines and characters are 1-based for the model and 0-based at the port.
"""

from __future__ import annotations

from pydantic import Field

from circle.application.ports.language_servers import LanguageServers, LspOperation
from circle.domain.errors import ToolError

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

LSP = "lsp"


class LspArgs(ToolArgs):
    operation: LspOperation
    file_path: str = Field(description="The file.")
    line: int = Field(1, ge=1, description="1-based line, for definition, references, hover.")
    character: int = Field(1, ge=1, description="1-based column, likewise.")


def _servers(ctx: ToolContext) -> LanguageServers:
    if ctx.lsp is None:
        raise ToolError("lsp is not available here: this session has no language servers")
    return ctx.lsp


async def _lsp(args: LspArgs, ctx: ToolContext) -> ToolOutput:
    servers = _servers(ctx)
    resolved = await ctx.resolve(args.file_path)
    text = await servers.query(
        args.operation, file_path=resolved, line=args.line - 1, character=args.character - 1
    )
    return ToolOutput(text)


LSP_TOOL = BuiltinTool(LSP, LspArgs, _lsp)

__all__ = ["LSP", "LSP_TOOL", "LspArgs"]
