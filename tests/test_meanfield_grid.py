"""Phase-diagram points of meanfield that were refused (exit 3) though nothing is near the edge
of chaos: a value near a rounding tie, or a depth scale's ball a digit too wide (issue 34). The
precision is raised instead; every printed digit against an independent route (Gauss-Legendre
quadrature of the bivariate expectations and Newton's method in mpmath at 50 digits,
tests/meanfield_reference.py, stored in tests/meanfield_chaotic_references.json).

The whole 176 x 16 grid (sigma_w2 0.5..4 x sigma_b2 0..0.3, step 0.02) of tanh and erf at 15
and 30 digits is swept by tests/bench/bench_sweeps.py (its ``reference`` test below)."""

from __future__ import annotations

import json
from fractions import Fraction
import sys
from pathlib import Path

import mpmath
import pytest
from mpmath import mp

from momentcalc.computations.meanfield import meanfield
from momentcalc.engine.precision import to_decimal
from tests.cli_runner import run
from tests.meanfield_reference import CHAOTIC_FIXTURE

REFERENCES = json.loads(CHAOTIC_FIXTURE.read_text())


@pytest.mark.parametrize("digits", [15, 30])
@pytest.mark.parametrize("key", list(REFERENCES))
def test_chaotic_points_every_digit(key, digits):
    name, w, b = key.split()
    r = meanfield(name, sigma_w2=w, sigma_b2=b, digits=digits)
    with mp.workdps(60):
        for result, text in REFERENCES[key].items():
            assert r[result].certified, result
            assert to_decimal(r[result].rounded_from, digits) == to_decimal(mpmath.mpf(text), digits), (
                result,
                digits,
            )


@pytest.mark.parametrize(
    "args",
    [
        ["tanh", "--sigma-w2", "1.5:1.7:0.1", "--sigma-b2", "0,0.02", "--digits", "15"],
        ["tanh", "--sigma-w2", "1.6", "--sigma-b2", "0.02", "--digits", "17"],
        ["tanh", "--sigma-w2", "1.6", "--sigma-b2", "0.02", "--digits", "20"],
        ["erf", "--sigma-w2", "2,2.04,2.06", "--sigma-b2", "0.1", "--digits", "30"],
    ],
)
def test_sub_grid_refuses_no_point(args):
    code, out, err = run(["meanfield", *args])
    assert code == 0, err
    assert "refused" not in out and not err


@pytest.mark.reference
@pytest.mark.parametrize("digits", [15, 30])
@pytest.mark.parametrize("activation", ["tanh", "erf"])
def test_whole_grid_refuses_no_point(activation, digits):
    sys.path.insert(0, str(Path(__file__).with_name("bench")))
    from bench_sweeps import run as sweep_grid

    assert sweep_grid(activation, digits, 2, Fraction(1, 50))
