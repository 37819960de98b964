"""Words and lines the interface shows: the footer, the line under a turn, tool rows, diffs."""

from __future__ import annotations

import json
import re

from pydantic import JsonValue
from rich.ansi import AnsiDecoder
from rich.cells import cell_len
from rich.text import Text

from circle.application.events import CompactionEnded
from circle.domain import display
from circle.domain.errors import CircleError
from circle.domain.file_diff import unified_diff
from circle.domain.messages import Usage
from circle.domain.patch import AddFile, DeleteFile, parse_patch
from circle.domain.pricing import format_usd

MAX_TITLE = 100


def tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 10_000:
        return f"{count / 1000:.0f}k"
    if count >= 1000:
        return f"{count / 1000:.1f}k"
    return str(count)


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {rest}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes}m"


def cost(amount: float | None) -> str:
    return "cost unknown" if amount is None else format_usd(amount)


STOPPED_LINE = "⏹ cancelled"
"""Under an answer stopped while it streamed, in a resumed session (the live one says more)."""


def turn_line(
    seconds: float,
    usage: Usage,
    amount: float | None,
    *,
    aborted: bool = False,
    error: str | None = None,
    incomplete: bool = False,
    estimated: int = 0,
) -> str:
    """The line under a finished turn: ``✓ 3.2s · 1.2k tokens · $0.012``. When ``estimated`` of
    ``usage``'s tokens were guessed (no endpoint counted them: a stream stopped before its usage
    came) the count and a known cost are marked as estimates: ``⏹ 3.1s · ~89 tokens · ~$0.001 ·
    cancelled``."""
    mark = "✗" if error else "⏹" if aborted else "!" if incomplete else "✓"
    said = " · cancelled" if aborted else " · incomplete" if incomplete else ""
    about = "~" if estimated else ""
    spent = cost(amount) if amount is None else about + cost(amount)
    return f"{mark} {duration(seconds)} · {about}{tokens(usage.total)} tokens · {spent}{said}"


_UNKNOWN_COST = cost(None)


def fit_turn_line(line: str, width: int) -> str:
    """A :func:`turn_line` within ``width`` columns, on one line: an unknown cost goes first, then
    ``tokens`` is said ``tok``, then a known cost, the token count and the time go in turn; the
    mark and the state word (``cancelled``, ``incomplete``) stay. A line too long even so is cut
    with ``…``."""
    if cell_len(line) <= width:
        return line
    head, *parts = line.split(" · ")
    mark, _, _ = head.partition(" ")
    count = next((part for part in parts if part.endswith(" tokens")), None)
    if count is None or parts.index(count) != 0 or len(parts) not in (2, 3):
        return _cut(line, width)
    spent, state = parts[1], parts[2:]
    short = count.removesuffix(" tokens") + " tok"
    known = [] if spent == _UNKNOWN_COST else [spent]
    for shown in (
        [head, count, *known, *state],
        [head, short, *known, *state],
        [head, short, *state],
        [head, *state],
        [mark, *state] if state else [head],
    ):
        fitted = " · ".join(shown)
        if cell_len(fitted) <= width:
            return fitted
    return _cut(" ".join([mark, *state]) if state else head, width)


def _cut(text: str, width: int) -> str:
    """``text`` in ``width`` columns, ``…`` where it was cut."""
    if cell_len(text) <= width:
        return text
    cut = Text(text)
    cut.truncate(max(width, 1), overflow="ellipsis")
    return cut.plain


def footer_line(
    *,
    model: str,
    thinking: str | None,
    context_pct: float | None,
    session_tokens: int,
    session_cost: float | None,
    mode: str = "default",
    plan: bool = False,
    width: int | None = None,
    estimated: bool = False,
) -> str:
    """``model · thinking high · context 42% · 12k tokens · $1.50 · plan mode``, within ``width``
    columns: the model's name gives way first (its provider, then its middle), then the labels get
    shorter and the thinking level goes, then the model's name; then an unknown cost is said
    ``$?`` and the cost, the tokens and the context go in turn, so the mode shows whole. With
    ``estimated`` (some of the tokens were guessed: no endpoint counted them) the tokens and a known
    cost are marked ``~``, as the turn lines are."""
    if context_pct is None:
        context = "–"
    else:
        context = f"{context_pct:.1f}%" if context_pct < 10 else f"{context_pct:.0f}%"
    about = "~" if estimated else ""
    spent = cost(session_cost)  # as the turn lines say it: "cost unknown" for an unpriced model
    spent = spent if session_cost is None else about + spent
    moded = ["plan mode"] if plan else [] if mode == "default" else [mode]
    count = about + tokens(session_tokens)
    long = [f"thinking {thinking or 'off'}", f"context {context}", f"{count} tokens"]
    short = [f"think {thinking or 'off'}", f"ctx {context}", f"{count} tok"]
    stages = (
        (model, 0, long),
        (model.rsplit("/", 1)[-1], 16, long),
        (model.rsplit("/", 1)[-1], 8, short),
        (model.rsplit("/", 1)[-1], 5, short[1:]),
    )
    for name, least, rest in stages:
        tail = " · ".join([*rest, spent, *moded])
        room = len(name) if width is None else width - len(tail) - 3
        if room >= len(name):
            return f"{name} · {tail}"
        if least and room >= least:
            return f"{middle_cut(name, room)} · {tail}"
    # Without the model: an unknown cost says "$?", then the cost, the tokens and the context go.
    # The mode is never cut while it fits on its own: it says what a tool call will do.
    spent = "$?" if session_cost is None else spent
    tails = [" · ".join([*rest, *moded]) for rest in ([*short[1:], spent], short[1:], short[1:2], [])]
    if width is None:
        return tails[0]
    for tail in tails:
        if tail and len(tail) <= width:
            return tail
    last = tails[-1] or tails[-2]
    return last[: max(width - 1, 0)] + "…"


def middle_cut(text: str, width: int) -> str:
    """``claude-s…250929``: ``text`` in ``width`` columns, its middle left out."""
    if len(text) <= width:
        return text
    head = width // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def one_line(text: str, limit: int = MAX_TITLE, *, count_lines: bool = False) -> str:
    """``text`` on one line, escaped (see :func:`circle.domain.display.one_line`)."""
    return display.one_line(text, limit, count_lines=count_lines)


_KEY_ARG = {
    "execute": "command",
    "read_file": "file_path",
    "write_file": "file_path",
    "edit_file": "file_path",
    "delete": "file_path",
    "ls": "path",
    "glob": "pattern",
    "grep": "pattern",
    "webfetch": "url",
    "websearch": "query",
    "skill": "name",
    "task": "description",
    "stop_job": "job_id",
}


def tool_title(name: str, args: dict[str, JsonValue]) -> str:
    """``execute  ls -la`` — the tool and its most telling argument."""
    if name == "write_todos" and isinstance(todos := args.get("todos"), list):
        return f"{name}  {len(todos)} item{'' if len(todos) == 1 else 's'}"
    if name == "question" and isinstance(asked := args.get("questions"), list) and asked:
        first = asked[0].get("question") if isinstance(asked[0], dict) else None
        more = f" (+{len(asked) - 1} more)" if len(asked) > 1 else ""
        return f"{name}  {one_line(str(first or ''))}{more}"
    if name == "apply_patch" and isinstance(patch := args.get("patch") or args.get("input"), str):
        return f"{name}  {one_line(_patch_summary(patch))}"
    if name == "plan_exit" and isinstance(plan := args.get("plan"), str) and plan.strip():
        return f"{name}  {_plan_summary(plan)}"
    key = _KEY_ARG.get(name)
    value = args.get(key) if key else None
    if isinstance(value, str) and value:
        return f"{name}  {one_line(value, count_lines=True)}"
    if name in _IN_WORKSPACE:
        return f"{name}  ."
    if not args:
        return name
    pairs = ", ".join(
        f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}" for k, v in args.items()
    )
    return f"{name}  {one_line(pairs, 80)}"


_IN_WORKSPACE = frozenset({"ls"})
"""Tools whose key argument, left out, means the workspace."""


def _plan_summary(plan: str) -> str:
    """``Rename x to y  (+3 more lines)``: the plan's first line, its heading marks left out."""
    first = next(line for line in display.split_lines(plan) if line.strip())
    more = display.more_lines(plan.strip("\n"))
    return one_line(first.strip().lstrip("#").strip()) + (f"  {more}" if more else "")


def _patch_summary(patch: str) -> str:
    """``A notes.txt, M app.py``: each file a patch adds, changes, moves or deletes, as the
    approval card says it; ``N lines`` when the patch does not parse."""
    try:
        operations = parse_patch(patch)
    except CircleError:
        return display.lines_said(display.count_lines(patch))
    said = []
    for operation in operations:
        if isinstance(operation, AddFile):
            said.append(f"A {operation.path}")
        elif isinstance(operation, DeleteFile):
            said.append(f"D {operation.path}")
        elif operation.move_to is not None:
            said.append(f"R {operation.path} -> {operation.move_to}")
        else:
            said.append(f"M {operation.path}")
    return ", ".join(said) or "empty"


def edit_preview(name: str, args: dict[str, JsonValue], current: str | None) -> str | None:
    """The diff a file tool's call would make, from its arguments and the file as it is now."""
    path = args.get("file_path")
    shown = path if isinstance(path, str) else "file"
    if name == "write_file":
        content = args.get("content")
        if isinstance(content, str):
            return unified_diff(current or "", content, shown)
    if name == "edit_file":
        old, new = args.get("old_string"), args.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            if current is not None and old in current:
                every = args.get("replace_all") is True
                changed = current.replace(old, new) if every else current.replace(old, new, 1)
                return unified_diff(current, changed, shown)
            return unified_diff(old, new, shown)
    if name == "apply_patch":
        patch = args.get("patch") or args.get("input")
        if isinstance(patch, str):
            return patch
    if name == "delete" and current is not None:
        return unified_diff(current, "", shown)
    return None


def clip(text: str, lines: int) -> tuple[str, int]:
    """The first ``lines`` lines of ``text`` and how many were left out."""
    split = text.splitlines()
    if len(split) <= lines:
        return text, 0
    return "\n".join(split[:lines]), len(split) - lines


_SEQUENCES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]")
"""Escape sequences a terminal would act on: CSI (colours, cursor moves, erasing), OSC (titles,
links, ended by BEL or ST) and the two-character ones (``ESC 7``, ``ESC (B``)."""
_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def terminal_text(output: str) -> Text:
    """A command's output as a terminal shows it: colours and bold (SGR) as styles, any other
    escape sequence dropped, and on each line the text after a carriage return written over the
    line from its start (a progress bar shows its last state). What is left of control characters
    is escaped (:func:`circle.domain.display.escape_for_display`). Display only: the model reads
    the output as it came."""
    decoder = AnsiDecoder()
    text = Text()
    for index, line in enumerate(output.split("\n")):
        if index:
            text.append("\n")
        shown = Text()
        for part in line.split("\r"):
            over = decoder.decode_line(_escaped(part))  # the style goes on across the return
            shown = over + shown[len(over.plain) :] if len(over.plain) < len(shown.plain) else over
        text.append_text(shown)
    return text


def _escaped(part: str) -> str:
    """``part`` with its SGR sequences kept, every other escape sequence dropped and the rest of
    its control characters escaped."""
    pieces: list[str] = []
    kept = 0
    for found in _SEQUENCES.finditer(part):
        pieces.append(display.escape_for_display(part[kept : found.start()], newlines=False))
        if _SGR.fullmatch(found[0]):
            pieces.append(found[0])
        kept = found.end()
    pieces.append(display.escape_for_display(part[kept:], newlines=False))
    return "".join(pieces)


def clip_text(text: Text, lines: int) -> tuple[Text, int]:
    """:func:`clip` of styled text: its first ``lines`` lines and how many were left out."""
    split = text.split("\n", allow_blank=True)
    if len(split) <= lines:
        return text, 0
    return Text("\n").join(split[:lines]), len(split) - lines


def more_shown(more: int) -> str:
    """``… 1 more line``, ``… 29 more lines``: what a folded row leaves out."""
    return f"… {more} more line{'' if more == 1 else 's'}"


_NOTHING_TO_COMPACT = "nothing to compact"


def compaction_line(event: CompactionEnded) -> tuple[str, str]:
    """The line a compaction's end shows, and its kind (``info`` or ``error``): one that found
    nothing to summarize is said plainly, not as a failure."""
    if event.error == _NOTHING_TO_COMPACT:
        return "Nothing to compact yet.", "info"
    if event.error:
        return f"Compaction failed: {event.error}", "error"
    saved = f", {event.tokens_before:,} → {event.tokens_after:,} tokens" if event.tokens_before else ""
    where = f"; the full text is in {event.history_file}" if event.history_file else ""
    messages = f"{event.summarized} message{'' if event.summarized == 1 else 's'}"
    return f"Compacted: {messages} summarized, {event.kept} kept{saved}{where}", "info"


__all__ = [
    "STOPPED_LINE",
    "clip",
    "clip_text",
    "compaction_line",
    "cost",
    "duration",
    "edit_preview",
    "fit_turn_line",
    "footer_line",
    "middle_cut",
    "more_shown",
    "one_line",
    "terminal_text",
    "tokens",
    "tool_title",
    "turn_line",
    "unified_diff",
]
