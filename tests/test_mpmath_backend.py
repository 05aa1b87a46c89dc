"""The test extra installs gmpy2, so the suite runs on mpmath's GMP backend (about 15 % less
CPU); a plain ``pip install .`` has mpmath's pure-Python integers. Both must print the same
bytes: the first snapshot case of every command (the ones that need mpmath: without
``--derive`` and ``--simulate``, whose extra work is sympy's and numpy's), replayed in one
process with MPMATH_NOGMPY=1, match their snapshots. What differs between the backends is the
type of mpmath's mantissas, which every command's rounding and Arb conversion read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

REPLAY = """
import json, sys
from pathlib import Path
import mpmath.libmp
from tests.snapshot_cases import CASES, run_case

snapshots = Path("tests/snapshots")
codes = json.loads((snapshots / "exit_codes.json").read_text())
print(mpmath.libmp.BACKEND)
first = {}
for name, argv in CASES:
    if "--derive" not in argv and "--simulate" not in argv:
        first.setdefault(argv[0], (name, argv))
for name, argv in first.values():
    code, stdout, stderr = run_case(argv)
    err = snapshots / f"{name}.err"
    if (stdout.encode() != (snapshots / f"{name}.out").read_bytes()
            or stderr.encode() != (err.read_bytes() if err.exists() else b"") or code != codes[name]):
        print("differs:", name)
"""


@pytest.mark.slow
def test_snapshots_hold_on_the_pure_python_backend():
    env = {**os.environ, "MPMATH_NOGMPY": "1"}
    done = subprocess.run(
        [sys.executable, "-c", REPLAY], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0 and done.stdout == "python\n", done.stdout + done.stderr[-2000:]
