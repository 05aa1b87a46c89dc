"""Byte-identical regression check: every case in ``tests/snapshot_cases.py`` prints exactly
what ``tests/snapshots/`` holds (stdout, stderr, exit code). A deliberate output change is
recorded with ``python scripts/update_snapshots.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.snapshot_cases import CASES, run_case

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
CODES = json.loads((SNAPSHOTS / "exit_codes.json").read_text())


def test_every_case_has_a_snapshot():
    assert sorted(CODES) == sorted(name for name, _ in CASES)


@pytest.mark.parametrize(("name", "argv"), CASES, ids=[name for name, _ in CASES])
def test_output_is_byte_identical(name, argv):
    code, stdout, stderr = run_case(argv)
    err = SNAPSHOTS / f"{name}.err"
    assert stdout.encode() == (SNAPSHOTS / f"{name}.out").read_bytes()
    assert stderr.encode() == (err.read_bytes() if err.exists() else b"")
    assert code == CODES[name]
