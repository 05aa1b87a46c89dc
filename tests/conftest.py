"""Shared test helpers: run the CLI in-process and capture stdout, stderr and exit code."""

from __future__ import annotations

import gc
import json
import os
import warnings
from dataclasses import dataclass

# One BLAS thread per process: xdist already runs one worker per core, and OpenBLAS's extra
# threads spin while they wait, which cost the simulation tests about a third more CPU.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest
from hypothesis import settings

from tests import cli_runner, source_trees

# Python's collector runs a young-generation pass every 700 new container objects and a full pass
# every 100 young ones; collecting the suite (assertion rewriting's ASTs, the parametrizations)
# and mpmath's, sympy's and the parsers' temporaries cross 700 so often that the passes cost
# 20-25 % of each worker's collection and about 5 % of the tests' CPU, for garbage that is almost
# all acyclic (freed by reference counting anyway). Passes every 50 000 objects: measured with
# ``gc.callbacks`` (-n 0, load 6-8), collecting the suite 2.5-3.2 s of the collector's CPU ->
# 0.4-0.5 s (10.5-12.8 s -> 7.9-9.2 s in all), test_certified.py 0.6 -> 0.14 s, test_kernel.py
# 0.45 -> 0.23 s. Cyclic garbage still goes, later; nothing in the tests waits for a collection.
gc.set_threshold(50_000, 20, 20)

# The default run (CI's) draws the same examples every time, so a red CI is reproducible and
# never a coin toss; `HYPOTHESIS_PROFILE=explore` draws fresh ones to hunt for new failures.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


# CPython 3.11 keeps Python frames in 16 KiB chunks that it maps when a call needs a new one and
# unmaps when that call returns: a hot loop whose calls cross a chunk boundary pays an mmap and a
# munmap per call. Every test runs inside one very large frame, which gets a chunk with room to
# spare for the test's own calls. (Once opt-in by a marker, for the tests where it had measured a
# benefit; where the boundaries fall depends on the stack depth, which xdist changes, so a test
# the marker missed paid instead: test_expression_messages.py's curvature of abs(x)**1.5 spent 1.9 s
# of system CPU of 5.5 in all without, 0.05 s with; six kernel files under -n 2, 11.1 s / 1.5 s.)
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
    test = pyfuncitem.obj
    pyfuncitem.obj = lambda **kwargs: _in_a_large_frame(test, kwargs)
    try:
        return (yield)
    finally:
        pyfuncitem.obj = test


def pytest_collection_finish(session):
    """What the imports and the collection made (about 80 000 objects a worker, alive for the
    whole run) is frozen once collected (``gc.freeze``, as the console script does after its
    start-up): Python's full collections stop scanning it. Measured on a quarter of the suite
    (-n 2, the CPU of the collector's own passes, timed with ``gc.callbacks``): 2.6 s without,
    1.8 s with."""
    gc.collect()
    gc.freeze()
    _LAST_OF_SOURCE_TREES[:] = [item for item in session.items if _group(item) == source_trees.GROUP][-1:]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """``--dist loadgroup`` (pyproject's addopts) sends the tests of one ``xdist_group`` to one
    worker by a suffix that xdist's worker writes into each test's id (``test_x@group``); pytest 9
    keeps the id structured, so xdist 3.8's write does not take (pytest-xdist issue 1386) and the
    groups' tests were spread like the others, each worker paying for the shared work (sympy's
    derivations, the parse of the sources). The suffix is written here where xdist's did not take."""
    if not getattr(config.option, "loadgroup", False):
        return
    from _pytest.nodeid import NodeId

    for item in items:
        names = {
            str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
            for mark in item.iter_markers("xdist_group")
        }
        suffix = "@" + "_".join(sorted(names))
        if names and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)
            if not item.nodeid.endswith(suffix):  # a later pytest: said, not silent
                warnings.warn(pytest.PytestWarning(f"xdist_group not applied to {item.nodeid}"), stacklevel=1)


def _group(item) -> str | None:
    marker = item.get_closest_marker("xdist_group") if item is not None else None
    return marker.args[0] if marker and marker.args else None


# The last test of the sources' trees group in a run without xdist (pytest_collection_finish).
_LAST_OF_SOURCE_TREES: list = []


def pytest_runtest_teardown(item, nextitem):
    """The sources' trees (source_trees) are dropped after the last test of their group here. On
    an xdist worker (loadgroup) the group's tests run one after another, and the last is the one
    the next test is not of the group; in one process they run in file order, among the others
    (test_dependencies.py alone re-parsed the sources for each of its three: 8.7 s of CPU, now
    3.0 s), and the last is the group's last in the run's order."""
    if _group(item) != source_trees.GROUP:
        return
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        last = _group(nextitem) != source_trees.GROUP
    else:
        last = bool(_LAST_OF_SOURCE_TREES) and item is _LAST_OF_SOURCE_TREES[0]
    if last:
        source_trees.forget()


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
