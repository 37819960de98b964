"""The common command lines read without Typer (entrypoints/_argv.py) mean what Typer reads them
to mean; anything else is left to Typer."""

from __future__ import annotations

import dataclasses

import pytest
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st
from typer._click.exceptions import UsageError

from circle.entrypoints._argv import FLAGS, TEXT_OPTIONS, common_choices
from circle.entrypoints._root import root
from circle.entrypoints._run import Choices

COMMAND = typer.main.get_command(root)


def typer_choices(args: list[str]) -> Choices | None:
    """What Typer's command reads from ``args``; None when Typer refuses them."""
    try:
        with COMMAND.make_context("circle", list(args)) as context:
            params = dict(context.params)
    except UsageError:
        return None
    params.pop("version")
    params["args"] = list(params["args"]) or None
    return Choices(**params)


def test_each_spelling_is_the_typer_option_of_that_name_and_kind() -> None:
    options = {spelling: param for param in COMMAND.params for spelling in param.opts}
    for spelling, name in {**FLAGS, **TEXT_OPTIONS}.items():
        param = options[spelling]
        assert param.name == name
        assert getattr(param, "is_flag", False) is (spelling in FLAGS)
        assert not param.multiple and param.nargs == 1
        assert not param.secondary_opts
    text_fields = {field.name for field in dataclasses.fields(Choices) if field.type == "str | None"}
    assert set(TEXT_OPTIONS.values()) <= text_fields


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["hello", "there"],
        ["-p", "what", "is", "this"],
        ["what", "-p", "--model", "m"],
        ["--session", "abc"],
        ["-c", "--yolo", "@notes.md", "explain"],
        ["--mode", "json", "--thinking", "high", "hi"],
    ],
)
def test_a_common_command_line_is_read_as_typer_reads_it(args: list[str]) -> None:
    assert common_choices(args) == typer_choices(args)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["-p", "--help"],
        ["--model=m"],
        ["--model"],
        ["--model", "-p"],
        ["--max-turns", "3", "-p", "hi"],
        ["-p", "-p", "hi"],
        ["--session", "a", "--session", "b"],
        ["-pc"],
        ["--", "-p"],
        ["-"],
        ["--bogus"],
    ],
)
def test_anything_else_is_left_to_typer(args: list[str]) -> None:
    assert common_choices(args) is None


WORDS = st.sampled_from(
    [*FLAGS, *TEXT_OPTIONS, "--max-turns", "--help", "-x", "--", "-", "--model=m", "hi", "@f", "", "1", "-1"]
) | st.text(max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=7))
def test_whatever_is_read_without_typer_typer_reads_the_same(args: list[str]) -> None:
    quick = common_choices(args)
    if quick is not None:
        assert quick == typer_choices(args)
