"""Tools written as Python functions: ``@circle.tool`` and the :class:`ToolContext` they may ask for.

The schema comes from the type hints (through pydantic), the description from the docstring (its
``Args:`` section describes each argument). The function runs as a built-in tool does: checked
against its schema, under the PreToolUse and PostToolUse hooks, and, unless it is ``read_only``,
asking first as a change of kind ``other`` with its arguments shown (the approval mode and rules
decide, a rule's pattern matching the arguments as shown: JSON, keys sorted; read-only mode
refuses it). What it returns becomes the result: text as it is, an
:class:`~circle.domain.messages.ImagePart` (or a list mixing text and images) as an attachment,
anything else as JSON. An exception becomes a tool error the model reads.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError, create_model

from circle.application.agent_loop import CURRENT_CALL
from circle.domain.errors import ToolError
from circle.domain.messages import DocumentPart, ImagePart
from circle.domain.model import ToolSpec

from . import base
from ._docstrings import describe
from ._schema import wire_schema


@dataclass(frozen=True)
class ToolContext:
    """What a Python tool may ask for: name a parameter ``ctx: circle.ToolContext``.

    Attributes:
        workspace: The agent's folder (absolute).
        tool_call_id: The id of the call being run.
        secrets: The saved secrets by name (secrets.json); arguments arrive with ``%NAME%`` expanded.
        cancelled: Set when the turn is stopped; a long plain function should check
            ``ctx.cancelled.is_set()`` (an async one is cancelled as usual as well).
    """

    workspace: str
    tool_call_id: str = ""
    secrets: Mapping[str, str] = field(default_factory=dict)
    cancelled: threading.Event = field(default_factory=threading.Event)
    _progress: Callable[[str], None] | None = field(default=None, repr=False)

    def progress(self, text: str) -> None:
        """Say how far the call got: a ``ToolExecutionUpdated`` event whose ``partial`` is ``text``
        (say all there is so far each time, as a command's output grows); safe from any thread."""
        if self._progress is not None:
            self._progress(text)


@dataclass(frozen=True)
class FunctionTool:
    """A tool made of a Python function by :func:`tool`; pass it in ``circle.Agent(tools=[...])``."""

    name: str
    description: str
    function: Callable[..., Any]
    args: type[BaseModel]
    context_parameter: str | None = None
    read_only: bool = False

    def spec(self) -> ToolSpec:
        parameters = wire_schema(self.args.model_json_schema())
        return ToolSpec(name=self.name, description=self.description, parameters=parameters)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The function itself, so a decorated function can still be called directly."""
        return self.function(*args, **kwargs)

    async def invoke(self, arguments: dict[str, JsonValue], ctx: base.ToolContext) -> base.ToolOutput:
        try:
            checked = self.args.model_validate(arguments)
        except ValidationError as exc:
            raise ToolError(base.describe_validation(self.name, exc)) from None
        if not self.read_only:
            shown = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
            await ctx.approve(self.name, "other", f"{self.name} {shown}", subject=shown)
        kwargs = {name: getattr(checked, name) for name in type(checked).model_fields}
        own = ToolContext(
            workspace=ctx.workspace,
            tool_call_id=CURRENT_CALL.get() or "",
            secrets=dict(ctx.secrets.values),
            _progress=_threadsafe(ctx.progress),
        )
        if self.context_parameter is not None:
            kwargs[self.context_parameter] = own
        try:
            result = await self._call(kwargs)
        except asyncio.CancelledError:
            own.cancelled.set()
            raise
        except ToolError:
            raise
        except Exception as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__) from None
        return output_of(result)

    async def _call(self, kwargs: dict[str, Any]) -> Any:
        if inspect.iscoroutinefunction(self.function):
            return await self.function(**kwargs)
        result = await asyncio.to_thread(self.function, **kwargs)
        if inspect.isawaitable(result):
            return await result
        return result


def _threadsafe(report: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """``report`` called on the event loop's thread, whichever thread the tool runs on."""
    if report is None:
        return None
    loop = asyncio.get_running_loop()

    def threadsafe(text: str) -> None:
        loop.call_soon_threadsafe(report, text)

    return threadsafe


def output_of(result: object) -> base.ToolOutput:
    """A function's return value as a tool result: text, images (attachments) or JSON."""
    items = result if isinstance(result, list | tuple) else [result]
    if items and all(isinstance(item, str | ImagePart | DocumentPart) for item in items):
        texts = [item for item in items if isinstance(item, str)]
        media = tuple(item for item in items if isinstance(item, ImagePart | DocumentPart))
        return base.ToolOutput("\n".join(texts) or f"({len(media)} attachment(s))", attachments=media)
    if result is None:
        return base.ToolOutput("(done)")
    try:
        text = TypeAdapter(Any).dump_json(result).decode()
    except Exception as exc:  # the value cannot be written as JSON
        raise ToolError(f"the tool returned a {type(result).__name__}, which is not JSON: {exc}") from None
    return base.ToolOutput(text)


@overload
def tool(function: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, read_only: bool = False
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Make a tool of a plain or async function with type hints and a docstring.

    Example::

        @circle.tool(read_only=True)
        def word_count(path: str, ctx: circle.ToolContext) -> int:
            \"\"\"Count the words of a file in the workspace.

            Args:
                path: The file, relative to the workspace.
            \"\"\"
            return len((Path(ctx.workspace) / path).read_text().split())

    Args:
        function: The function (when used as ``@circle.tool`` without parentheses).
        name: The tool's name (else the function's).
        description: What the model reads (else the docstring).
        read_only: The tool changes nothing: it runs without asking, in read-only mode too.

    Raises:
        TypeError: A parameter has no type hint, or the hints cannot be made a JSON schema.
    """

    def make(fn: Callable[..., Any]) -> FunctionTool:
        return _function_tool(fn, name=name, description=description, read_only=read_only)

    return make(function) if function is not None else make


def _function_tool(
    fn: Callable[..., Any], *, name: str | None, description: str | None, read_only: bool
) -> FunctionTool:
    tool_name = name or fn.__name__
    summary, documented = describe(inspect.getdoc(fn) or "")
    hints = get_type_hints(fn)
    fields: dict[str, Any] = {}
    context_parameter = None
    for parameter in inspect.signature(fn).parameters.values():
        hint = hints.get(parameter.name)
        if hint is ToolContext:
            context_parameter = parameter.name
            continue
        if hint is None:
            raise TypeError(f"the parameter {parameter.name!r} of the tool {tool_name} has no type hint")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hint, Field(default, description=documented.get(parameter.name)))
    config = ConfigDict(frozen=True, extra="forbid")
    try:
        args = create_model(f"{tool_name}_args", __config__=config, **fields)
        args.model_json_schema()
    except Exception as exc:  # pydantic's reasons vary; one line says which tool
        raise TypeError(f"the tool {tool_name}'s arguments cannot be a JSON schema: {exc}") from None
    text = description or summary or tool_name
    return FunctionTool(tool_name, text, fn, args, context_parameter=context_parameter, read_only=read_only)


__all__ = ["FunctionTool", "ToolContext", "output_of", "tool"]
