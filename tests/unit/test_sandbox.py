"""The sandbox's modes, the bwrap command line they make, its settings and its line in the prompt."""

from __future__ import annotations

import pytest

from circle._testing.local import InMemoryFileSystem
from circle.application.context.system_prompt import Environment, build_system_prompt
from circle.domain.errors import ConfigError
from circle.domain.sandbox import (
    SandboxMounts,
    SandboxPolicy,
    bwrap_argv,
    parse_sandbox,
    sandbox_note,
    sandbox_policy,
)
from circle.domain.settings import SettingsFile, merge_files, parse_settings_file

BASE = [
    "bwrap",
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--ro-bind", "/proc/sys", "/proc/sys",
    "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger",
    "--tmpfs", "/tmp",
]  # fmt: skip
HARDENING = ["--unshare-pid", "--unshare-ipc", "--unshare-uts"]
END = ["--die-with-parent", "--cap-drop", "ALL"]


def test_workspace_write_binds_the_workspace_and_job_folders_and_cuts_the_network() -> None:
    policy = SandboxPolicy("workspace-write", workspace="/w/repo", writable=("/data/background_jobs",))
    argv = bwrap_argv(policy, ["/bin/bash", "-c", "make"], cwd="/w/repo")
    assert argv == [
        *BASE,
        "--bind", "/w/repo", "/w/repo",
        "--bind-try", "/data/background_jobs", "/data/background_jobs",
        *HARDENING,
        "--unshare-net",
        *END,
        "--chdir", "/w/repo",
        "--", "/bin/bash", "-c", "make",
    ]  # fmt: skip


def test_read_only_binds_nothing_writable_and_ignores_the_job_folders() -> None:
    policy = SandboxPolicy("read-only", workspace="/w/repo", writable=("/data/background_jobs",))
    argv = bwrap_argv(policy, ["true"], cwd="/w/repo")
    assert argv == [*BASE, *HARDENING, "--unshare-net", *END, "--chdir", "/w/repo", "--", "true"]
    assert "--bind" not in argv and "--bind-try" not in argv


def test_the_network_stays_when_the_policy_allows_it() -> None:
    argv = bwrap_argv(SandboxPolicy("workspace-write", workspace="/w", network=True), ["true"], cwd="/w")
    assert "--unshare-net" not in argv
    assert "--unshare-pid" in argv


def test_a_workspace_below_tmp_is_mounted_back_over_the_private_tmp() -> None:
    writable = bwrap_argv(SandboxPolicy("workspace-write", workspace="/tmp/x/ws"), ["true"], cwd="/tmp/x/ws")
    at = writable.index("--bind")
    assert writable.index("--tmpfs") < at
    assert writable[at : at + 3] == ["--bind", "/tmp/x/ws", "/tmp/x/ws"]
    read_only = bwrap_argv(SandboxPolicy("read-only", workspace="/tmp/x/ws/"), ["true"], cwd="/tmp/x/ws/sub")
    tail = read_only[len(BASE) :]
    assert tail[:3] == ["--ro-bind", "/tmp/x/ws", "/tmp/x/ws"]
    assert tail.count("--ro-bind") == 1  # cwd is inside the workspace: nothing more to mount


def test_a_cwd_hidden_by_the_private_tmp_is_mounted_back_read_only() -> None:
    argv = bwrap_argv(SandboxPolicy("workspace-write", workspace="/w"), ["true"], cwd="/tmp/elsewhere")
    assert argv[len(BASE) + 3 : len(BASE) + 6] == ["--ro-bind", "/tmp/elsewhere", "/tmp/elsewhere"]


def test_off_makes_no_command_line() -> None:
    with pytest.raises(ValueError, match="off"):
        bwrap_argv(SandboxPolicy("off", workspace="/w"), ["true"], cwd="/w")
    assert sandbox_policy("off", workspace="/w") is None
    assert sandbox_policy("read-only", workspace="/w", writable=["/j"]) == SandboxPolicy(
        "read-only", workspace="/w", writable=("/j",)
    )


@pytest.mark.parametrize(
    ("text", "mode"), [("off", "off"), ("Read-Only", "read-only"), (" workspace-write ", "workspace-write")]
)
def test_modes_are_parsed(text: str, mode: str) -> None:
    assert parse_sandbox(text) == mode


def test_an_unknown_mode_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown sandbox mode 'full'"):
        parse_sandbox("full")


def test_settings_carry_the_sandbox_and_refuse_an_unknown_mode() -> None:
    settings = parse_settings_file({"sandbox": "workspace-write", "sandbox_network": True}, source="s")
    assert (settings.sandbox, settings.sandbox_network) == ("workspace-write", True)
    assert (SettingsFile().sandbox, SettingsFile().sandbox_network) == (None, None)
    with pytest.raises(ConfigError, match="sandbox"):
        parse_settings_file({"sandbox": "everything"}, source="s")


def test_a_project_file_without_sandbox_network_keeps_the_persons_choice() -> None:
    person = parse_settings_file({"sandbox": "workspace-write", "sandbox_network": True}, source="a")
    merged = merge_files(person, parse_settings_file({"model": "m"}, source="b"))
    assert (merged.sandbox, merged.sandbox_network) == ("workspace-write", True)


def test_the_note_says_what_the_sandbox_allows() -> None:
    assert sandbox_note(None) is None
    write = sandbox_note(SandboxPolicy("workspace-write", workspace="/w"))
    assert write is not None
    assert write.startswith("Commands run in a sandbox: the file system is read-only except the workspace")
    assert write.endswith("; no network.")
    assert "credential files and Circle's data folder look empty" in write
    assert ".git/hooks, .git/info, .git/config, .gitmodules and .circle/ are read-only" in write
    read = sandbox_note(SandboxPolicy("read-only", workspace="/w", network=True))
    assert read is not None
    assert "read-only sandbox" in read and read.endswith("; the network is open.")


async def test_the_environment_section_carries_the_sandbox_note() -> None:
    files = InMemoryFileSystem({"/w/x": ""})
    env = Environment(workspace="/w", platform="Linux", date="2026-11-30", model="m", protocol="anthropic")
    plain = await build_system_prompt(files, env)
    note = sandbox_note(SandboxPolicy("workspace-write", workspace="/w"))
    sandboxed = await build_system_prompt(
        files,
        Environment(
            workspace="/w",
            platform="Linux",
            date="2026-11-30",
            model="m",
            protocol="anthropic",
            sandbox_note=note,
        ),
    )
    assert "sandbox" not in plain.split("# Environment", 1)[1]
    assert sandboxed.split("# Environment", 1)[1].splitlines()[-1] == f"- {note}"


def _after(argv: list[str], *args: str) -> int:
    """Where ``args`` stand in ``argv`` (they must, in a row)."""
    for at in range(len(argv)):
        if argv[at : at + len(args)] == list(args):
            return at
    raise AssertionError(f"{args} not in {argv}")


def test_hidden_folders_are_empty_read_only_and_hidden_files_bound_to_the_empty_file() -> None:
    mounts = SandboxMounts(hidden_folders=("/home/u/.ssh",), hidden_files=("/home/u/.netrc", "/w/.env"))
    argv = bwrap_argv(
        SandboxPolicy("workspace-write", workspace="/w"),
        ["true"],
        cwd="/w",
        mounts=mounts,
        empty_file="/e/empty",
    )
    ssh = _after(argv, "--tmpfs", "/home/u/.ssh")
    assert _after(argv, "--ro-bind", "/e/empty", "/home/u/.netrc") > _after(argv, "--bind", "/w", "/w")
    assert _after(argv, "--ro-bind", "/e/empty", "/w/.env") > _after(argv, "--bind", "/w", "/w")
    assert ssh < _after(argv, "--remount-ro", "/home/u/.ssh") < argv.index("--unshare-pid")
    by_default = bwrap_argv(SandboxPolicy("read-only", workspace="/w"), ["true"], cwd="/w", mounts=mounts)
    _after(by_default, "--ro-bind", "/dev/null", "/w/.env")


def test_the_folders_bound_into_a_hidden_data_folder_come_back_after_it() -> None:
    policy = SandboxPolicy("workspace-write", workspace="/w", writable=("/d/background_jobs",), data_dir="/d")
    mounts = SandboxMounts(hidden_folders=("/d",), read_only=("/d",))
    argv = bwrap_argv(policy, ["true"], cwd="/w", mounts=mounts)
    hidden = _after(argv, "--tmpfs", "/d")
    assert _after(argv, "--ro-bind", "/d", "/d") < hidden, "at one path the hide wins"
    assert hidden < _after(argv, "--bind-try", "/d/background_jobs", "/d/background_jobs")
    assert _after(argv, "--bind-try", "/d/background_jobs", "/d/background_jobs") < _after(
        argv, "--remount-ro", "/d"
    ), "the mount point is made before the folder turns read-only"


def test_a_workspace_inside_a_hidden_folder_is_bound_back_and_its_own_credentials_hidden() -> None:
    mounts = SandboxMounts(hidden_folders=("/d",), hidden_files=("/d/ws/.env",))
    argv = bwrap_argv(
        SandboxPolicy("workspace-write", workspace="/d/ws"), ["true"], cwd="/d/ws", mounts=mounts
    )
    assert _after(argv, "--tmpfs", "/d") < _after(argv, "--bind", "/d/ws", "/d/ws")
    assert _after(argv, "--bind", "/d/ws", "/d/ws") < _after(argv, "--ro-bind", "/dev/null", "/d/ws/.env")


def test_always_ask_places_are_read_only_and_the_folders_above_them_pinned() -> None:
    mounts = SandboxMounts(read_only=("/w/sub/.git/hooks", "/w/.circle", "/home/u/.circle"))
    argv = bwrap_argv(SandboxPolicy("workspace-write", workspace="/w"), ["true"], cwd="/w", mounts=mounts)
    workspace = _after(argv, "--bind", "/w", "/w")
    sub = _after(argv, "--bind", "/w/sub", "/w/sub")
    git = _after(argv, "--bind", "/w/sub/.git", "/w/sub/.git")
    hooks = _after(argv, "--ro-bind", "/w/sub/.git/hooks", "/w/sub/.git/hooks")
    assert workspace < sub < git < hooks
    _after(argv, "--ro-bind", "/w/.circle", "/w/.circle")
    _after(argv, "--ro-bind", "/home/u/.circle", "/home/u/.circle")
    assert "--bind" not in argv[argv.index("--unshare-pid") :]
    read_only = bwrap_argv(SandboxPolicy("read-only", workspace="/w"), ["true"], cwd="/w", mounts=mounts)
    assert "/w/sub/.git/hooks" not in read_only, "everything is read-only already"


def test_paths_a_hidden_folder_or_the_private_tmp_already_covers_are_left_out() -> None:
    mounts = SandboxMounts(
        hidden_folders=("/home/u/.ssh", "/tmp/h/.aws"),
        hidden_files=("/home/u/.ssh/id_rsa", "/tmp/h/.netrc"),
        read_only=("/home/u/.ssh/config", "/tmp/h/.circle"),
    )
    argv = bwrap_argv(SandboxPolicy("workspace-write", workspace="/w"), ["true"], cwd="/w", mounts=mounts)
    assert "/home/u/.ssh/id_rsa" not in argv and "/home/u/.ssh/config" not in argv
    assert not [arg for arg in argv if arg.startswith("/tmp/h")]
    assert argv.count("/home/u/.ssh") == 2  # --tmpfs and --remount-ro


def test_mounts_go_shallow_to_deep_so_the_most_specific_wins() -> None:
    policy = SandboxPolicy("workspace-write", workspace="/a/b/c/ws")
    mounts = SandboxMounts(
        hidden_files=("/a/b/c/ws/.env",), hidden_folders=("/a/b/c/ws/keys/.ssh", "/a/.aws")
    )
    argv = bwrap_argv(policy, ["true"], cwd="/a/b/c/ws", mounts=mounts)
    aws = _after(argv, "--tmpfs", "/a/.aws")
    workspace = _after(argv, "--bind", "/a/b/c/ws", "/a/b/c/ws")
    env = _after(argv, "--ro-bind", "/dev/null", "/a/b/c/ws/.env")
    ssh = _after(argv, "--tmpfs", "/a/b/c/ws/keys/.ssh")
    assert aws < workspace < env < ssh
