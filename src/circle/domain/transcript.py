"""Messages as Markdown: the content only (no ids, usage or signatures), for summaries and archives.

:func:`transcript` writes what a compaction summarizes: whole for the conversation-history file,
or clipped (long tool output cut, the middle left out past a size) for the summary request.
:func:`history_file` names that file in the data folder.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Iterable

from .messages import DocumentPart, ImagePart, Message, TextPart, ThinkingPart, ToolCallPart, ToolResultPart

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _clip(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... {len(text) - limit} more characters]"


def _media(part: ImagePart | DocumentPart) -> str:
    name = f" {part.name}" if isinstance(part, DocumentPart) and part.name else ""
    return f"[{part.type}{name}: {part.media_type}]"


def message_markdown(message: Message, *, clip: int | None = None) -> str:
    """One message as a Markdown section; tool output longer than ``clip`` characters is cut."""
    lines = [f"## {message.role}"]
    for part in message.parts:
        match part:
            case TextPart(text=text):
                lines.append(text)
            case ThinkingPart(text=text):
                if text and clip is None:
                    lines.append(f"(thinking) {text}")
            case ImagePart() | DocumentPart():
                lines.append(_media(part))
            case ToolCallPart(name=name, arguments=arguments):
                lines.append(f"-> call `{name}` {_clip(arguments, clip)}")
            case ToolResultPart(tool_name=name, is_error=is_error, content=content):
                body = "\n".join(c.text if isinstance(c, TextPart) else _media(c) for c in content)
                lines.append(f"<- {'error from' if is_error else 'result of'} `{name}`:\n{_clip(body, clip)}")
    return "\n\n".join(lines)


def transcript(messages: Iterable[Message], *, clip: int | None = None, max_chars: int | None = None) -> str:
    """The messages as Markdown. Past ``max_chars`` the middle is left out (the start and the most
    recent part stay, a fifth and four fifths of the room)."""
    text = "\n\n".join(message_markdown(m, clip=clip) for m in messages)
    if max_chars is None or len(text) <= max_chars:
        return text
    head = max_chars // 5
    tail = max_chars - head
    left_out = len(text) - head - tail
    return f"{text[:head]}\n\n[... {left_out} characters of the middle left out ...]\n\n{text[-tail:]}"


def project_folder(workspace: str) -> str:
    """``<folder>-<id>``: the workspace's name and a short hash of its path, for the data folder."""
    name = _UNSAFE.sub("-", posixpath.basename(workspace.rstrip("/")) or "root").strip("-") or "root"
    digest = hashlib.sha256(workspace.encode()).hexdigest()[:8]
    return f"{name}-{digest}"


def history_file(data_dir: str, workspace: str, session_id: str, number: int) -> str:
    """Where the ``number``-th compaction of a session saves what it summarized."""
    folder = posixpath.join(data_dir, "projects", project_folder(workspace), "conversation_history")
    return posixpath.join(folder, f"{session_id}-{number}.md")


__all__ = ["history_file", "message_markdown", "project_folder", "transcript"]
