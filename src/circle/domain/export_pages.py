"""A session for people to read: Markdown, and one self-contained HTML page.

Both show one branch's conversation (main unless told), a heading per turn (a turn starts at a
person's message), the answers' text, thinking as quotes, tool calls as JSON and tool results
clipped to a readable length with a note saying how much was left out (the JSONL export keeps
all of it). The HTML page has its CSS inline, loads nothing, escapes every piece of text and
folds tool results into ``<details>``; it reads on a phone as well as on a desktop.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime

from .checkpoints import Checkpoint
from .export import SessionArchive
from .messages import (
    DocumentPart,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

MARKDOWN_RESULT_LIMIT = 2_000
"""Characters of one tool result shown in Markdown."""
HTML_RESULT_LIMIT = 20_000
"""Characters of one tool result shown on the HTML page (folded away by default)."""

_SAFE_IMAGE = re.compile(r"image/(png|jpeg|gif|webp)")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _clip(text: str, limit: int) -> tuple[str, str | None]:
    """The text cut at ``limit`` characters, and a note on what was cut (None when nothing was)."""
    if len(text) <= limit:
        return text, None
    rest = text[limit:]
    lines = rest.count("\n")
    more = f"{len(rest):,} more characters" + (f" ({lines:,} more lines)" if lines else "")
    return text[:limit], f"… {more} not shown; the JSONL export has everything."


def _arguments(call: ToolCallPart) -> tuple[str, bool]:
    """The call's arguments pretty-printed (and True) when they are JSON, else as written."""
    try:
        return json.dumps(json.loads(call.arguments or "{}"), indent=2, ensure_ascii=False), True
    except ValueError:
        return call.arguments, False


def _turns(conversation: list[Checkpoint]) -> Iterator[tuple[int, list[Checkpoint]]]:
    """The conversation cut into turns, each starting at a person's message (0 for what comes first)."""
    number, current = 0, list[Checkpoint]()
    for cp in conversation:
        if cp.message.role == "user" and current:
            yield number, current
            current = []
        if cp.message.role == "user":
            number += 1
        current.append(cp)
    if current:
        yield number, current


def _speaker(message: Message) -> str:
    if message.role == "user":
        return "You"
    if message.role == "tool":
        return "Tool results"
    return "Assistant" + (f" · {message.model}" if message.model else "")


def _single_line(text: str) -> str:
    return " ".join(text.split())


def _title(archive: SessionArchive) -> str:
    return _single_line(archive.title or "") or f"Session {archive.id}"


def _other_branches(archive: SessionArchive, shown: str | None) -> list[str]:
    return sorted(b.name for b in archive.branches if b.name != shown)


# Markdown


def _fence(text: str, language: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""])


def _md_result(part: ToolResultPart) -> list[str]:
    heading = f"**Result of** `{part.tool_name}`" + (" (error)" if part.is_error else "")
    out = [heading]
    for item in part.content:
        if isinstance(item, TextPart):
            shown, note = _clip(item.text, MARKDOWN_RESULT_LIMIT)
            out.append(_fence(shown))
            if note:
                out.append(f"_{note}_")
        elif isinstance(item, ImagePart):
            out.append("[image]")
        else:
            out.append(f"[document{': ' + item.name if item.name else ''}]")
    return out


def _md_parts(message: Message) -> list[str]:
    out: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            if part.text.strip():
                out.append(part.text)
        elif isinstance(part, ThinkingPart):
            out.append(_quote(part.text) if part.text.strip() else "> [thinking not shown by the provider]")
        elif isinstance(part, ImagePart):
            out.append("[image]")
        elif isinstance(part, DocumentPart):
            out.append(f"[document{': ' + part.name if part.name else ''}]")
        elif isinstance(part, ToolCallPart):
            text, is_json = _arguments(part)
            out.append(f"**Tool call** `{part.name}` (`{part.id}`)")
            out.append(_fence(text, "json" if is_json else ""))
        else:
            out.extend(_md_result(part))
    if message.error:
        out.append(f"_Error: {_single_line(message.error)}_")
    return out


def to_markdown(archive: SessionArchive, *, branch: str | None = None) -> str:
    """The conversation on ``branch`` (main by default) as Markdown."""
    conversation = archive.conversation(branch)
    labels: dict[str, list[str]] = {}
    for label in archive.labels:
        labels.setdefault(label.checkpoint_id, []).append(label.text)
    out = [f"# {_title(archive)}", ""]
    out.append(f"- Session: `{archive.id}`")
    out.append(f"- Folder: `{archive.workspace}`")
    out.append(f"- Started: {_when(archive.created_at)}; last change: {_when(archive.updated_at)}")
    out.append(f"- Messages: {len(conversation)}")
    if others := _other_branches(archive, archive.branch_shown(branch)):
        out.append(f"- Other branches (in the JSONL export): {', '.join(others)}")
    for number, checkpoints in _turns(conversation):
        if number:
            out.extend(["", f"## Turn {number}"])
        for cp in checkpoints:
            out.extend(["", f"### {_speaker(cp.message)}"])
            for text in labels.get(cp.id, []):
                out.extend(["", f"_Label: {_single_line(text)}_"])
            for block in _md_parts(cp.message):
                out.extend(["", block])
    return "\n".join(out) + "\n"


# HTML

_CSS = """
:root { color-scheme: light dark; --fg: #1d1d1f; --bg: #fff; --muted: #6e6e73; --line: #d2d2d7;
  --user: #eef4ff; --tool: #f5f5f7; --code: #f6f8fa; --err: #b3261e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8e8ed; --bg: #161618; --muted: #a1a1a6;
  --line: #3a3a3c; --user: #1c2a44; --tool: #222225; --code: #1e1e20; --err: #ff8a80; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: .5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 2rem 0 .5rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: .9rem; margin: 0 0 .25rem; color: var(--muted); text-transform: uppercase;
  letter-spacing: .03em; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; color: var(--muted);
  margin: 0; }
dd { margin: 0; overflow-wrap: anywhere; }
.msg { margin: .75rem 0; padding: .75rem; border-radius: .5rem; border: 1px solid var(--line); }
.user { background: var(--user); }
.tool { background: var(--tool); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .25rem 0; }
blockquote { margin: .5rem 0; padding-left: .75rem; border-left: 3px solid var(--line); color: var(--muted); }
pre { background: var(--code); padding: .5rem; border-radius: .35rem; overflow-x: auto;
  font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap;
  overflow-wrap: anywhere; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
summary { cursor: pointer; }
.error { color: var(--err); }
.note, .label { color: var(--muted); font-size: .875rem; }
img { max-width: 100%; height: auto; }
"""


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _html_image(part: ImagePart) -> str:
    if _SAFE_IMAGE.fullmatch(part.media_type) and _BASE64.fullmatch(part.data):
        return f'<img alt="image" src="data:{part.media_type};base64,{"".join(part.data.split())}">'
    return '<p class="note">[image]</p>'


def _html_result(part: ToolResultPart) -> str:
    state = ' <span class="error">(error)</span>' if part.is_error else ""
    body: list[str] = []
    for item in part.content:
        if isinstance(item, TextPart):
            shown, note = _clip(item.text, HTML_RESULT_LIMIT)
            body.append(f"<pre>{_e(shown)}</pre>")
            if note:
                body.append(f'<p class="note">{_e(note)}</p>')
        elif isinstance(item, ImagePart):
            body.append(_html_image(item))
        else:
            body.append(f'<p class="note">[document{_e(": " + item.name) if item.name else ""}]</p>')
    return (
        f"<details><summary>Result of <code>{_e(part.tool_name)}</code>{state}</summary>"
        + "".join(body)
        + "</details>"
    )


def _html_parts(message: Message) -> list[str]:
    out: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            if part.text.strip():
                out.append(f'<div class="text">{_e(part.text)}</div>')
        elif isinstance(part, ThinkingPart):
            shown = part.text if part.text.strip() else "[thinking not shown by the provider]"
            out.append(f'<blockquote class="thinking"><div class="text">{_e(shown)}</div></blockquote>')
        elif isinstance(part, ImagePart):
            out.append(_html_image(part))
        elif isinstance(part, DocumentPart):
            out.append(f'<p class="note">[document{_e(": " + part.name) if part.name else ""}]</p>')
        elif isinstance(part, ToolCallPart):
            text, _ = _arguments(part)
            out.append(
                f'<div class="call">Tool call <code>{_e(part.name)}</code>'
                f' <span class="note">{_e(part.id)}</span><pre>{_e(text)}</pre></div>'
            )
        else:
            out.append(_html_result(part))
    if message.error:
        out.append(f'<p class="error">Error: {_e(message.error)}</p>')
    return out


def _html_header(archive: SessionArchive, shown: int, others: list[str]) -> list[str]:
    rows = [
        ("Session", archive.id),
        ("Folder", archive.workspace),
        ("Started", _when(archive.created_at)),
        ("Last change", _when(archive.updated_at)),
        ("Messages", str(shown)),
    ]
    if others:
        rows.append(("Other branches", ", ".join(others) + " (in the JSONL export)"))
    cells = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in rows)
    return [f"<header><h1>{_e(_title(archive))}</h1><dl>{cells}</dl></header>"]


def to_html(archive: SessionArchive, *, branch: str | None = None) -> str:
    """The conversation on ``branch`` (main by default) as one self-contained HTML page."""
    conversation = archive.conversation(branch)
    labels: dict[str, list[str]] = {}
    for label in archive.labels:
        labels.setdefault(label.checkpoint_id, []).append(label.text)
    body = _html_header(archive, len(conversation), _other_branches(archive, archive.branch_shown(branch)))
    for number, checkpoints in _turns(conversation):
        body.append("<section>" + (f"<h2>Turn {number}</h2>" if number else ""))
        for cp in checkpoints:
            role = cp.message.role
            marks = "".join(f'<p class="label">Label: {_e(text)}</p>' for text in labels.get(cp.id, []))
            parts = "".join(_html_parts(cp.message))
            body.append(
                f'<article class="msg {role}"><h3>{_e(_speaker(cp.message))}</h3>{marks}{parts}</article>'
            )
        body.append("</section>")
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{_e(_title(archive))}</title><style>{_CSS}</style></head>\n"
        "<body><main>\n" + "\n".join(body) + "\n</main></body></html>\n"
    )


__all__ = ["HTML_RESULT_LIMIT", "MARKDOWN_RESULT_LIMIT", "to_html", "to_markdown"]
