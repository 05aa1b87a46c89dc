"""Shared test helpers: run the CLI in-process and capture stdout, stderr and exit code."""

from __future__ import annotations

import json
from dataclasses import dataclass

import os
import sys

# One BLAS thread per process: xdist already runs one worker per core, and OpenBLAS's extra
# threads spin while they wait, which cost the simulation tests about a third more CPU.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402


def _leave_hypothesis_unrewritten() -> None:
    """pytest rewrites the asserts of every module of a plugin's distribution when it is
    imported: all of hypothesis (73 modules, about 1 s of CPU in each xdist worker, with no
    cache of the rewrite under PYTHONDONTWRITEBYTECODE or in a fresh environment). Its asserts
    are not the tests'; only ours need rewriting."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if isinstance(marked, set) and "hypothesis" not in sys.modules:
            marked.discard("hypothesis")


_leave_hypothesis_unrewritten()

from hypothesis import settings  # noqa: E402  (after the line above)

from tests import cli_runner

# The default run (CI's) draws the same examples every time, so a red CI is reproducible and
# never a coin toss; `HYPOTHESIS_PROFILE=explore` draws fresh ones to hunt for new failures.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


# CPython 3.11 keeps Python frames in 16 KiB chunks that it maps when a call needs a new one and
# unmaps when that call returns: a hot loop whose calls cross a chunk boundary (the Arb integrand
# of an expression, called 10^5 times, at the depth pytest and hypothesis add) pays an mmap and
# a munmap per call, up to 3x the work itself (measured: 333k pairs, 2 s of system time in one
# fuzz test). Each test runs inside one very large frame, which gets a chunk with room to spare
# for the test's own calls, so the boundary is only crossed at that depth.
_FRAME_SLOTS = 16000
_namespace: dict = {}
exec(  # a function with _FRAME_SLOTS local variables (never assigned: only the frame size counts)
    "def _in_a_large_frame(function, kwargs):\n    if False:\n        "
    + " = ".join(f"v{i}" for i in range(_FRAME_SLOTS)) + " = 0\n    return function(**kwargs)\n",
    _namespace,
)
_in_a_large_frame = _namespace["_in_a_large_frame"]


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    test = pyfuncitem.obj
    pyfuncitem.obj = lambda **kwargs: _in_a_large_frame(test, kwargs)
    try:
        return (yield)
    finally:
        pyfuncitem.obj = test


@pytest.fixture(autouse=True, scope="session")
def _each_published_constant_checked_once():
    """``verify`` recomputes every registry entry (about 1 s of CPU); the suite runs it in full
    from several tests (the entries one by one, the snapshot, the JSON schema, the fuzz), which
    check the same rows rendered differently. Each worker checks an entry once and hands the
    row back to every later call; a failing row is never kept (it is recomputed), and an entry
    a test builds (``dataclasses.replace``) is a different key, so it is checked anew."""
    from momentcalc.verification import run

    original = run.check_entry
    rows: dict = {}

    def check_entry(entry):
        row = rows.get(entry)
        if row is None:
            row = original(entry)
            if row["status"] == "fail":
                return row
            rows[entry] = row
        return dict(row)

    run.check_entry = check_entry
    yield
    run.check_entry = original


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
