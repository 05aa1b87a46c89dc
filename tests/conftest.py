"""Shared test helpers: run the CLI in-process and capture stdout, stderr and exit code."""

from __future__ import annotations

import json
from dataclasses import dataclass

import os

# One BLAS thread per process: xdist already runs one worker per core, and OpenBLAS's extra
# threads spin while they wait, which cost the simulation tests about a third more CPU.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest
from hypothesis import settings

from tests import cli_runner

# The default run (CI's) draws the same examples every time, so a red CI is reproducible and
# never a coin toss; `HYPOTHESIS_PROFILE=explore` draws fresh ones to hunt for new failures.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


# CPython 3.11 keeps Python frames in 16 KiB chunks that it maps when a call needs a new one and
# unmaps when that call returns: a hot loop whose calls cross a chunk boundary pays an mmap and a
# munmap per call. A test marked ``large_frame`` runs inside one very large frame, which gets a
# chunk with room to spare for the test's own calls. Opt-in, for the tests where it measured a
# benefit (system CPU seconds with / without, -n 0, two runs each, 2026-11-26):
# test_activation_moment.py::test_derive_gives_closed_forms_and_integrals 0.05 / 0.40,
# test_cli_fuzz.py::test_every_command_survives_hostile_options 0.03 / 0.20,
# test_digits_monotone.py::test_fewer_digits_never_fail_where_more_succeed 0.01 / 0.07;
# no other test of the fuzz, expression, certified or activation-moment files gained 0.05 s.
# tests/test_kinked_routes.py, module-wide (Arb integrands of the kinked bivariate route; -n 2):
# test_softsign_meanfield_chaotic_c_star_against_mehler_series 0.01 / 7.44 (13.7 s of CPU in all
# without), test_abs_and_max_against_their_closed_kernels 0.00 / 0.74. Under -n 2 (xdist's worker
# adds its own frames, so the boundaries fall elsewhere than at -n 0), system CPU with / without:
# test_init.py::test_derive_closed_forms 0.00 / 0.42, test_kernel.py::test_every_catalog_activation
# 0.00 / 0.36 (gelu_tanh, quick_gelu), test_selu.py::test_derive_cli_json 0.00 / 0.26,
# test_cli_fuzz.py::test_csv_output_is_tidy_and_inert 0.45 / 0.67 (the rest is its subprocesses),
# test_meanfield_layers.py::test_q_layers_every_digit_against_quadrature 0.03 / 1.58 (3.4 s of CPU
# in all without, 1.6 s with: softsign's two cases).
_FRAME_SLOTS = 16000
_namespace: dict = {}
exec(  # a function with _FRAME_SLOTS local variables (never assigned: only the frame size counts)
    "def _in_a_large_frame(function, kwargs):\n    if False:\n        "
    + " = ".join(f"v{i}" for i in range(_FRAME_SLOTS))
    + " = 0\n    return function(**kwargs)\n",
    _namespace,
)
_in_a_large_frame = _namespace["_in_a_large_frame"]


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    if pyfuncitem.get_closest_marker("large_frame") is None:
        return (yield)
    test = pyfuncitem.obj
    pyfuncitem.obj = lambda **kwargs: _in_a_large_frame(test, kwargs)
    try:
        return (yield)
    finally:
        pyfuncitem.obj = test


# ``verify`` recomputes every registry entry (about 0.5 s of CPU). A module that opts in
# (``@pytest.mark.usefixtures("verify_rows_remembered")``) has each entry checked once per worker
# and the row handed back to every later call; a failing row is never kept (it is recomputed),
# and an entry a test builds (``dataclasses.replace``) is a different key, so it is checked anew.
# Measured (CPU seconds with / without, -n 0, after test_verify's entries in the same process):
# the ``verify`` snapshot case 0.00 / 0.50, test_cli_fuzz.py::test_every_command_survives_hostile_options
# 0.08 / 0.57; no other test gained 0.05 s.
_VERIFY_ROWS: dict = {}


@pytest.fixture(scope="module")  # not per function: a hypothesis test uses it
def verify_rows_remembered():
    from momentcalc.verification import run

    original = run.check_entry

    def check_entry(entry):
        row = _VERIFY_ROWS.get(entry)
        if row is None:
            row = original(entry)
            if row["status"] == "fail":
                return row
            _VERIFY_ROWS[entry] = row
        return dict(row)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run, "check_entry", check_entry)
        yield


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
