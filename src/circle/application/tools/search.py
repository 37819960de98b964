"""The search tools: glob (file names) and grep (file contents).

Credential files are left out: glob does not list them (it says how many it left out), grep refuses one
given as its path and does not search inside them when searching a folder. Both judge a path by what it
is (``ToolContext.is_credential``): a hard link to ``.env`` under another name is left out too, and a
file grep matched that turns out to be one is dropped from the result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from circle.application.ports.text_search import GrepQuery, GrepResult
from circle.domain.credentials import credential_globs
from circle.domain.errors import ToolError
from circle.domain.workspace import relative_display

from .base import BuiltinTool, ToolArgs, ToolContext, ToolOutput

MAX_GLOB_RESULTS = 200
MAX_GREP_MATCHES = 200


class GlobArgs(ToolArgs):
    pattern: str = Field(description='A glob such as "**/*.py" or "src/*.ts".')
    path: str = Field(".", description="Folder to search from.")


async def _glob(args: GlobArgs, ctx: ToolContext) -> ToolOutput:
    root = await ctx.resolve(args.path)
    if (info := await ctx.files.stat(root)) is None or info.kind != "dir":
        raise ToolError(f"no such folder: {args.path}")
    listed = await ctx.files.glob(root, args.pattern, limit=MAX_GLOB_RESULTS + 1)
    found = [p for p in listed if not await ctx.is_credential(p)]
    hidden = len(listed) - len(found)
    if not found:
        left_out = f" ({hidden} credential files left out)" if hidden else ""
        return ToolOutput(f"no files match {args.pattern}{left_out}")
    lines = [relative_display(ctx.workspace, p) for p in found[:MAX_GLOB_RESULTS]]
    if len(found) > MAX_GLOB_RESULTS:
        lines.append(f"(more than {MAX_GLOB_RESULTS} files match: narrow the pattern)")
    if hidden:
        lines.append(f"({hidden} credential files left out)")
    return ToolOutput("\n".join(lines))


class GrepArgs(ToolArgs):
    pattern: str = Field(description="A regular expression (or plain text with literal).")
    path: str = Field(".", description="File or folder to search.")
    glob: str | None = Field(None, description='Only files matching this glob, e.g. "*.py".')
    output_mode: Literal["content", "files_with_matches", "count"] = "files_with_matches"
    case_insensitive: bool = False
    context: int = Field(0, ge=0, le=20, description="Lines of context around each match (content).")
    literal: bool = Field(False, description="Treat the pattern as plain text.")


async def _grep(args: GrepArgs, ctx: ToolContext) -> ToolOutput:
    root = await ctx.resolve(args.path)
    if await ctx.files.stat(root) is None:
        raise ToolError(f"no such file or folder: {args.path}")
    query = GrepQuery(
        pattern=args.pattern,
        path=root,
        glob=args.glob,
        case_insensitive=args.case_insensitive,
        literal=args.literal,
        context=args.context if args.output_mode == "content" else 0,
        max_matches=MAX_GREP_MATCHES,
        exclude_globs=credential_globs(),
    )
    try:
        result = await ctx.search.grep(query)
    except ValueError as exc:
        raise ToolError(f"invalid pattern: {exc}") from None
    result = await _without_credentials(ctx, result)
    show = ctx.show
    if not result.counts and not result.lines:
        return ToolOutput(f"no matches for {args.pattern}")
    if args.output_mode == "files_with_matches":
        lines = [show(p) for p in result.counts]
    elif args.output_mode == "count":
        lines = [f"{show(p)}:{n}" for p, n in result.counts.items()]
    else:
        lines = [
            f"{show(g.path)}{':' if g.is_match else '-'}{g.line}{':' if g.is_match else '-'}{g.text}"
            for g in result.lines
        ]
    if result.truncated:
        lines.append(f"(stopped after {MAX_GREP_MATCHES} matches: narrow the pattern or the path)")
    return ToolOutput("\n".join(lines))


async def _without_credentials(ctx: ToolContext, result: GrepResult) -> GrepResult:
    """The result without the files that are credential files (by name, real path or inode)."""
    paths = {*result.counts, *(g.path for g in result.lines)}
    refused = {path for path in paths if await ctx.is_credential(path)}
    if not refused:
        return result
    kept = GrepResult(
        lines=[g for g in result.lines if g.path not in refused],
        counts={p: n for p, n in result.counts.items() if p not in refused},
        truncated=result.truncated,
    )
    return kept


GLOB = BuiltinTool("glob", GlobArgs, _glob)
GREP = BuiltinTool("grep", GrepArgs, _grep)
