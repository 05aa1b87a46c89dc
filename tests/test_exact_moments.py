"""Rational moments are rounded exactly: leaky_relu's E[φ²] = E[φ'²] = (1 + slope²)/2 sits on a
rounding tie at some digits (slope 0.3: 0.545 at 2 digits), which no ball can decide. The
expected texts come from Python's decimal module (ROUND_HALF_UP: half away from zero for
these positive values), not from momentcalc's rounding."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx, fmpq
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.moments import exact_moments, expectation_balls, moment_balls, moments_by_quadrature

# slope -> digits at which (1 + slope²)/2 is a tie: 2.5, 8.5, 0.545, 0.505, 0.625, 0.745,
# 0.905, 1.625, 3.625
TIES = {"2": 1, "4": 1, "0.3": 2, "-0.3": 2, "0.1": 2, "0.5": 2, "0.7": 2, "0.9": 2, "1.5": 3, "2.5": 3}


def half_away(value: Fraction, digits: int) -> str:
    exponent = Decimal(value.numerator) / Decimal(value.denominator)
    quantum = Decimal(1).scaleb(exponent.adjusted() - digits + 1)
    return str(exponent.quantize(quantum, rounding=ROUND_HALF_UP))


@pytest.mark.parametrize("digits", [1, 2, 3])
def test_ties_round_half_away_in_a_slope_sweep(cli, digits):
    slopes = [s for s, d in TIES.items() if d == digits]
    run = cli(
        "activation-moment",
        "leaky_relu",
        "--slope",
        ",".join(slopes),
        "--digits",
        str(digits),
        "--get",
        "second_moment",
        "--get",
        "derivative_second_moment",
    )
    assert run.code == 0, run
    rows = [line.split("\t") for line in run.stdout.splitlines()]
    for slope, row in zip(slopes, rows, strict=True):
        exact = (1 + Fraction(slope) ** 2) / 2
        shifted = exact * 10 ** (digits - 1 - Decimal(exact.numerator / exact.denominator).adjusted())
        assert shifted - int(shifted) == Fraction(1, 2)  # a tie at these digits
        expected = half_away(exact, digits)
        assert row == [expected, expected], slope


def test_the_exact_value_agrees_with_quadrature():
    """The fraction against the mpmath route (no closed form, no symmetry) at 40 digits."""
    exact = exact_moments("leaky_relu", params={"slope": "0.3"})
    assert exact == {"second_moment": Fraction(109, 200), "derivative_second_moment": Fraction(109, 200)}
    numeric = moments_by_quadrature(resolve("leaky_relu", {"slope": "0.3"}), digits=40)
    with mp.workdps(50):
        for key, value in exact.items():
            assert abs(numeric[key] - mpmath.mpf(value.numerator) / value.denominator) < mpmath.mpf(10) ** -40


def test_derived_results_are_exact_when_rational():
    """selu: mean 0 and second moment 1, so variance, rms, gain and centered_gain are 1;
    identity also; relu's rms sqrt(1/2) is not rational, nor is anything with π, e, an
    exponential or a kink away from the mean in it."""
    for name in ("selu", "identity"):
        found = exact_moments(name)
        assert {k: found[k] for k in ("variance", "rms", "gain", "centered_gain")} == dict.fromkeys(
            ("variance", "rms", "gain", "centered_gain"), Fraction(1)
        ), name
    assert exact_moments("relu") == {
        "second_moment": Fraction(1, 2),
        "derivative_second_moment": Fraction(1, 2),
    }
    assert exact_moments("relu", mean="0.1") == {} and exact_moments("x*tanh(x)") == {}
    assert exact_moments("pi*x**2") == {} and exact_moments("elu") == {}


def test_api_and_gau_scale_use_the_same_exact_value(cli):
    (ball,) = expectation_balls("leaky_relu", [(0, 2, 0)], digits=2, params={"slope": "0.3"})
    with ctx.workprec(300):
        assert ball.contains(arb(fmpq(109, 200)))
    own = cli("activation-moment", "leaky_relu", "--slope", "0.3", "--digits", "2", "--get", "second_moment")
    gau = cli("gau-scale", "--activation", "leaky_relu", "--slope", "0.3", "--digits", "2", "--get", "nu2")
    assert own.stdout == gau.stdout == "0.55\n"


# Ties away from N(0, 1): homogeneous entries at mean 0 and polynomial expressions anywhere
# (E = A + B/sqrt(2π) with A, B rational: rational when B = 0).
SCALED = [
    ("relu", {"std": "0.3"}, "second_moment", Fraction(9, 200), 1),  # 0.045
    ("leaky_relu", {"std": "3", "params": {"slope": "0.3"}}, "second_moment", Fraction(981, 200), 3),  # 4.905
    ("x**2/2", {"std": "0.3"}, "mean", Fraction(9, 200), 1),
    ("relu2", {"std": "0.5"}, "variance", Fraction(5, 64), 2),  # 0.078125: 0.078
    ("identity", {"mean": "0.25", "std": "0.5"}, "centered_gain", Fraction(2), 1),
]


@pytest.mark.parametrize(("activation", "kwargs", "key", "value", "digits"), SCALED)
def test_scaled_exact_values_lie_in_the_balls_and_round_half_away(
    cli, activation, kwargs, key, value, digits
):
    assert exact_moments(activation, **kwargs)[key] == value
    balls = moment_balls(activation, digits=30, **kwargs)
    with ctx.workprec(400):
        assert balls[key].contains(arb(fmpq(value.numerator, value.denominator))), (activation, key)
    params = [f"--{name}={v}" for name, v in kwargs.get("params", {}).items()]
    options = [f"--{name}={v}" for name, v in kwargs.items() if name != "params"]
    run = cli("activation-moment", activation, *options, *params, "--digits", str(digits), "--get", key)
    assert run.code == 0, run
    assert run.stdout.strip() == half_away(value, digits)
