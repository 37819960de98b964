"""Custom commands: the Markdown files in ~/.circle/commands and the project's .circle/commands
(a project's winning by name), their front matter, and their templates expanded."""

from __future__ import annotations

import pytest

from circle.application.context.commands import find_commands, load_commands
from circle.domain.custom_commands import expand, parse_command
from circle.domain.errors import ConfigError
from circle.testing import InMemoryFileSystem

WORKSPACE = "/work"
HOME = "/home/me"


async def test_commands_are_found_in_both_folders_the_projects_winning_by_name() -> None:
    files = InMemoryFileSystem()
    files.put(f"{HOME}/.circle/commands/review.md", "the person's review")
    files.put(f"{HOME}/.circle/commands/mine.md", "the person's own")
    files.put(f"{WORKSPACE}/.circle/commands/review.md", "the project's review")
    files.put(f"{WORKSPACE}/.circle/commands/fix-tests.md", "fix them")
    files.put(f"{WORKSPACE}/.circle/commands/notes.txt", "not a command")
    files.put(f"{WORKSPACE}/.circle/commands/.hidden.md", "hidden")
    found = await find_commands(files, workspace=WORKSPACE, home=HOME)
    assert [(c.name, c.source) for c in found] == [
        ("fix-tests", "project"),
        ("mine", "user"),
        ("review", "project"),
    ]
    assert found[2].path == f"{WORKSPACE}/.circle/commands/review.md"


async def test_no_folders_no_commands_and_no_home_skips_the_persons() -> None:
    files = InMemoryFileSystem()
    assert await find_commands(files, workspace=WORKSPACE, home=HOME) == ()
    files.put(f"{HOME}/.circle/commands/mine.md", "the person's own")
    assert await find_commands(files, workspace=WORKSPACE, home=None) == ()


# -- reading a command file and expanding its template


def test_arguments_fill_the_arguments_placeholder() -> None:
    assert (
        expand("Review $ARGUMENTS carefully.", "src/app.py --quick") == "Review src/app.py --quick carefully."
    )
    assert expand("All: $@", "a b") == "All: a b"


def test_numbered_placeholders_take_the_words_quotes_grouping_them() -> None:
    template = "Compare $1 with $2; then $3."
    assert expand(template, 'a.py "my file.py"') == "Compare a.py with my file.py; then ."
    assert expand("$1 and $ARGUMENTS", 'x "unclosed') == 'x and x "unclosed'


def test_with_no_placeholder_the_arguments_go_after_the_body_on_a_new_line() -> None:
    assert expand("Fix the failing tests.", "") == "Fix the failing tests."
    assert expand("Fix the failing tests.", "  only unit  ") == "Fix the failing tests.\nonly unit"
    assert expand("Review $ARGUMENTS.", "") == "Review ."


def test_front_matter_gives_the_description_and_the_body_is_the_template() -> None:
    text = '---\ndescription: "Review a file: bugs first"\nargument-hint: [FILE]\n---\n\nReview $1.\n'
    command = parse_command(text, name="review", path="/p/review.md", source="project")
    assert command.description == "Review a file: bugs first"
    assert command.usage == "[FILE]"  # as written: not a list of one
    assert command.template == "Review $1."
    plain = parse_command("# Fix the tests\n\nRun them, fix them.\n", name="fix", path="/p", source="user")
    assert plain.description == "Fix the tests"
    assert plain.template == "# Fix the tests\n\nRun them, fix them."


def test_bad_front_matter_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        parse_command("---\ndescription: never closed\nbody\n", name="x", path="/p", source="user")


async def test_a_bad_file_is_left_out_and_named_the_others_load() -> None:
    files = InMemoryFileSystem()
    files.put(f"{WORKSPACE}/.circle/commands/review.md", "---\ndescription: Review\n---\nReview $ARGUMENTS")
    files.put(f"{WORKSPACE}/.circle/commands/broken.md", "---\ndescription: open\n")
    files.put(f"{WORKSPACE}/.circle/commands/binary.md", b"\xff\xfe\x00")
    catalog = await load_commands(files, workspace=WORKSPACE, home=HOME)
    assert [c.name for c in catalog.commands] == ["review"]
    assert sorted(p.path.rsplit("/", 1)[1] for p in catalog.problems) == ["binary.md", "broken.md"]
    assert all("\n" not in str(p) for p in catalog.problems)
    assert catalog.expand("/review src/app.py") == "Review src/app.py"
    assert catalog.expand("/Review a") == "Review a"
    assert catalog.expand("/review a", reserved={"review"}) is None
    assert catalog.expand("/nothing a") is None
    assert catalog.expand("review a") is None


async def test_the_projects_folder_is_left_unread_when_it_is_not_trusted() -> None:
    files = InMemoryFileSystem()
    files.put(f"{WORKSPACE}/.circle/commands/review.md", "the project's")
    files.put(f"{HOME}/.circle/commands/mine.md", "the person's")
    catalog = await load_commands(files, workspace=WORKSPACE, home=HOME, project=False)
    assert [(c.name, c.source) for c in catalog.commands] == [("mine", "user")]


def test_an_argument_hint_without_brackets_is_read_as_it_is() -> None:
    text = "---\nargument-hint: PR number, then reviewer\n---\nLook at PR $1.\n"
    assert (
        parse_command(text, name="pr", path="/p/pr.md", source="project").usage == "PR number, then reviewer"
    )
    several = "---\nargument-hint: [pr-number] [priority]\n---\nLook at PR $1.\n"
    assert (
        parse_command(several, name="pr", path="/p/pr.md", source="project").usage == "[pr-number] [priority]"
    )
