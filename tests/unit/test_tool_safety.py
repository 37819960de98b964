"""Credential files refused to the tools, saved secrets put in after approval and masked in results."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from circle.application.events import ToolExecutionEnded, ToolExecutionStarted
from circle.application.ports.process_runner import ProcessResult
from circle.application.ports.text_search import GrepLine, GrepQuery, GrepResult
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolContext, ToolOutput
from circle.domain.errors import ApprovalDeniedError, ToolError
from circle.domain.secrets import Secrets
from circle.testing import Call, InMemoryTextSearch, ScriptedApprover, answer

from ._harness import WORKSPACE, Harness

REFUSED = "is a credential file: Circle does not read or change credential files"
TOKEN = "tok-value-98765"


async def run_in(ctx: ToolContext, name: str, **arguments: JsonValue) -> ToolOutput:
    return await builtin_tools()[name].invoke(dict(arguments), ctx)


async def run(h: Harness, name: str, **arguments: JsonValue) -> ToolOutput:
    return await run_in(h.context(), name, **arguments)


def _with_dotenv() -> Harness:
    h = Harness()
    h.files.put(f"{WORKSPACE}/.env", "API_KEY=sk-live-1234\n")
    h.files.put(f"{WORKSPACE}/app/.env.local", "API_KEY=sk-local-1234\n")
    h.files.put(f"{WORKSPACE}/.env.example", "API_KEY=\n")
    h.files.put(f"{WORKSPACE}/app/main.py", "key = load('API_KEY')\n")
    return h


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_file", {"file_path": ".env"}),
        ("read_file", {"file_path": "app/.env.local"}),
        ("write_file", {"file_path": ".env", "content": "X=1\n"}),
        ("write_file", {"file_path": "certs/new.pem", "content": "x"}),
        ("edit_file", {"file_path": ".env", "old_string": "API_KEY", "new_string": "K"}),
        ("delete", {"file_path": "app/.env.local"}),
        ("grep", {"pattern": "API_KEY", "path": ".env"}),
        ("ls", {"path": "~/.ssh"}),
        ("glob", {"pattern": "*", "path": ".ssh"}),
    ],
)
async def test_credential_files_are_refused_to_the_file_tools(tool: str, args: dict[str, JsonValue]) -> None:
    h = _with_dotenv()
    approver = ScriptedApprover(allow={"write_file", "edit_file", "delete"})
    h.approver = approver
    with pytest.raises(ToolError, match=REFUSED):
        await run(h, tool, **args)
    assert h.files.writes == [] and h.files.deleted == [] and approver.requests == []


async def test_templates_stay_readable() -> None:
    h = _with_dotenv()
    assert "API_KEY=" in (await run(h, "read_file", file_path=".env.example")).text


async def test_ls_marks_credential_files_and_glob_leaves_them_out() -> None:
    h = _with_dotenv()
    listing = (await run(h, "ls")).text.splitlines()
    assert ".env  (21 bytes, credential file: not readable)" in listing
    assert ".env.example  (9 bytes)" in listing
    found = (await run(h, "glob", pattern="**/.env*")).text.splitlines()
    assert found == [".env.example", "(2 credential files left out)"]
    assert (await run(h, "glob", pattern=".env")).text == "no files match .env (1 credential files left out)"


async def test_grep_over_a_folder_does_not_search_credential_files() -> None:
    h = _with_dotenv()
    ctx = h.context()
    out = await run_in(ctx, "grep", pattern="API_KEY", output_mode="content")
    assert out.text.splitlines() == [".env.example:1:API_KEY=", "app/main.py:1:key = load('API_KEY')"]
    assert isinstance(ctx.search, InMemoryTextSearch)
    assert {".env", "*.pem", ".ssh"} <= set(ctx.search.queries[0].exclude_globs)


async def test_grep_drops_credential_files_a_search_returned_anyway() -> None:
    class CarelessSearch:
        async def grep(self, query: GrepQuery) -> GrepResult:
            lines = [GrepLine(f"{WORKSPACE}/.env", 1, "K=sk-1"), GrepLine(f"{WORKSPACE}/a.py", 2, "K")]
            return GrepResult(lines=lines, counts={f"{WORKSPACE}/.env": 1, f"{WORKSPACE}/a.py": 1})

    h = Harness()
    ctx = h.context()
    ctx.search = CarelessSearch()
    assert (await run_in(ctx, "grep", pattern="K", output_mode="content")).text == "a.py:2:K"
    assert (await run_in(ctx, "grep", pattern="K", output_mode="count")).text == "a.py:1"


async def test_a_link_to_a_credential_file_is_refused_as_the_file() -> None:
    h = _with_dotenv()
    h.files.symlink(f"{WORKSPACE}/notes.txt", f"{WORKSPACE}/.env")
    with pytest.raises(ToolError, match=REFUSED):
        await run(h, "read_file", file_path="notes.txt")
    found = (await run(h, "glob", pattern="*.txt")).text
    assert found == "no files match *.txt (1 credential files left out)"


async def test_a_write_through_a_link_to_ssh_config_is_refused() -> None:
    h = Harness()
    h.files.put("/home/me/.ssh/config", "Host *\n")
    h.files.symlink(f"{WORKSPACE}/hosts", "/home/me/.ssh/config")
    with pytest.raises(ToolError, match=f"hosts {REFUSED}"):
        await run(h, "write_file", file_path="hosts", content="Host evil\n")
    with pytest.raises(ToolError, match=REFUSED):
        await run(h, "edit_file", file_path="hosts", old_string="Host *", new_string="Host evil")
    assert h.files.files["/home/me/.ssh/config"] == b"Host *\n" and h.files.writes == []


async def test_a_write_outside_the_workspace_asks_and_says_where() -> None:
    h = Harness()
    approver = ScriptedApprover(allow={"write_file"})
    h.approver = approver
    out = await run(h, "write_file", file_path="/tmp/notes.txt", content="hi\n")
    assert out.text == "Created /tmp/notes.txt (1 line)"
    assert approver.requests[0].summary == "write /tmp/notes.txt (outside the workspace)"
    assert approver.requests[0].kind == "edit"
    h.approver = ScriptedApprover()
    with pytest.raises(ApprovalDeniedError):
        await run(h, "delete", file_path="/tmp/notes.txt")
    assert h.files.deleted == []
    with pytest.raises(ToolError, match="outside the workspace"):
        await run(h, "read_file", file_path="/tmp/notes.txt")


@pytest.mark.parametrize(
    "command",
    [
        "cat .env",
        "grep -r KEY app/.env.local",
        "cp ~/.ssh/id_rsa /tmp/k",
        "ls && cat secrets.json",
        "cat notes",
    ],
)
async def test_a_command_naming_a_credential_file_is_refused_before_approval(command: str) -> None:
    h = _with_dotenv()
    h.files.symlink(f"{WORKSPACE}/notes", f"{WORKSPACE}/.env")
    approver = ScriptedApprover(allow={"execute"})
    h.approver = approver
    with pytest.raises(ToolError, match="credential file"):
        await run(h, "execute", command=command)
    assert h.processes.calls == [] and approver.requests == []


@pytest.mark.parametrize(
    "command", ["git diff /dev/null linked.txt | rev", "git diff --no-index /dev/null sub/../linked.txt"]
)
async def test_a_command_naming_a_hard_link_to_a_credential_file_is_refused(command: str) -> None:
    h = Harness()
    h.files.put("/home/me/.ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
    h.files.hardlink(f"{WORKSPACE}/linked.txt", "/home/me/.ssh/id_rsa")
    h.files.mkdir(f"{WORKSPACE}/sub")
    approver = ScriptedApprover(allow={"execute"})
    h.approver = approver
    ctx = h.context()
    ctx.home = "/home/me"
    with pytest.raises(ToolError, match=f"linked.txt, which {REFUSED}"):
        await run_in(ctx, "execute", command=command)
    assert h.processes.calls == [] and approver.requests == []


async def test_execute_output_is_masked_then_redacted() -> None:
    h = Harness()
    key = "sk-" + "A1b2" * 8
    h.processes.script = {"show": ProcessResult(exit_code=0, output=f"{TOKEN}\nkey={key}\nplain {key}\n")}
    ctx = h.context()
    ctx.secrets = Secrets({"TOKEN": TOKEN, "OTHER": key})
    out = await run_in(ctx, "execute", command="show")
    assert out.text == "%TOKEN%\nkey=%OTHER%\nplain %OTHER%\n[exit code 0]"
    ctx.secrets = Secrets({"TOKEN": TOKEN})
    out = await run_in(ctx, "execute", command="show")
    assert out.text == "%TOKEN%\nkey=[REDACTED]\nplain [REDACTED]\n[exit code 0]"


async def test_commands_run_with_the_environment_the_runtime_was_given() -> None:
    h = Harness()
    h.processes.default = ProcessResult(exit_code=0, output="")
    h.model.add(answer("", Call("execute", {"command": "env"})), answer("done"))
    runtime = h.runtime()
    runtime.options.env = {"PATH": "/usr/bin"}
    await (await runtime.new_session()).prompt("run env")
    assert h.processes.calls[0].env == {"PATH": "/usr/bin"}


async def test_a_secret_is_put_in_after_approval_and_masked_everywhere_the_model_reads() -> None:
    h = Harness()
    approver = ScriptedApprover(allow={"execute", "write_file"})
    h.approver = approver
    h.processes.script = {f"echo {TOKEN}": ProcessResult(exit_code=0, output=f"{TOKEN}\n")}
    h.model.add(
        answer(
            "",
            Call("execute", {"command": "echo %TOKEN%"}),
            Call("write_file", {"file_path": "t.txt", "content": "%TOKEN% %UNKNOWN%\n"}),
            Call("read_file", {"file_path": "t.txt"}),
        ),
        answer("done"),
    )
    runtime = h.runtime()
    runtime.options.secrets = Secrets({"TOKEN": TOKEN})
    session = await runtime.new_session()
    await session.prompt("use the token")

    assert [c.command for c in h.processes.calls] == [f"echo {TOKEN}"]
    assert h.files.files[f"{WORKSPACE}/t.txt"] == f"{TOKEN} %UNKNOWN%\n".encode()
    assert [r.summary for r in approver.requests] == ["echo %TOKEN%", "write t.txt"]
    stored = [cp.message for cp in await h.store.history(session.session_id)]
    assert stored[1].tool_calls[0].parsed_arguments() == {"command": "echo %TOKEN%"}
    results = [m.tool_results[0].text for m in h.model.requests[1].messages if m.role == "tool"]
    assert results[0] == "%TOKEN%\n[exit code 0]"
    assert "%TOKEN% %UNKNOWN%" in results[2]
    everything = repr(stored) + repr(h.model.requests) + repr(h.sink.events)
    assert TOKEN not in everything
    started = [e for e in h.sink.events if isinstance(e, ToolExecutionStarted)]
    assert started[0].args == {"command": "echo %TOKEN%"}
    ended = [e for e in h.sink.events if isinstance(e, ToolExecutionEnded)]
    assert ended[0].result == "%TOKEN%\n[exit code 0]"
