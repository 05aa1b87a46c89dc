"""Every command has help with a worked example and is documented in the README."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from momentcalc.cli import app
from tests.conftest import invoke

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
COMMANDS = sorted(typer.main.get_command(app).commands)


def test_there_are_commands():
    assert "truncnorm" in COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_command_has_help_with_example(command):
    run = invoke(command, "--help")
    assert run.code == 0
    assert "Examples:" in run.stdout or "Example:" in run.stdout
    assert f"momentcalc {command}" in run.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_command_is_in_readme(command):
    assert f"momentcalc {command}" in README


def test_readme_has_no_placeholders():
    for marker in ("COMMAND_EXAMPLES", "CI_SECTION", "API_SECTION", "EXAMPLE_"):
        assert marker not in README
