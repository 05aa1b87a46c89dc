"""Shared test helpers: run the CLI in-process and capture stdout, stderr and exit code."""

from __future__ import annotations

import json
from dataclasses import dataclass

import os

import pytest
from hypothesis import settings

from tests import cli_runner

# The default run (CI's) draws the same examples every time, so a red CI is reproducible and
# never a coin toss; `HYPOTHESIS_PROFILE=explore` draws fresh ones to hunt for new failures.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


def invoke(*args: str) -> Run:
    """``momentcalc ARGS`` in-process, as a user would run it."""
    return Run(*cli_runner.run(args))


@pytest.fixture
def cli():
    return invoke


@pytest.fixture
def stderr_as():
    """``stderr_as(terminal=True)`` replaces sys.stderr by a buffer that is, or is not, a
    terminal, with progress bars due at once; read what was written with ``.getvalue()``."""
    import io
    import sys

    from momentcalc import progress

    class Buffer(io.StringIO):
        def __init__(self, terminal: bool) -> None:
            super().__init__()
            self.terminal = terminal

        def isatty(self) -> bool:
            return self.terminal

    patch = pytest.MonkeyPatch()
    patch.setattr(progress, "DELAY", 0.0)

    def install(terminal: bool) -> io.StringIO:
        buffer = Buffer(terminal)
        patch.setattr(sys, "stderr", buffer)
        return buffer

    yield install
    patch.undo()
