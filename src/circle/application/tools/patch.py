"""The apply_patch tool: several files added, changed, moved or deleted in one all-or-nothing call.

The whole patch is checked before anything is written: it parses, every path is inside the workspace
and not a credential file, every file to change or delete exists, and every hunk finds its place. The
operations run in order on a plan in memory (so a file added and then updated works), and only the end
state of each file is written, after one approval. If a write fails, the files already written are put
back as they were (folders made on the way stay), and the model is told nothing was applied.

One approval covers every file: the approval rules judge each path the patch changes (a deny or an
ask of any one decides; an allow needs every path allowed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import Field

from circle.domain.errors import ToolError
from circle.domain.patch import AddFile, DeleteFile, UpdateFile, apply_to, parse_patch
from circle.domain.workspace import is_inside

from .base import CREDENTIAL_REFUSAL, BuiltinTool, ToolArgs, ToolContext, ToolOutput

TOOL = "apply_patch"


class ApplyPatchArgs(ToolArgs):
    patch: str = Field(description="The whole patch, from '*** Begin Patch' to '*** End Patch'.")


@dataclass
class _Plan:
    """The files a patch touches: their bytes before (None: absent) and after, in first-touch order."""

    ctx: ToolContext
    before: dict[str, bytes | None] = field(default_factory=dict)
    after: dict[str, bytes | None] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)

    async def path(self, written: str) -> str:
        resolved = await self.ctx.resolve(written, use="write")
        if resolved == self.ctx.workspace or not is_inside(self.ctx.workspace, resolved):
            raise ToolError(f"{written} is outside the workspace: apply_patch changes files inside it only")
        return resolved

    async def current(self, resolved: str) -> bytes | None:
        """The file's bytes as the operations so far leave it (None: absent)."""
        if resolved in self.after:
            return self.after[resolved]
        info = await self.ctx.files.stat(resolved)
        if info is not None and info.kind != "file":
            kind = "a folder" if info.kind == "dir" else "not a regular file"
            raise ToolError(f"{self.ctx.show(resolved)} is {kind}: apply_patch changes files only")
        if info is not None and await self.ctx.is_credential(resolved, info=info):
            raise ToolError(f"{self.ctx.show(resolved)} {CREDENTIAL_REFUSAL}")
        data = (
            None
            if info is None
            else await self.ctx.files.read_bytes(resolved, follow_symlinks=False, expect=info)
        )
        self.before[resolved] = self.after[resolved] = data
        return data

    def touched(self) -> list[str]:
        return [path for path in self.before if self.before[path] != self.after[path]]


async def _plan(patch: str, ctx: ToolContext) -> _Plan:
    plan = _Plan(ctx)
    for operation in parse_patch(patch):
        resolved = await plan.path(operation.path)
        shown = ctx.show(resolved)
        current = await plan.current(resolved)
        if isinstance(operation, AddFile):
            plan.after[resolved] = operation.contents.encode("utf-8")
            plan.changes.append(f"A {shown}")
            continue
        if current is None:
            verb = "delete" if isinstance(operation, DeleteFile) else "update"
            raise ToolError(f"cannot {verb} {operation.path}: no such file (patch line {operation.line})")
        if isinstance(operation, DeleteFile):
            plan.after[resolved] = None
            plan.changes.append(f"D {shown}")
            continue
        await _update(plan, operation, resolved, current)
    return plan


async def _update(plan: _Plan, operation: UpdateFile, resolved: str, current: bytes) -> None:
    shown = plan.ctx.show(resolved)
    try:
        text = current.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{operation.path} is not UTF-8 text; apply_patch changes text files") from None
    try:
        updated = apply_to(text, operation.chunks).encode("utf-8")
    except ToolError as exc:
        raise ToolError(f"{operation.path}: {exc.message}") from None
    target = resolved if operation.move_to is None else await plan.path(operation.move_to)
    if target == resolved:
        plan.after[resolved] = updated
        plan.changes.append(f"M {shown}")
        return
    await plan.current(target)
    plan.after[resolved] = None
    plan.after[target] = updated
    plan.changes.append(f"R {shown} -> {plan.ctx.show(target)}")


async def _approve(plan: _Plan, ctx: ToolContext) -> None:
    shown = [ctx.show(path) for path in plan.before]
    places = [place for path in plan.before if (place := ctx.always_ask_place(path))]
    await ctx.approve(
        TOOL,
        "edit",
        "patch " + ", ".join(plan.changes),
        subject=shown[0] if len(shown) == 1 else "",
        subjects=tuple(shown) if len(shown) > 1 else (),
        always_ask=bool(places),
        ask_reason=f"it changes {places[0]}, which always asks" if places else "",
    )


async def _write(plan: _Plan, ctx: ToolContext) -> None:
    """Write every changed file, or put back those already written and raise."""
    started: list[str] = []
    try:
        for path in plan.touched():
            started.append(path)
            data = plan.after[path]
            if data is None:
                await ctx.files.delete(path, follow_symlinks=False)
            else:
                await ctx.files.write_bytes(path, data, follow_symlinks=False)
    except BaseException as exc:
        unrestored = await _restore(plan, ctx, started)
        if not isinstance(exc, OSError):
            raise
        left = f"; these could not be put back: {', '.join(unrestored)}" if unrestored else ""
        raise ToolError(
            f"writing {ctx.show(started[-1])} failed ({exc.strerror or exc}); "
            f"the files already written were put back, nothing was applied{left}"
        ) from None


async def _restore(plan: _Plan, ctx: ToolContext, started: list[str]) -> list[str]:
    """Put ``started`` back as they were, last first; the paths that could not be."""
    failed = []
    for path in reversed(started):
        before = plan.before[path]
        try:
            if before is not None:
                await ctx.files.write_bytes(path, before, follow_symlinks=False)
            elif await ctx.files.stat(path) is not None:
                await ctx.files.delete(path, follow_symlinks=False)
        except OSError:
            failed.append(ctx.show(path))
    return failed


async def _apply_patch(args: ApplyPatchArgs, ctx: ToolContext) -> ToolOutput:
    try:
        plan = await _plan(args.patch, ctx)
    except ToolError as exc:
        raise ToolError(f"{exc.message}\nNothing was applied.") from None
    await _approve(plan, ctx)
    await _write(plan, ctx)
    if ctx.journal is not None:
        for path in plan.touched():
            await ctx.journal.record(path, plan.before[path], plan.after[path])
    count = len(plan.changes)
    return ToolOutput(
        f"Applied the patch ({count} file{'s' if count != 1 else ''}):\n" + "\n".join(plan.changes)
    )


APPLY_PATCH = BuiltinTool(TOOL, ApplyPatchArgs, _apply_patch)

__all__ = ["APPLY_PATCH", "ApplyPatchArgs"]
