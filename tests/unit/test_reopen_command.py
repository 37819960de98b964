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


def test_python_dash_m_circle_is_named_with_the_python_that_runs_it(tmp_path: Path) -> None:
    """Found in tmux: run as `python -m circle` with no circle on PATH, the exit line said
    `circle --session ID`, which the shell could not find (rc 127)."""
    import circle.__main__ as package_main

    python = tmp_path / "my venv" / "bin" / "python"
    main = package_main.__file__
    assert circle_command(argv0=main, which=lambda name: None, executable=str(python)) == (
        f"'{python}' -m circle"
    )
    beside = str(python.parent / "circle")
    assert circle_command(argv0=main, which=lambda name: beside, executable=str(python)) == "circle"
    other = str(tmp_path / "elsewhere" / "circle")
    assert circle_command(argv0=main, which=lambda name: other, executable=str(python)) == (
        f"'{python}' -m circle"
    )
