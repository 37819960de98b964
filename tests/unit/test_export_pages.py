"""Markdown and HTML exports: readable structure, escaping, clipping."""

from __future__ import annotations

import re

from circle.domain.checkpoints import Branch, Checkpoint, Label
from circle.domain.export import SessionArchive
from circle.domain.export_pages import HTML_RESULT_LIMIT, MARKDOWN_RESULT_LIMIT, to_html, to_markdown
from circle.domain.messages import (
    ImagePart,
    Message,
    StopReason,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)

PNG = "iVBORw0KGgo="


def _archive(result_text: str = "color = gren", *, prompt: str = "fix <b>the</b> typo") -> SessionArchive:
    messages = [
        Message(role="user", parts=(TextPart(text=prompt), ImagePart(media_type="image/png", data=PNG))),
        Message(
            role="assistant",
            parts=(
                ThinkingPart(text="first read\nthen edit"),
                TextPart(text="Reading it."),
                ToolCallPart(id="c1", name="read_file", arguments='{"file_path": "note.txt"}'),
            ),
            stop_reason=StopReason.TOOL_USE,
            model="gpt-x",
        ),
        Message.tool_result(call_id="c1", name="read_file", text=result_text),
        Message(role="assistant", parts=(TextPart(text="Fixed <script>alert(1)</script>."),)),
        Message.user("thanks"),
        Message(role="assistant", parts=(TextPart(text="You're welcome."),)),
    ]
    checkpoints = tuple(
        Checkpoint(
            id=f"k{i}",
            session_id="s1",
            parent_id=f"k{i - 1}" if i else None,
            seq=i + 1,
            message=m,
            created_at=float(i),
        )
        for i, m in enumerate(messages)
    )
    return SessionArchive(
        id="s1",
        workspace="/home/me/work",
        title="fix <b>the</b> typo",
        created_at=0.0,
        updated_at=60.0,
        checkpoints=checkpoints,
        branches=(Branch("s1", "main", "k5"), Branch("s1", "try-2", "k1")),
        labels=(Label("k3", "good point"),),
    )


def test_markdown_has_a_heading_per_turn_and_every_kind_of_part() -> None:
    text = to_markdown(_archive())
    assert text.startswith("# fix <b>the</b> typo\n")
    assert "- Session: `s1`" in text and "- Folder: `/home/me/work`" in text
    assert "- Other branches (in the JSONL export): try-2" in text
    assert re.findall(r"^## .*$", text, re.M) == ["## Turn 1", "## Turn 2"]
    assert "### You\n\nfix <b>the</b> typo\n\n[image]" in text
    assert "### Assistant · gpt-x" in text
    assert "> first read\n> then edit" in text
    assert '**Tool call** `read_file` (`c1`)\n\n```json\n{\n  "file_path": "note.txt"\n}\n```' in text
    assert "### Tool results\n\n**Result of** `read_file`\n\n```\ncolor = gren\n```" in text
    assert "_Label: good point_" in text
    assert text.index("Turn 2") < text.index("You're welcome.")


def test_markdown_clips_long_results_and_keeps_fences_intact() -> None:
    long = "x" * (MARKDOWN_RESULT_LIMIT + 500) + "\nfinal-line\n```"
    text = to_markdown(_archive(long))
    assert "x" * MARKDOWN_RESULT_LIMIT + "\n```" in text
    assert "_… 515 more characters (2 more lines) not shown; the JSONL export has everything._" in text
    assert "final-line" not in text
    fenced = to_markdown(_archive("before\n```\nafter"))
    assert "````\nbefore\n```\nafter\n````" in fenced


def test_markdown_can_show_another_branch() -> None:
    text = to_markdown(_archive(), branch="try-2")
    assert "Reading it." in text and "thanks" not in text
    assert "Other branches (in the JSONL export): main" in text


def test_html_is_one_self_contained_escaped_page() -> None:
    page = to_html(_archive())
    assert page.startswith("<!doctype html>")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert "<style>" in page and "Content-Security-Policy" in page
    assert not re.search(r"<(script|link)\b", page)
    assert not re.search(r"(src|href)=\"(?!data:)", page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<title>fix &lt;b&gt;the&lt;/b&gt; typo</title>" in page
    assert "<b>" not in page
    assert f'<img alt="image" src="data:image/png;base64,{PNG}">' in page


def test_html_folds_tool_results_and_clips_them() -> None:
    page = to_html(_archive("y" * (HTML_RESULT_LIMIT + 10)))
    assert "<details><summary>Result of <code>read_file</code></summary><pre>" in page
    assert "y" * HTML_RESULT_LIMIT + "</pre>" in page
    assert "10 more characters not shown" in page
    assert "<h2>Turn 1</h2>" in page and "<h2>Turn 2</h2>" in page


def test_html_refuses_images_it_cannot_vouch_for() -> None:
    archive = _archive()
    odd = Message(role="user", parts=(ImagePart(media_type='image/svg+xml" onload="x', data="<svg/>"),))
    cp = Checkpoint(id="k9", session_id="s1", parent_id="k5", seq=9, message=odd, created_at=9.0)
    tricky = SessionArchive(
        id=archive.id,
        workspace=archive.workspace,
        title=None,
        created_at=0.0,
        updated_at=0.0,
        checkpoints=(*archive.checkpoints, cp),
        branches=(Branch("s1", "main", "k9"),),
    )
    page = to_html(tricky)
    assert "onload" not in page and "<svg" not in page
    assert '<p class="note">[image]</p>' in page
    assert "<title>Session s1</title>" in page


def test_errors_and_results_marked_as_errors_are_shown() -> None:
    failed = Message(role="assistant", parts=(), error="endpoint <down>")
    bad = Message(
        role="tool",
        parts=(ToolResultPart(tool_call_id="c1", tool_name="execute", content=(), is_error=True),),
    )
    archive = SessionArchive(
        id="s",
        workspace="/w",
        title="t",
        created_at=0.0,
        updated_at=0.0,
        checkpoints=(
            Checkpoint(id="a", session_id="s", parent_id=None, seq=1, message=bad, created_at=0.0),
            Checkpoint(id="b", session_id="s", parent_id="a", seq=2, message=failed, created_at=0.0),
        ),
        branches=(Branch("s", "main", "b"),),
    )
    assert "_Error: endpoint <down>_" in to_markdown(archive)
    assert "**Result of** `execute` (error)" in to_markdown(archive)
    page = to_html(archive)
    assert "Error: endpoint &lt;down&gt;" in page and "(error)</span>" in page
