"""`circle --mode rpc` through real pipes: every command, every event, and how it ends."""

from __future__ import annotations

import base64
import itertools
import json
import signal
import struct
import subprocess
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from circle._testing.gateway import chat_text, chat_tool_calls
from circle._testing.processes import process_alive

from ._rpc import RpcProcess
from .conftest import Circle, circle_command


@pytest.fixture
def rpc(cli: Circle) -> Iterator[RpcProcess]:
    process = RpcProcess(cli, "--yolo")
    yield process
    process.kill()


def _wait_file(path: Path, timeout: float = 10) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text().strip():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.02)
    return path.read_text()


def test_a_prompt_answers_at_once_then_streams_its_turn_and_settles(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_text("Hello there."))
    response = rpc.request("prompt", message="say hello")
    assert response == {
        "type": "response",
        "command": "prompt",
        "success": True,
        "id": response["id"],
        "data": {"disposition": "started"},
    }
    settled = rpc.event("agent_settled")
    kinds = [line["type"] for line in rpc.lines]
    start, end = kinds.index("turn_start"), kinds.index("turn_end")
    assert start < kinds.index("message_update") < end < kinds.index("agent_settled")
    assert rpc.lines[start]["message"] == "say hello"
    assert rpc.lines[end]["answer"] == "Hello there."
    assert settled["session_id"] == rpc.lines[start]["session_id"]
    assert rpc.close() == 0
    assert rpc.lines[-1] == {"type": "jobs_stopped", "count": 0}


def test_every_line_is_one_json_object_and_ids_come_back_as_sent(cli: Circle, rpc: RpcProcess) -> None:
    rpc.send({"id": 7, "type": "get_state"})
    numeric = rpc.wait_for(lambda d: d.get("id") == 7)
    assert numeric["success"] is True
    rpc.send({"type": "get_state"})
    plain = rpc.wait_for(lambda d: d.get("command") == "get_state" and "id" not in d)
    assert plain["success"] is True
    rpc.close()
    assert all(raw.endswith(b"\n") and raw.count(b"\n") == 1 for raw in rpc.raw)


def test_malformed_lines_are_answered_with_parse_and_empty_lines_skipped(rpc: RpcProcess) -> None:
    rpc.write("this is not json\n")
    rpc.write("\n   \n")
    rpc.write("[1, 2]\n")
    rpc.write('{"id": "x"}\n')
    rpc.write('{"id": "y", "type": "no_such_command"}\n')
    rpc.write('{"id": "deep", "type": "get_state", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    rpc.write('{"id": "z", "type": "get_state"}\r\n')
    rpc.wait_for(lambda d: d.get("id") == "z")
    responses = [line for line in rpc.lines if line["type"] == "response"]
    kinds = [r["command"] for r in responses]
    assert kinds == ["parse", "parse", "parse", "no_such_command", "parse", "get_state"]
    assert responses[0]["error"].startswith("Failed to parse command")
    assert "id" not in responses[0]
    assert responses[2]["id"] == "x"
    assert "unknown command 'no_such_command'" in responses[3]["error"]
    assert "nested too deeply" in responses[4]["error"]
    assert [r["success"] for r in responses] == [False, False, False, False, False, True]


def test_a_bad_field_fails_the_command_without_stopping_circle(rpc: RpcProcess) -> None:
    for command, fields in [
        ("prompt", {}),
        ("prompt", {"message": 5}),
        ("steer", {"message": "   "}),
        ("set_thinking_level", {"level": "enormous"}),
        ("stop_job", {}),
        ("stop_job", {"jobId": "job-99"}),
        ("set_session_name", {"name": ""}),
        ("export_html", {"outputPath": 3}),
        ("export_html", {"outputPath": "/proc/no/such/page.html"}),
    ]:
        response = rpc.request(command, **fields)
        assert response["success"] is False, (command, fields)
        assert response["error"] and "Traceback" not in response["error"]
    assert rpc.request("get_state")["success"] is True
    assert rpc.close() == 0


def test_abort_in_the_middle_of_a_command_answers_once_the_turn_stopped(cli: Circle, rpc: RpcProcess) -> None:
    command = "sleep 60 & echo $! > child.pid; wait"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]))
    rpc.request("prompt", message="run the long thing")
    rpc.event("tool_execution_start")
    child = int(_wait_file(cli.workspace / "child.pid"))
    response = rpc.request("abort")
    assert response["success"] is True and response["data"] == {"aborted": True}
    index = rpc.lines.index(response)
    ended = [line for line in rpc.lines[:index] if line["type"] == "turn_end"]
    assert ended and ended[-1]["aborted"] is True, "abort answered before the turn had stopped"
    deadline = time.monotonic() + 5
    while process_alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(child), "the command's child outlived the abort"
    state = rpc.request("get_state")["data"]
    assert state["isStreaming"] is False
    assert rpc.close() == 0


def test_steer_in_the_middle_of_a_turn_reaches_the_next_request(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 1; echo done"})]),
        chat_text("Steered."),
    )
    rpc.request("prompt", message="start")
    rpc.event("tool_execution_start")
    queued = rpc.request("prompt", message="use tabs, not spaces", streamingBehavior="steer")
    assert queued["data"] == {"disposition": "queued"}
    steer = rpc.event("steer")
    assert steer["message"] == "use tabs, not spaces"
    rpc.event("agent_settled")
    last = cli.gateway.requests[-1].json()["messages"]
    assert last[-1] == {"role": "user", "content": "use tabs, not spaces"}
    assert last[-2]["role"] == "tool"
    assert len(rpc.events("turn_end")) == 1
    rpc.close()


def test_a_follow_up_is_queued_then_runs_as_its_own_turn(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 1"})]),
        chat_text("First."),
        chat_text("Second."),
    )
    rpc.request("prompt", message="one")
    rpc.event("tool_execution_start")
    queued = rpc.request("prompt", message="two", streamingBehavior="followUp")
    assert queued["data"] == {"disposition": "queued"}
    assert rpc.request("get_state")["data"]["pendingMessageCount"] == 1
    rpc.event("agent_settled")
    turns = rpc.events("turn_start")
    assert [t["message"] for t in turns] == ["one", "two"]
    assert [t["answer"] for t in rpc.events("turn_end")] == ["First.", "Second."]
    assert len(rpc.events("agent_settled")) == 1
    rpc.close()


def test_a_prompt_while_a_turn_runs_needs_a_streaming_behavior(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "sleep 1"})]), chat_text("ok"))
    rpc.request("prompt", message="one")
    rpc.event("tool_execution_start")
    refused = rpc.request("prompt", message="two")
    assert refused["success"] is False and "streamingBehavior" in refused["error"]
    refused = rpc.request("new_session")
    assert refused["success"] is False and "turn is running" in refused["error"]
    refused = rpc.request("set_model", modelId="test-model")
    assert refused["success"] is False and "turn is running" in refused["error"]
    rpc.event("agent_settled")
    rpc.close()


def test_clear_queue_takes_back_the_waiting_messages(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "sleep 1"})]), chat_text("ok"))
    rpc.request("prompt", message="one")
    rpc.event("tool_execution_start")
    rpc.request("steer", message="s1")
    rpc.request("follow_up", message="f1")
    cleared = rpc.request("clear_queue")
    assert cleared["data"] == {"steering": ["s1"], "followUp": ["f1"]}
    rpc.event("agent_settled")
    assert len(rpc.events("turn_start")) == 1
    assert not rpc.events("steer")
    rpc.close()


def test_steer_and_follow_up_start_a_turn_when_none_runs(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_text("A."), chat_text("B."))
    assert rpc.request("steer", message="first")["data"] == {"disposition": "started"}
    rpc.event("agent_settled")
    assert rpc.request("follow_up", message="second")["data"] == {"disposition": "started"}
    rpc.nth("agent_settled", 2)
    assert [t["answer"] for t in rpc.events("turn_end")] == ["A.", "B."]
    rpc.close()


def test_state_messages_and_stats_describe_the_conversation(cli: Circle, rpc: RpcProcess) -> None:
    (cli.workspace / "a.txt").write_text("alpha\n")
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "read_file", {"path": "a.txt"})], usage=(100, 20)),
        chat_text("It says alpha.", usage=(150, 10)),
    )
    rpc.request("prompt", message="read a.txt")
    rpc.event("agent_settled")
    named = rpc.request("set_session_name", name="reading")
    assert named["success"] is True
    state = rpc.request("get_state")["data"]
    assert state["model"]["id"] == "test-model"
    assert state["thinkingLevel"] == "off"
    assert state["isStreaming"] is False
    assert state["sessionName"] == "reading"
    assert state["messageCount"] == 4
    assert state["pendingMessageCount"] == 0

    messages = rpc.request("get_messages")["data"]["messages"]
    assert [m["type"] for m in messages] == ["system", "human", "ai", "tool", "ai"]
    human, call, tool, answer = messages[1:]
    assert human["data"]["content"] == "read a.txt"
    assert call["data"]["tool_calls"] == [
        {"name": "read_file", "args": {"path": "a.txt"}, "id": "c1", "type": "tool_call"}
    ]
    assert call["data"]["usage_metadata"]["input_tokens"] == 100
    assert tool["data"]["tool_call_id"] == "c1" and "alpha" in tool["data"]["content"]
    assert tool["data"]["status"] == "success"
    assert answer["data"]["content"] == "It says alpha."

    native = rpc.request("get_native_messages")["data"]["messages"]
    assert [m["message"]["role"] for m in native] == ["user", "assistant", "tool", "assistant"]
    assert native[1]["message"]["usage"]["input"] == 100
    assert "cost_usd" in native[1]

    assert rpc.request("get_last_assistant_text")["data"] == {"text": "It says alpha."}
    stats = rpc.request("get_session_stats")["data"]
    assert stats["sessionId"] == state["sessionId"]
    assert (stats["userMessages"], stats["assistantMessages"]) == (1, 2)
    assert (stats["toolCalls"], stats["toolResults"], stats["totalMessages"]) == (1, 1, 4)
    assert stats["tokens"]["input"] == 250 and stats["tokens"]["output"] == 30
    assert stats["tokens"]["total"] == 280
    usage = stats["contextUsage"]  # the last answer's 160 tokens, as the endpoint counted them
    assert usage["tokens"] == 160 and usage["contextWindow"] > 0
    assert usage["percent"] == round(100 * 160 / usage["contextWindow"], 2)
    assert stats["cost"] == 0.0  # test-model has no price
    rpc.close()


def test_new_session_starts_an_empty_conversation(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_text("one"), chat_text("two"))
    rpc.request("prompt", message="first")
    rpc.event("agent_settled")
    before = rpc.request("get_state")["data"]["sessionId"]
    created = rpc.request("new_session")["data"]["sessionId"]
    assert created != before
    state = rpc.request("get_state")["data"]
    assert state["sessionId"] == created and state["messageCount"] == 0
    rpc.request("prompt", message="second")
    rpc.wait_for(lambda d: d.get("type") == "agent_settled" and d["session_id"] == created)
    sent = cli.gateway.requests[-1].json()["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"] == ["second"]
    rpc.close()


def test_models_and_thinking_can_change_between_turns(cli: Circle, rpc: RpcProcess) -> None:
    listed = rpc.request("get_available_models")["data"]["models"]
    ids = [m["id"] for m in listed]
    assert ids and all(isinstance(m["contextWindow"], int) for m in listed)
    other = next(i for i in ids if i != "test-model") if len(ids) > 1 else ids[0]
    switched = rpc.request("set_model", provider="openai", modelId=other)
    assert switched["success"] is True and switched["data"]["id"] == other, "pi answers with the Model"
    assert isinstance(switched["data"]["provider"], str) and isinstance(switched["data"]["maxTokens"], int)
    missing = rpc.request("set_model", modelId="no-such-model")
    assert missing["success"] is False and "Model not found: no-such-model" in missing["error"]
    misspelt = rpc.request("set_model", modelId="scriptd")
    assert "did you mean scripted?" in misspelt["error"], "a close name is offered"
    assert rpc.request("set_thinking_level", level="xhigh")["data"]["thinkingLevel"] == "max"
    assert rpc.request("set_thinking_level", level="high")["data"]["thinkingLevel"] == "high"
    cli.gateway.enqueue(chat_text("ok"))
    rpc.request("prompt", message="hi")
    rpc.event("agent_settled")
    assert cli.gateway.requests[-1].json()["model"] == other
    state = rpc.request("get_state")["data"]
    assert (state["model"]["id"], state["thinkingLevel"]) == (other, "high")
    rpc.close()


def test_export_html_writes_the_conversation(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_text("An answer <b>with</b> markup."))
    rpc.request("prompt", message="please answer")
    rpc.event("agent_settled")
    default = rpc.request("export_html")["data"]["path"]
    session_id = rpc.request("get_state")["data"]["sessionId"]
    assert default == str(cli.workspace / f"{session_id}.html")
    page = Path(default).read_text()
    assert "<html" in page.lower() and "please answer" in page and "&lt;b&gt;with" in page
    chosen = rpc.request("export_html", outputPath="out/chat.html")["data"]["path"]
    assert chosen == str(cli.workspace / "out" / "chat.html") and Path(chosen).exists()
    rpc.close()


def test_jobs_are_listed_stopped_and_a_finished_one_starts_a_turn(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(
        chat_tool_calls(
            [
                ("c1", "execute", {"command": "sleep 60", "background": True}),
                ("c2", "execute", {"command": "sleep 1; echo finished", "background": True}),
            ]
        ),
        chat_text("Both started."),
        chat_text("The short job finished."),
    )
    rpc.request("prompt", message="start two jobs")
    first_settled = rpc.event("agent_settled")
    jobs = rpc.request("list_jobs")["data"]["jobs"]
    assert [(j["id"], j["status"], j["kind"]) for j in jobs] == [
        ("job-1", "running", "command"),
        ("job-2", "running", "command"),
    ]
    assert rpc.request("get_jobs")["data"]["jobs"] == jobs
    after = rpc.lines.index(first_settled) + 1
    job_turn = rpc.wait_for(lambda d: d.get("type") == "turn_start", after=after, timeout=20)
    assert job_turn["message"] is None
    rpc.wait_for(lambda d: d.get("type") == "agent_settled", after=rpc.lines.index(job_turn))
    notice = cli.gateway.requests[-1].json()["messages"][-1]
    assert notice["role"] == "user" and "job-2" in notice["content"] and "finished" in notice["content"]
    told = [(e["id"], e["status"]) for e in rpc.events("job")]
    assert told[:2] == [("job-1", "running"), ("job-2", "running")]
    ended = [e for e in rpc.events("job") if e["id"] == "job-2" and e["status"] != "running"]
    assert ended and ended[0]["status"] == "exited" and ended[0]["exitCode"] == 0
    stopped = rpc.request("stop_job", job_id="job-1")["data"]["job"]
    assert stopped["id"] == "job-1" and stopped["status"] == "stopped"
    assert rpc.close() == 0
    assert rpc.lines[-1] == {"type": "jobs_stopped", "count": 0}


def test_background_moves_the_waited_on_command_to_a_job(cli: Circle, rpc: RpcProcess) -> None:
    command = "echo begun; sleep 60"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Moved on."))
    rpc.request("prompt", message="run it")
    rpc.event("tool_execution_start")
    time.sleep(0.3)
    moved = rpc.request("background")
    assert moved["data"] == {"moved": 1}
    started = rpc.event("job")
    assert (started["id"], started["status"], started["command"]) == ("job-1", "running", command)
    ended = rpc.event("tool_execution_end")
    assert "job-1" in ended["result"]["content"][0]["text"]
    rpc.event("agent_settled")
    jobs = rpc.request("list_jobs")["data"]["jobs"]
    assert [(j["id"], j["status"], j["command"]) for j in jobs] == [("job-1", "running", command)]
    assert rpc.request("background")["data"] == {"moved": 0}
    log = Path(jobs[0]["outputPath"])
    assert log.read_text().startswith("begun\n")
    assert rpc.request("stop_job", jobId="job-1")["data"]["job"]["status"] == "stopped"
    assert rpc.close() == 0
    assert rpc.lines[-1] == {"type": "jobs_stopped", "count": 0}


def test_eof_while_a_turn_runs_lets_it_finish_and_saves_it(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 1; echo slow"})]),
        chat_text("Finished after EOF."),
    )
    rpc.request("prompt", message="slow one")
    rpc.event("tool_execution_start")
    assert rpc.close() == 0
    assert rpc.events("turn_end")[-1]["answer"] == "Finished after EOF."
    assert rpc.lines[-1] == {"type": "jobs_stopped", "count": 0}
    session_id = rpc.events("turn_start")[0]["session_id"]
    shown = cli.run("export", session_id)
    assert "Finished after EOF." in shown.stdout


def test_eof_waits_for_the_models_jobs_and_gives_them_turns(cli: Circle) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 1; echo late", "background": True})]),
        chat_text("Started."),
        chat_text("The job said late."),
    )
    rpc = RpcProcess(cli, "--yolo")
    try:
        rpc.request("prompt", message="start it")
        rpc.event("agent_settled")
        assert rpc.close() == 0
    finally:
        rpc.kill()
    assert [t["answer"] for t in rpc.events("turn_end")] == ["Started.", "The job said late."]
    assert rpc.lines[-1] == {"type": "jobs_stopped", "count": 0}


def test_eof_stops_jobs_after_circle_job_wait(cli: Circle) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 60", "background": True})]),
        chat_text("Started."),
    )
    rpc = RpcProcess(cli, "--yolo", env=cli.env(CIRCLE_JOB_WAIT="0.5"))
    try:
        rpc.request("prompt", message="start it")
        rpc.event("agent_settled")
        began = time.monotonic()
        assert rpc.close() == 0
        assert time.monotonic() - began < 10
    finally:
        rpc.kill()
    assert rpc.lines[-1] == {"type": "jobs_stopped", "count": 1}


def test_after_abort_no_job_turn_runs_and_eof_does_not_wait(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "execute", {"command": "sleep 1", "background": True})]),
        chat_text("Started."),
    )
    rpc.request("prompt", message="start it")
    rpc.event("agent_settled")
    rpc.request("abort")
    time.sleep(2)
    assert len(rpc.events("turn_start")) == 1
    assert rpc.close() == 0
    assert len(rpc.events("turn_start")) == 1


def test_ctrl_c_stops_the_turn_and_exits_130(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "sleep 60"})]))
    rpc.request("prompt", message="long")
    rpc.event("tool_execution_start")
    rpc.proc.send_signal(signal.SIGINT)
    assert rpc.proc.wait(timeout=20) == 130
    rpc._reader.join(timeout=5)
    assert rpc.events("turn_end")[-1]["aborted"] is True
    assert rpc.lines[-1]["type"] == "jobs_stopped"


def test_a_call_that_would_ask_is_not_run_and_the_model_is_told(cli: Circle) -> None:
    assert cli.run("trust", str(cli.workspace)).returncode == 0
    cli.gateway.enqueue(
        chat_tool_calls([("c1", "write_file", {"path": "x.txt", "content": "x"})]),
        chat_text("Could not write."),
    )
    rpc = RpcProcess(cli)
    try:
        rpc.request("prompt", message="write x")
        ended = rpc.event("tool_execution_end")
        rpc.event("agent_settled")
        rpc.close()
    finally:
        rpc.kill()
    assert ended["isError"] is True
    assert not (cli.workspace / "x.txt").exists()


def test_a_question_comes_back_to_the_model_as_text(cli: Circle, rpc: RpcProcess) -> None:
    question = {"questions": [{"question": "Which color?", "options": ["red", "blue"]}]}
    cli.gateway.enqueue(chat_tool_calls([("c1", "question", question)]), chat_text("Which color?"))
    rpc.request("prompt", message="ask me")
    ended = rpc.event("tool_execution_end")
    rpc.event("agent_settled")
    assert "Which color?" in ended["result"]["content"][0]["text"]
    rpc.close()


def test_an_untrusted_folder_is_refused_naming_circle_trust(untrusted: Circle) -> None:
    rpc = RpcProcess(untrusted, "--yolo")
    try:
        code = rpc.proc.wait(timeout=20)
    finally:
        rpc.kill()
    assert code == 1
    assert "circle trust" in rpc.stderr
    assert rpc.lines and rpc.lines[-1]["type"] == "error"


@pytest.mark.parametrize(
    "args",
    [("hello",), ("@a.txt",), ("-r",), ("--line",), ("-p",)],
    ids=["message", "file", "resume", "line", "print"],
)
def test_messages_files_resume_and_line_are_refused(cli: Circle, args: tuple[str, ...]) -> None:
    (cli.workspace / "a.txt").write_text("a")
    done = cli.run("--mode", "rpc", "--yolo", *args)
    assert done.returncode == 2
    assert "send prompts as commands" in done.stderr
    assert "Traceback" not in done.stderr


def test_options_apply_name_session_id_and_no_tools(cli: Circle) -> None:
    cli.gateway.enqueue(chat_text("ok"))
    rpc = RpcProcess(cli, "--yolo", "--name", "named", "--session-id", "fixed-id", "--no-tools")
    try:
        state = rpc.request("get_state")["data"]
        assert (state["sessionId"], state["sessionName"]) == ("fixed-id", "named")
        rpc.request("prompt", message="hi")
        rpc.event("agent_settled")
        assert "tools" not in cli.gateway.requests[-1].json()
        assert rpc.close() == 0
    finally:
        rpc.kill()
    again = RpcProcess(cli, "--yolo", "--session", "fixed-id")
    try:
        assert again.request("get_state")["data"]["messageCount"] == 2
        again.close()
    finally:
        again.kill()


def test_a_closed_stdout_does_not_lose_the_turn(cli: Circle) -> None:
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": "sleep 0.5"})]), chat_text("Saved."))
    proc = subprocess.Popen(
        [circle_command(), "--mode", "rpc", "--yolo", "--session-id", "closed-out"],
        cwd=cli.workspace,
        env=cli.env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdout.close()  # nobody reads the answers any more
    proc.stdin.write(b'{"type": "prompt", "message": "go"}\n')
    proc.stdin.close()
    try:
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 0
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read().decode()
    assert "Saved." in cli.run("export", "closed-out").stdout


def test_u2028_inside_a_message_is_not_a_line_break(cli: Circle, rpc: RpcProcess) -> None:
    cli.gateway.enqueue(chat_text("ok"))
    rpc.write(json.dumps({"id": "u", "type": "prompt", "message": "a\u2028b"}, ensure_ascii=False) + "\n")
    assert rpc.wait_for(lambda d: d.get("id") == "u")["success"] is True
    rpc.event("agent_settled")
    sent = cli.gateway.requests[-1].json()["messages"][-1]["content"]
    assert sent == "a\u2028b"
    rpc.close()


def test_session_stats_count_a_subagents_tokens(cli: Circle, rpc: RpcProcess) -> None:
    task = {"description": "look around", "prompt": "Say what is here.", "subagent_type": "explore"}
    cli.gateway.enqueue(
        chat_tool_calls([("t1", "task", task)], usage=(100, 10)),
        chat_text("Only a README.", usage=(40, 4)),  # the subagent's answer
        chat_text("The subagent found a README.", usage=(200, 20)),
    )
    rpc.request("prompt", message="explore")
    rpc.event("agent_settled")
    stats = rpc.request("get_session_stats")["data"]
    assert (stats["assistantMessages"], stats["toolCalls"]) == (2, 1)
    assert stats["tokens"]["input"] == 340 and stats["tokens"]["output"] == 34
    assert stats["tokens"]["total"] == 374
    tagged = rpc.events("subagent")
    assert {e["subagent"]["type"] for e in tagged} == {"explore"}
    inner = [e["event"]["type"] for e in tagged]
    assert inner[0] == "turn_start" and "turn_end" in inner and "message_update" not in inner
    assert next(e["event"]["answer"] for e in tagged if e["event"]["type"] == "turn_end") == "Only a README."
    rpc.close()


def test_a_session_another_circle_has_open_is_refused_in_one_line(cli: Circle) -> None:
    first = RpcProcess(cli, "--yolo", "--session-id", "held")
    try:
        assert first.request("get_state")["data"]["sessionId"] == "held"
        second = RpcProcess(cli, "--yolo", "--session", "held")
        try:
            assert second.proc.wait(timeout=20) == 1
        finally:
            second.kill()
        error = second.lines[-1]
        assert error["type"] == "error" and "is open in another Circle" in error["message"]
        assert "Traceback" not in second.stderr
        assert first.close() == 0
    finally:
        first.kill()


def test_a_commands_output_streams_as_tool_execution_updates(cli: Circle, rpc: RpcProcess) -> None:
    command = "for i in 1 2 3; do echo line$i; sleep 0.6; done"
    cli.gateway.enqueue(chat_tool_calls([("c1", "execute", {"command": command})]), chat_text("Ran."))
    rpc.request("prompt", message="count")
    first = rpc.wait_for(lambda d: d.get("type") == "tool_execution_update" and d["partialResult"]["content"])
    assert first["toolCallId"] == "c1" and first["toolName"] == "execute"
    assert first["args"] == {"command": command}
    assert first["partialResult"]["content"][0]["text"].startswith("line1")
    assert not rpc.events("tool_execution_end"), "the first update came only when the command had ended"
    rpc.event("agent_settled")
    told = [line["partialResult"]["content"] for line in rpc.events("tool_execution_update")]
    assert told[0] == []  # the command started
    updates = [content[0]["text"] for content in told[1:]]
    assert len(updates) >= 2 and updates[-1].startswith("line1\nline2")
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(updates))
    kinds = [line["type"] for line in rpc.lines]
    assert kinds.index("tool_execution_start") < kinds.index("tool_execution_update")
    assert kinds.index("tool_execution_update") < kinds.index("tool_execution_end")
    assert rpc.close() == 0


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_get_state_new_session_and_images_follow_pis_shapes(cli: Circle, rpc: RpcProcess) -> None:
    state = rpc.request("get_state")["data"]
    assert state["isCompacting"] is False and state["autoCompactionEnabled"] is True
    assert state["steeringMode"] == "all" and state["followUpMode"] == "one-at-a-time"
    assert "sessionFile" in state
    model = state["model"]
    assert isinstance(model["provider"], str) and isinstance(model["maxTokens"], int)
    assert set(model["cost"]) == {"input", "output", "cacheRead", "cacheWrite"}

    assert rpc.request("new_session")["data"]["cancelled"] is False
    rpc.close()


def test_a_prompts_images_reach_the_model(cli: Circle) -> None:
    cli.home.mkdir(exist_ok=True)
    (cli.home / "settings.json").write_text(json.dumps({"models": {"test-model": {"images": True}}}))
    rpc = RpcProcess(cli, "--yolo")
    try:
        cli.gateway.enqueue(chat_text("A red square."))
        image = {"type": "image", "data": base64.b64encode(_png()).decode(), "mimeType": "image/png"}
        rpc.request("prompt", message="what is this?", images=[image])
        rpc.event("agent_settled")
        sent = cli.gateway.requests[-1].json()["messages"][-1]
        kinds = [part["type"] for part in sent["content"]]
        assert "image_url" in kinds and "text" in kinds
        bad = rpc.request(
            "prompt", message="and this?", images=[{"type": "image", "data": "!!", "mimeType": "image/png"}]
        )
        assert bad["success"] is False and "image" in bad["error"]
        assert rpc.close() == 0
    finally:
        rpc.kill()


def test_provider_on_the_command_line_is_accepted(cli: Circle) -> None:
    process = RpcProcess(cli, "--yolo", "--provider", "somewhere", "--model", "test-model")
    try:
        assert process.request("get_state")["data"]["model"]["id"] == "test-model"
        assert process.close() == 0
        assert "--provider" in process.stderr
    finally:
        process.kill()
