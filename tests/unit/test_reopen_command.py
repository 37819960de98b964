"""The command the exit line tells the person to run again works where they are."""

from __future__ import annotations

import os
from pathlib import Path

from circle.entrypoints._invocation import circle_command


def _script(folder: Path) -> Path:
    script = folder / "bin" / "circle"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    return script


def test_a_circle_not_on_path_is_named_by_its_absolute_path(tmp_path: Path) -> None:
    script = _script(tmp_path / "my project" / ".venv")
    os.chdir(tmp_path)
    command = circle_command(argv0="my project/.venv/bin/circle", which=lambda name: None)
    assert command == f"'{script}'"


def test_another_circle_on_path_does_not_count(tmp_path: Path) -> None:
    script = _script(tmp_path / "venv")
    other = _script(tmp_path / "elsewhere")
    assert circle_command(argv0=str(script), which=lambda name: str(other)) == str(script)


def test_the_circle_path_finds_is_named_circle(tmp_path: Path) -> None:
    script = _script(tmp_path / "venv")
    assert circle_command(argv0=str(script), which=lambda name: str(script)) == "circle"


def test_a_program_that_is_not_the_circle_script_says_circle(tmp_path: Path) -> None:
    assert circle_command(argv0=str(tmp_path / "pytest"), which=lambda name: None) == "circle"


def test_the_exit_line_names_the_command_that_works(tmp_path: Path) -> None:
    from circle.entrypoints.tui.app import exit_lines

    script = _script(tmp_path / "venv")
    lines = exit_lines(
        [], "abc", ephemeral=False, command=circle_command(argv0=str(script), which=lambda n: None)
    )
    assert lines == [f"Continue this session with: {script} --session abc"]
