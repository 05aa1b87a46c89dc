"""Byte-identical regression check: every case in ``tests/snapshot_cases.py`` prints exactly
what ``tests/snapshots/`` holds (stdout, stderr, exit code). A deliberate output change is
recorded with ``python scripts/update_snapshots.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.snapshot_cases import CASES, SIZED_CASES, run_case, run_sized_case

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
CODES = json.loads((SNAPSHOTS / "exit_codes.json").read_text())


def test_every_case_has_a_snapshot():
    assert sorted(CODES) == sorted([*(name for name, _ in CASES), *(name for name, _, _ in SIZED_CASES)])


# The `verify` case runs on the worker that runs test_verify.py's entries (xdist_group): each row is
# computed once for both (verify_rows_remembered, conftest.py), not once on each worker.
@pytest.mark.usefixtures("verify_rows_remembered")
@pytest.mark.parametrize(
    ("name", "argv"),
    [
        pytest.param(
            name, argv, id=name, marks=pytest.mark.xdist_group("verify-rows") if name == "verify" else ()
        )
        for name, argv in CASES
    ],
)
def test_output_is_byte_identical(name, argv):
    code, stdout, stderr = run_case(argv)
    err = SNAPSHOTS / f"{name}.err"
    assert stdout.encode() == (SNAPSHOTS / f"{name}.out").read_bytes()
    assert stderr.encode() == (err.read_bytes() if err.exists() else b"")
    assert code == CODES[name]


@pytest.mark.parametrize(("name", "width", "argv"), SIZED_CASES, ids=[name for name, _, _ in SIZED_CASES])
def test_output_at_a_width_is_byte_identical(name, width, argv):
    code, stdout, stderr = run_sized_case(width, argv)
    err = SNAPSHOTS / f"{name}.err"
    assert stdout.encode() == (SNAPSHOTS / f"{name}.out").read_bytes()
    assert stderr.encode() == (err.read_bytes() if err.exists() else b"")
    assert code == CODES[name]


def test_no_cell_of_a_sized_table_is_cut():
    """Every value of the wide-value and sweep cases appears whole on one line of its table."""
    import re

    for name, width, _argv in SIZED_CASES:
        if name.startswith(("wide_values", "sweep")):
            stdout = (SNAPSHOTS / f"{name}.out").read_text()
            piped = (SNAPSHOTS / f"{name.rsplit('_', 2)[0]}_piped_{width}.out").read_text()
            numbers = set(re.findall(r"-?\d+\.\d+(?:e-?\d+)?", piped))
            assert numbers, name
            for number in numbers:
                assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", stdout), (name, number)
            assert all(len(line) <= width for line in stdout.splitlines() if "│" in line or "┃" in line), name
