"""The sandboxed ``LocalProcessRunner``, for real under bubblewrap: writes, network, process groups.

Everything below ``/tmp`` but the workspace is hidden by the sandbox's private ``/tmp``, so a file
"outside" is tried twice: a sibling of the workspace (hidden) and one in a folder outside ``/tmp``
(visible, read-only).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import circle
from circle.adapters.local import sandbox as local_sandbox
from circle.adapters.local.processes import LocalProcessRunner
from circle.adapters.local.sandbox import NOT_INSTALLED, check_bwrap, find_mounts, resolved
from circle.application.ports.process_runner import ProcessResult
from circle.domain.errors import ToolError
from circle.domain.messages import ToolResultPart
from circle.domain.sandbox import SandboxMode, SandboxPolicy
from circle.testing import Call, InMemorySessionStore, ScriptedModel, answer


@pytest.fixture(scope="module", autouse=True)
def _needs_bwrap() -> None:
    problem = "bwrap is not on PATH" if shutil.which("bwrap") is None else check_bwrap()
    if problem is not None:
        pytest.skip(f"needs the Debian package bubblewrap ({problem})")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[list[Path]]:
    """Two files outside the workspace: a sibling below /tmp and one in a folder outside /tmp."""
    sibling = tmp_path / "sibling" / "keep.txt"
    sibling.parent.mkdir()
    try:
        folder = Path(tempfile.mkdtemp(prefix="circle-sandbox-test-", dir="/var/tmp"))
    except OSError as exc:
        pytest.skip(f"needs a writable /var/tmp ({exc.strerror})")
    files = [sibling, folder / "keep.txt"]
    for file in files:
        file.write_text("original\n")
    yield files
    shutil.rmtree(folder, ignore_errors=True)


def _runner(
    mode: SandboxMode, workspace: Path, *, network: bool = False, writable: tuple[str, ...] = ()
) -> LocalProcessRunner:
    return LocalProcessRunner(
        sandbox=SandboxPolicy(mode, workspace=str(workspace), writable=writable, network=network)
    )


async def _run(
    runner: LocalProcessRunner, command: str, cwd: Path, *, timeout_s: float = 10
) -> ProcessResult:
    async with asyncio.timeout(timeout_s + 5):
        return await runner.run(command, cwd=str(cwd), timeout_s=timeout_s, output_limit=10_000)


@pytest.mark.parametrize(
    ("command", "exit_code", "output"),
    [
        ("echo hello", 0, "hello\n"),
        ("echo out; exit 3", 3, "out\n"),
        ("echo out; echo err >&2; echo out2", 0, "out\nerr\nout2\n"),
        ("true", 0, ""),
    ],
)
async def test_the_runner_contract_holds_in_the_sandbox(
    workspace: Path, command: str, exit_code: int, output: str
) -> None:
    result = await _run(_runner("workspace-write", workspace), command, workspace)
    assert result == ProcessResult(exit_code=exit_code, output=output)


async def test_commands_run_in_the_workspace_with_the_given_environment(workspace: Path) -> None:
    env = {"PATH": os.environ["PATH"], "CIRCLE_TEST": "yes"}
    async with asyncio.timeout(15):
        result = await _runner("read-only", workspace).run(
            'pwd; echo "$CIRCLE_TEST"', cwd=str(workspace), timeout_s=10, output_limit=100, env=env
        )
    assert result.output.splitlines() == [str(workspace), "yes"]


async def test_stdin_and_separate_stderr_work_in_the_sandbox(workspace: Path) -> None:
    async with asyncio.timeout(15):
        result = await _runner("read-only", workspace).run(
            'read -r line; echo "got $line"; echo err >&2',
            cwd=str(workspace),
            timeout_s=10,
            output_limit=100,
            stdin="hello\n",
            separate_stderr=True,
        )
    assert result == ProcessResult(exit_code=0, output="got hello\n", stderr="err\n")


async def test_workspace_write_writes_the_workspace_and_tmp_and_nothing_else(
    workspace: Path, outside: list[Path]
) -> None:
    jobs = workspace.parent / "data" / "background_jobs"
    runner = _runner("workspace-write", workspace, writable=(str(jobs),))
    command = (
        "echo made > inside.txt && echo inside-ok; "
        "echo scratch > /tmp/scratch.txt && cat /tmp/scratch.txt; "
        f"echo job > {jobs}/job.txt && echo job-ok; "
        + "; ".join(f"echo changed > {file}" for file in outside)
    )
    result = await _run(runner, command, workspace)
    assert (workspace / "inside.txt").read_text() == "made\n"
    assert (jobs / "job.txt").read_text() == "job\n"
    assert "inside-ok\nscratch\njob-ok\n" in result.output
    assert f"{outside[1]}: Read-only file system" in result.output
    assert result.exit_code != 0
    for file in outside:
        assert file.read_text() == "original\n"
    assert not Path("/tmp/scratch.txt").exists(), "the sandbox's /tmp is its own"


async def test_read_only_writes_nothing_not_even_the_workspace(workspace: Path, outside: list[Path]) -> None:
    (workspace / "kept.txt").write_text("original\n")
    command = (
        "echo changed > kept.txt; touch new.txt; "
        "echo scratch > /tmp/s.txt && cat /tmp/s.txt; cat kept.txt; "
        + "; ".join(f"echo changed > {file}" for file in outside)
    )
    result = await _run(_runner("read-only", workspace), command, workspace)
    assert "kept.txt: Read-only file system" in result.output
    assert "scratch\noriginal\n" in result.output, "/tmp is scratch space, the workspace is readable"
    assert (workspace / "kept.txt").read_text() == "original\n"
    assert not (workspace / "new.txt").exists()
    for file in outside:
        assert file.read_text() == "original\n"


@pytest.fixture
def listening() -> Iterator[int]:
    """A loopback port that accepts connections (the backlog takes them; nothing reads)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


SANDBOX_PYTHON = "/usr/bin/python3"
"""The system's Python, which the sandbox shows (a virtual environment below /tmp it hides)."""


@pytest.fixture
def python() -> str:
    if not os.access(SANDBOX_PYTHON, os.X_OK):
        pytest.skip(f"needs {SANDBOX_PYTHON} (the Debian package python3), which the sandbox shows")
    return SANDBOX_PYTHON


def _connect(port: int) -> str:
    code = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
        "    print('connected')\n"
        "except OSError as exc:\n"
        "    print('failed', exc.errno)\n"
    )
    return f'{SANDBOX_PYTHON} -c "{code}"'


async def test_the_network_is_cut_even_to_loopback(workspace: Path, listening: int, python: str) -> None:
    unsandboxed = await _run(LocalProcessRunner(), _connect(listening), workspace)
    assert unsandboxed.output == "connected\n"
    sandboxed = await _run(_runner("workspace-write", workspace), _connect(listening), workspace)
    assert sandboxed.output.startswith("failed"), sandboxed.output


async def test_the_network_stays_when_the_policy_allows_it(
    workspace: Path, listening: int, python: str
) -> None:
    result = await _run(_runner("workspace-write", workspace, network=True), _connect(listening), workspace)
    assert result.output == "connected\n"


def _marker() -> str:
    return f"30.{random.randrange(10**8, 10**9)}"


def _survivors(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", f"sleep {marker}"], capture_output=True, text=True, check=False)
    return found.stdout.splitlines()


async def _none_left(marker: str, *, within: float = 3.0) -> list[str]:
    deadline = time.monotonic() + within
    while (left := _survivors(marker)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return left


async def test_timeout_kills_everything_in_the_sandbox(workspace: Path) -> None:
    marker = _marker()
    started = time.monotonic()
    result = await _run(
        _runner("workspace-write", workspace),
        f"sleep {marker} & sleep {marker}; echo never",
        workspace,
        timeout_s=0.5,
    )
    assert result.timed_out and result.exit_code is None
    assert "never" not in result.output
    assert time.monotonic() - started < 4
    assert await _none_left(marker) == []


async def test_cancellation_kills_everything_in_the_sandbox(workspace: Path) -> None:
    marker = _marker()
    runner = _runner("read-only", workspace)
    task = asyncio.create_task(_run(runner, f"sleep {marker} & sleep {marker}", workspace))
    deadline = time.monotonic() + 5
    while len(_survivors(marker)) < 2:
        assert time.monotonic() < deadline, "the sandboxed sleeps never started"
        await asyncio.sleep(0.05)
    task.cancel()
    async with asyncio.timeout(5):
        with pytest.raises(asyncio.CancelledError):
            await task
    assert await _none_left(marker) == []


async def test_a_background_child_ends_with_the_sandboxed_command(workspace: Path) -> None:
    marker = _marker()
    result = await _run(
        _runner("workspace-write", workspace), f"sleep {marker} >/dev/null 2>&1 & echo started", workspace
    )
    assert result == ProcessResult(exit_code=0, output="started\n")
    assert await _none_left(marker) == []


async def test_without_bwrap_on_path_the_command_is_refused_not_run(workspace: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = {"PATH": str(empty)}
    assert check_bwrap(env) == NOT_INSTALLED
    with pytest.raises(ToolError, match="bubblewrap"):
        async with asyncio.timeout(10):
            await _runner("workspace-write", workspace).run(
                "/bin/touch ran.txt", cwd=str(workspace), timeout_s=5, output_limit=100, env=env
            )
    assert not (workspace / "ran.txt").exists()


def test_check_bwrap_reports_why_bwrap_cannot_start(tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    problem = check_bwrap({"PATH": str(fake.parent)})
    assert problem == "bwrap cannot start here: bwrap: No permissions to create new namespace"
    assert check_bwrap() is None


async def test_the_agent_runs_commands_sandboxed(workspace: Path, outside: list[Path]) -> None:
    target = outside[1]
    model = ScriptedModel(
        [answer("", Call("execute", {"command": f"touch inside.txt; echo changed > {target}"})), answer("ok")]
    )
    async with circle.Agent(
        workspace,
        model_client=model,
        store=InMemorySessionStore(),
        sandbox="workspace-write",
        trust=True,
        approval_mode="auto",
    ) as agent:
        await agent.run("write both")
    assert (workspace / "inside.txt").exists()
    assert target.read_text() == "original\n"
    result = [p for p in model.requests[1].messages[-1].parts if isinstance(p, ToolResultPart)]
    assert "Read-only file system" in result[0].text
    assert "Commands run in a sandbox" in model.requests[0].system


async def test_the_agent_refuses_to_start_sandboxed_without_bwrap(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    agent = circle.Agent(workspace, model_client=ScriptedModel(), sandbox="read-only", trust=True)
    with pytest.raises(circle.ConfigError, match=r"cannot sandbox commands \(read-only\): bubblewrap"):
        await agent.start()
    assert os.environ["PATH"] == str(empty)


@dataclass
class Place:
    """A home folder, a workspace and a data folder outside /tmp, so the sandbox shows them."""

    home: Path
    workspace: Path
    data: Path
    elsewhere: Path

    @property
    def env(self) -> dict[str, str]:
        return {"PATH": "/usr/bin:/bin", "HOME": str(self.home)}

    def policy(self, mode: SandboxMode = "workspace-write") -> SandboxPolicy:
        return SandboxPolicy(
            mode,
            workspace=str(self.workspace),
            writable=(str(self.data / "background_jobs"),),
            data_dir=str(self.data),
        )

    def runner(self, mode: SandboxMode = "workspace-write") -> LocalProcessRunner:
        return LocalProcessRunner(sandbox=self.policy(mode))

    async def run(self, command: str, mode: SandboxMode = "workspace-write") -> ProcessResult:
        async with asyncio.timeout(20):
            return await self.runner(mode).run(
                command, cwd=str(self.workspace), timeout_s=15, output_limit=20_000, env=self.env
            )


SECRETS = {
    "home/.ssh/id_rsa": "SECRET-ssh",
    "home/.aws/credentials": "SECRET-aws",
    "home/.netrc": "SECRET-netrc",
    "data/approvals.json": "SECRET-approvals",
    "data/credentials.json": "SECRET-data-credentials",
    "work/.env": "SECRET-env",
    "work/deploy/server.pem": "SECRET-pem",
    "work/sub/.env.local": "SECRET-env-local",
    "work/keys/.gnupg/private.gpg": "SECRET-gnupg",
    "elsewhere/server.key": "SECRET-linked",
}
PLAIN = {
    "work/.env.example": "TOKEN=fill-me-in\n",
    "work/.gitignore": "sub/.env.local\n",
    "work/README.md": "readme\n",
    "work/.git/config": "[core]\n",
    "work/.git/hooks/pre-commit.sample": "#!/bin/sh\n",
    "work/vendor/lib/.git/hooks/post-checkout.sample": "#!/bin/sh\n",
    "work/vendor/lib/.git/config": "[core]\n",
    "work/.circle/settings.json": "{}\n",
    "home/.circle/agents/a.md": "agent\n",
    "data/background_jobs/s1/job-1.log": "job output\n",
}


@pytest.fixture
def place() -> Iterator[Place]:
    try:
        root = Path(tempfile.mkdtemp(prefix="circle-sandbox-hide-", dir="/var/tmp"))
    except OSError as exc:
        pytest.skip(f"needs a writable /var/tmp ({exc.strerror})")
    for name, text in {**SECRETS, **PLAIN}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "work" / "notes.txt").symlink_to(root / "elsewhere" / "server.key")
    yield Place(home=root / "home", workspace=root / "work", data=root / "data", elsewhere=root / "elsewhere")
    shutil.rmtree(root, ignore_errors=True)


def _split(path: Path) -> str:
    """``path`` as a Python expression that never spells it whole."""
    text = str(path)
    half = len(text) // 2
    return f"{text[:half]!r} + {text[half:]!r}"


def test_find_mounts_finds_the_credential_places_and_the_always_ask_places(place: Place) -> None:
    mounts = find_mounts(resolved(place.policy()), env=place.env)
    root = place.workspace.parent.resolve()
    assert {str(root / p) for p in ("home/.ssh", "home/.aws", "data", "work/keys/.gnupg")} <= set(
        mounts.hidden_folders
    )
    assert {
        str(root / p) for p in ("home/.netrc", "work/.env", "work/deploy/server.pem", "work/sub/.env.local")
    } <= set(mounts.hidden_files)
    assert str(root / "elsewhere/server.key") in mounts.hidden_files, "a symlink's credential target"
    assert str(root / "work/.env.example") not in mounts.hidden_files
    assert {
        str(root / p)
        for p in (
            "work/.git/hooks",
            "work/.git/config",
            "work/.circle",
            "work/vendor/lib/.git/hooks",
            "work/vendor/lib/.git/config",
            "home/.circle",
            "data",
        )
    } <= set(mounts.read_only)


@pytest.mark.parametrize("mode", ["workspace-write", "read-only"])
async def test_a_path_built_at_run_time_reads_nothing_that_is_hidden(
    place: Place, python: str, mode: SandboxMode
) -> None:
    root = place.workspace.parent
    paths = ", ".join(_split(root / name) for name in [*SECRETS, "work/notes.txt"])
    code = (
        f"for p in [{paths}]:\n"
        "    try:\n"
        "        print(repr(open(p).read()))\n"
        "    except OSError as exc:\n"
        "        print(type(exc).__name__)\n"
        f"print(open({_split(place.workspace / '.env.example')}).read(), end='')\n"
    )
    (place.workspace / "probe.py").write_text(code)
    result = await place.run(f"{python} probe.py; cat $(printf '%s/.s%s/id_%s' \"$HOME\" sh rsa)", mode)
    lines = result.output.splitlines()
    assert not [line for line in lines if "SECRET" in line], result.output
    assert set(lines[: len(SECRETS) + 1]) <= {"''", "FileNotFoundError"}, result.output
    assert lines[len(SECRETS) + 1] == "TOKEN=fill-me-in", "a template still reads"
    for name, text in SECRETS.items():
        assert (root / name).read_text() == text, "the real files are untouched"


async def test_always_ask_places_cannot_be_changed_but_the_workspace_can(place: Place, python: str) -> None:
    writes = {
        ".gi' + 't/hooks/pre-commit": "hook",
        ".gi' + 't/config": "config",
        "vendor/lib/.gi' + 't/hooks/post-merge": "hook",
        ".cir' + 'cle/hooks.json": "hooks",
        "made.txt": "made",
    }
    targets = [f"'{place.workspace}/{name}'" for name in writes]
    targets += [f"'{place.data}/appro' + 'vals.json'", f"'{place.home}/.cir' + 'cle/agents/b.md'"]
    code = (
        "import os\n"
        f"for p in [{', '.join(targets)}]:\n"
        "    try:\n"
        "        open(p, 'w').write('changed')\n"
        "        print('wrote', p)\n"
        "    except OSError as exc:\n"
        "        print('refused', exc.strerror)\n"
        "for p in ['.gi' + 't', 'vendor/lib', 'vendor']:\n"
        "    try:\n"
        "        os.rename(p, p + '-moved')\n"
        "        print('moved', p)\n"
        "    except OSError as exc:\n"
        "        print('refused', exc.strerror)\n"
    )
    (place.workspace / "probe.py").write_text(code)
    result = await place.run(f"{python} probe.py; echo job >> {place.data}/background_jobs/s1/job-1.log")
    lines = result.output.splitlines()
    assert lines[:6] == ["refused Read-only file system"] * 4 + [f"wrote {place.workspace}/made.txt"] + [
        "refused Read-only file system"
    ], result.output
    assert lines[6:10] == ["refused Read-only file system"] + ["refused Device or resource busy"] * 3
    assert (place.workspace / "made.txt").read_text() == "changed"
    assert not (place.workspace / ".git/hooks/pre-commit").exists()
    assert not (place.workspace / ".circle/hooks.json").exists()
    assert (place.workspace / ".git/config").read_text() == "[core]\n"
    assert (place.data / "approvals.json").read_text() == "SECRET-approvals"
    assert (place.data / "background_jobs/s1/job-1.log").read_text() == "job output\njob\n"
    assert (place.workspace / ".git").is_dir() and (place.workspace / "vendor/lib/.git").is_dir()


@pytest.mark.parametrize("mode", ["workspace-write", "read-only"])
async def test_hard_links_to_credential_files_are_hidden_as_the_files(
    place: Place, mode: SandboxMode
) -> None:
    root = place.workspace.parent
    links = {
        "work/docs/key.txt": "home/.ssh/id_rsa",
        "work/docs/hosts.txt": "home/.netrc",
        "work/data.json": "data/credentials.json",
        "work/sub/copy.ini": "work/.env",
        "elsewhere/plain.txt": "home/.aws/credentials",
    }
    for link, target in links.items():
        (root / link).parent.mkdir(parents=True, exist_ok=True)
        os.link(root / target, root / link)
    (place.workspace / "docs" / "seen.txt").symlink_to(root / "elsewhere" / "plain.txt")
    (place.workspace / "docs" / "own.txt").write_text("plain text\n")
    os.link(place.workspace / "docs" / "own.txt", place.workspace / "docs" / "own-too.txt")
    hidden = set(find_mounts(resolved(place.policy(mode)), env=place.env).hidden_files)
    real = root.resolve()
    expected = {str(real / link) for link in links}
    assert expected <= hidden, expected - hidden
    assert str(real / "work/docs/own-too.txt") not in hidden, "a file's own second name stays"
    result = await place.run("cat docs/key.txt docs/hosts.txt data.json sub/copy.ini docs/seen.txt", mode)
    assert "SECRET" not in result.output and result.exit_code == 0, result.output
    own = await place.run("cat docs/own-too.txt", mode)
    assert own.output == "plain text\n"


async def test_git_info_is_read_only_in_workspace_write(place: Place) -> None:
    info = place.workspace / ".git" / "info"
    info.mkdir()
    (info / "exclude").write_text("")
    assert str(info.resolve()) in find_mounts(resolved(place.policy()), env=place.env).read_only
    result = await place.run("echo '* filter=x' > .git/info/attributes; echo x >> .git/info/exclude")
    assert "Read-only file system" in result.output, result.output
    assert sorted(p.name for p in info.iterdir()) == ["exclude"] and (info / "exclude").read_text() == ""


def test_a_workspace_too_large_to_scan_is_refused(place: Place, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_sandbox, "SCAN_LIMIT", 5)
    with pytest.raises(ToolError, match="more than 5 files and folders; the command did not run"):
        find_mounts(resolved(place.policy()), env=place.env)
    assert check_bwrap(place.env, policy=place.policy()) == (
        "the sandbox cannot check the workspace for credential files: it holds more than 5 files and "
        "folders; the command did not run"
    )


def test_check_bwrap_tries_the_sandbox_with_its_mounts(place: Place) -> None:
    assert check_bwrap(place.env, policy=place.policy()) is None
    assert check_bwrap(place.env, policy=place.policy("read-only")) is None
