"""Tool-call repair through the installed `circle -p`: names models commonly send still run the tool."""

from __future__ import annotations

from circle._testing.gateway import chat_text, chat_tool_calls

from .conftest import Circle


def test_execute_with_cmd_runs_the_command_and_the_model_reads_what_was_mended(cli: Circle) -> None:
    cli.gateway.enqueue(
        chat_tool_calls(
            [
                ("c1", "execute", {"cmd": "echo hi-$((6*7))"}),
                ("c2", "edit_file", {"path": "a.txt", "old_str": "one", "new_str": "two"}),
            ]
        ),
        chat_text("Done."),
    )
    (cli.workspace / "a.txt").write_text("one\n")
    done = cli.run("-p", "--yolo", "run it")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Done.\n"
    assert (cli.workspace / "a.txt").read_text() == "two\n"
    results = [m["content"] for m in cli.gateway.requests[-1].json()["messages"] if m["role"] == "tool"]
    assert "hi-42" in results[0] and "[exit code 0]" in results[0]
    assert "(call repaired: argument cmd → command)" in results[0]
    assert "argument old_str → old_string" in results[1] and "argument new_str → new_string" in results[1]
