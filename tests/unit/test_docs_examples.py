"""Every Python block of docs/library.md and of the README's library section runs as written.

Blocks that talk to a model run against a loopback gateway named by ``CIRCLE_BASE_URL``; a block
preceded by ``<!-- not run: REASON -->`` is skipped, the reason shown in the test's skip line.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from circle._testing.gateway import ScriptedGateway, chat_text, chat_tool_calls
from circle.entrypoints.container import trust_list_at

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"(?:<!-- not run: (?P<skip>[^>]*?) -->\s*\n)?```python\n(?P<code>.*?)\n```", re.S)
SCRIPTS = {
    "open_ticket": (
        [
            chat_tool_calls([("call_1", "open_ticket", {"title": "the build fails"})]),
            chat_text("Filed ticket 101."),
        ],
        'allow? open_ticket {"title": "the build fails"}\nFiled ticket 101.\n',
    )
}
"""What the gateway answers a block naming a tool (a call of it, then an answer), and what the
block then prints."""


def library_section(text: str) -> str:
    start = text.index("## As a library")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def blocks() -> list[pytest.ParameterSet]:
    pages = {
        "docs/library.md": (ROOT / "docs/library.md").read_text(),
        "README.md": library_section((ROOT / "README.md").read_text()),
    }
    found = []
    for page, text in pages.items():
        for number, match in enumerate(BLOCK.finditer(text), 1):
            marks = [pytest.mark.skip(reason=f"{page}: {match['skip']}")] if match["skip"] else []
            found.append(pytest.param(match["code"], id=f"{page}#{number}", marks=marks))
    return found


def test_the_pages_have_python_blocks() -> None:
    assert len(blocks()) >= 4


@pytest.mark.parametrize("code", blocks())
def test_block_runs_as_written(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "path" / "to" / "repo"
    repo.mkdir(parents=True)
    (repo / "main.py").write_text("print('hello')\n")
    trusted = trust_list_at(Path(os.environ["CIRCLE_HOME"]))
    for folder in (tmp_path, repo):
        asyncio.run(trusted.trust(str(folder.resolve())))
    asyncio.run(trusted.aclose())
    gateway = ScriptedGateway(fallback=lambda request: chat_text("Done."))
    printed = ""
    for name, (answers, expected) in SCRIPTS.items():
        if name in code:
            gateway.enqueue(*answers)
            printed = expected
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CIRCLE_BASE_URL", gateway.start())
    monkeypatch.setenv("CIRCLE_PROTOCOL", "openai-chat")
    monkeypatch.setenv("CIRCLE_API_KEY", "test-key")
    monkeypatch.setenv("CIRCLE_MODEL", "qwen3-coder")
    try:
        exec(compile(code, "<block>", "exec"), {"__name__": "__main__"})
    finally:
        gateway.stop()
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert out.endswith(printed)
