"""The built-in tools over the in-memory file system, search and process runner."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from circle.application.ports.process_runner import ProcessResult
from circle.application.tools import builtin_tools
from circle.application.tools import files as files_tools
from circle.application.tools.base import ToolOutput
from circle.domain.errors import ToolError
from circle.testing import Hang

from ._harness import WORKSPACE, Harness


async def run(h: Harness, name: str, **arguments: JsonValue) -> ToolOutput:
    return await builtin_tools()[name].invoke(dict(arguments), h.context())


async def test_read_file_numbers_lines_and_reads_windows() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/f.txt", "".join(f"line {i}\n" for i in range(1, 11)))
    out = await run(h, "read_file", file_path="f.txt", offset=3, limit=2)
    assert out.text.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "offset=5" in out.text
    whole = await run(h, "read_file", file_path="f.txt")
    assert "more lines" not in whole.text and whole.text.count("\n") == 9


@pytest.mark.parametrize("data", [b"a\r\nb\n\nc", b"\r\n\n", b"\xc3\xa9\xff\nlast\r\n", b"one", b""])
@pytest.mark.parametrize(("offset", "limit"), [(1, 2000), (2, 1), (1, 2), (3, 5)])
async def test_a_file_read_whole_gives_the_lines_its_window_gives(
    data: bytes, offset: int, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file up to WHOLE_READ_BYTES is read with one open and cut into lines by read_file; a
    larger one has its window read by the file system: the same answer either way."""
    h = Harness()
    h.files.put(f"{WORKSPACE}/f.txt", data)

    async def answer() -> str:
        try:
            return (await run(h, "read_file", file_path="f.txt", offset=offset, limit=limit)).text
        except ToolError as exc:
            return exc.message

    whole = await answer()
    monkeypatch.setattr(files_tools, "WHOLE_READ_BYTES", -1)
    assert await answer() == whole


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        ({}, {"file_path": "missing.txt"}, "file not found: missing.txt"),
        ({"sub/x": "x"}, {"file_path": "sub"}, "is a folder"),
        ({"bin": b"\x00\x01\x02"}, {"file_path": "bin"}, "binary file"),
        ({}, {"file_path": "../etc/passwd"}, "outside the workspace"),
        ({}, {"file_path": "/etc/passwd"}, "outside the workspace"),
        ({"f": "a\n"}, {"file_path": "f", "offset": 5}, "fewer than 5 lines"),
        ({}, {"path": "f"}, "invalid arguments for read_file"),
        ({}, {"file_path": "f", "offset": 0}, "offset"),
    ],
)
async def test_read_file_refusals(
    setup: dict[str, str | bytes], args: dict[str, JsonValue], message: str
) -> None:
    h = Harness()
    for name, data in setup.items():
        h.files.put(f"{WORKSPACE}/{name}", data)
    with pytest.raises(ToolError, match=message):
        await run(h, "read_file", **args)


async def test_a_symlink_out_of_the_workspace_is_refused() -> None:
    h = Harness()
    h.files.put("/secret/key", "k")
    h.files.symlinks[f"{WORKSPACE}/link"] = "/secret/key"
    with pytest.raises(ToolError, match="outside the workspace"):
        await run(h, "read_file", file_path="link")


async def test_write_then_edit_then_delete() -> None:
    h = Harness()
    created = await run(h, "write_file", file_path="dir/new.py", content="x = 1\ny = 1\n")
    assert created.text == "Created dir/new.py (2 lines)"
    edited = await run(h, "edit_file", file_path="dir/new.py", old_string="y = 1", new_string="y = 2")
    assert edited.text == "Edited dir/new.py (line 2)"
    assert h.files.files[f"{WORKSPACE}/dir/new.py"] == b"x = 1\ny = 2\n"
    assert (await run(h, "delete", file_path="dir/new.py")).text == "Deleted dir/new.py"
    assert f"{WORKSPACE}/dir/new.py" not in h.files.files


async def test_edit_file_needs_exact_unique_text() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/f", "a = 1\na = 1\n")
    with pytest.raises(ToolError, match="not found"):
        await run(h, "edit_file", file_path="f", old_string="b = 1", new_string="c")
    with pytest.raises(ToolError, match="appears 2 times"):
        await run(h, "edit_file", file_path="f", old_string="a = 1", new_string="c")
    with pytest.raises(ToolError, match="same"):
        await run(h, "edit_file", file_path="f", old_string="a", new_string="a")
    with pytest.raises(ToolError, match="empty"):
        await run(h, "edit_file", file_path="f", old_string="", new_string="a")
    out = await run(h, "edit_file", file_path="f", old_string="a = 1", new_string="b = 2", replace_all=True)
    assert out.text == "Edited f (2 places)"
    assert h.files.files[f"{WORKSPACE}/f"] == b"b = 2\nb = 2\n"


async def test_edit_file_refuses_non_utf8() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/latin", b"caf\xe9\n")
    with pytest.raises(ToolError, match="not UTF-8"):
        await run(h, "edit_file", file_path="latin", old_string="caf", new_string="x")


async def test_ls_glob_and_grep() -> None:
    h = Harness()
    h.files.put(f"{WORKSPACE}/src/a.py", "import os\nprint('hi')\n")
    h.files.put(f"{WORKSPACE}/src/b.py", "x = 'a.c'\nabc = 1\n")
    h.files.put(f"{WORKSPACE}/notes.md", "hello\n")
    listing = (await run(h, "ls")).text.splitlines()
    assert listing[0] == "src/" and any(line.startswith("notes.md") for line in listing)
    assert sorted((await run(h, "glob", pattern="**/*.py")).text.splitlines()) == ["src/a.py", "src/b.py"]
    assert (await run(h, "grep", pattern="a.c", literal=True)).text == "src/b.py"
    assert sorted((await run(h, "grep", pattern="a.c", output_mode="count")).text.splitlines()) == [
        "src/b.py:2"
    ]
    content = await run(h, "grep", pattern="print", output_mode="content", context=1)
    assert content.text.splitlines() == ["src/a.py-1-import os", "src/a.py:2:print('hi')"]
    assert (await run(h, "grep", pattern="nothing-here")).text == "no matches for nothing-here"
    with pytest.raises(ToolError, match="invalid pattern"):
        await run(h, "grep", pattern="(")


async def test_execute_reports_output_exit_code_and_timeouts() -> None:
    h = Harness()
    h.processes.script = {
        "make": ProcessResult(exit_code=2, output="error: no rule\n"),
        "echo hi": ProcessResult(exit_code=0, output="hi\n"),
        "forever": Hang(output="partial"),
    }
    ok = await run(h, "execute", command="echo hi")
    assert (ok.text, ok.is_error) == ("hi\n[exit code 0]", False)
    failed = await run(h, "execute", command="make")
    assert failed.is_error and failed.text.endswith("[exit code 2]")
    slow = await run(h, "execute", command="forever", timeout=1)
    assert slow.is_error and "timed out" in slow.text
    assert h.processes.calls[0].cwd == WORKSPACE
    with pytest.raises(ToolError, match="background jobs"):
        await run(h, "execute", command="x", background=True)
    with pytest.raises(ToolError, match="empty"):
        await run(h, "execute", command="  ")


def test_every_tool_has_a_description_and_a_schema_without_titles() -> None:
    for tool in builtin_tools().values():
        spec = tool.spec()
        assert spec.description and "title" not in str(spec.parameters)
        assert spec.parameters["type"] == "object"


async def test_a_call_s_context_is_a_copy_with_only_the_given_fields_changed() -> None:
    from dataclasses import fields

    base = Harness().context()
    await base.is_credential("main.py")  # base keeps its credential files made
    seen: list[str] = []
    call = base.for_call(call_arguments={"a": 1}, progress=seen.append, hook_allowed=True)
    assert (call.call_arguments, call.progress, call.hook_allowed) == ({"a": 1}, seen.append, True)
    assert (base.call_arguments, base.progress, base.hook_allowed) == ({}, None, False)
    same = [f.name for f in fields(base) if f.name not in ("call_arguments", "progress", "hook_allowed")]
    assert all(getattr(call, name) is getattr(base, name) for name in same if name != "_credentials")
    assert call._credentials is None  # as dataclasses.replace leaves it
    assert base.for_call(hook_allowed=False).call_arguments is base.call_arguments
