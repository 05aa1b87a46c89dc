"""Shared test helpers: run the CLI in-process and capture stdout, stderr and exit code."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from typer.testing import CliRunner

from momentcalc.cli import app


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


def invoke(*args: str) -> Run:
    """``momentcalc ARGS`` in-process, as a user would run it."""
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def cli():
    return invoke
