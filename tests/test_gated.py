"""Gated units a·g(b), a and b independent N(mean, std²) (glu, geglu, swiglu): moments against
mpmath's own quadrature of the gate (30 digits) times a's exact moments, and the factoring
itself against a seeded Monte Carlo of the product."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import mpmath
import numpy as np
import pytest
from mpmath import mp

from momentcalc import activation_moment
from tests.conftest import invoke

GATES = {
    "glu": (lambda x: 1 / (1 + mpmath.exp(-x)), lambda x: mpmath.exp(-x) / (1 + mpmath.exp(-x)) ** 2),
    "geglu": (lambda x: x * mpmath.ncdf(x), lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x)),
    "swiglu": (
        lambda x: x / (1 + mpmath.exp(-x)),
        lambda x: 1 / (1 + mpmath.exp(-x)) + x * mpmath.exp(-x) / (1 + mpmath.exp(-x)) ** 2,
    ),
}


def _rounded(value: mpmath.mpf, digits: int) -> str:
    d = Decimal(mpmath.nstr(value, digits + 10, strip_zeros=False))
    return str(d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=ROUND_HALF_UP))


# every gate at N(0, 1); the shifted, wider input for glu by default, geglu's and swiglu's (0.9 s
# of CPU) with -m reference
@pytest.mark.parametrize(
    "name, mean, std",
    [(name, "0", "1") for name in sorted(GATES)]
    + [
        pytest.param(name, "0.5", "2", marks=() if name == "glu" else pytest.mark.reference)
        for name in sorted(GATES)
    ],
)
def test_moments_factor_into_the_halves(name, mean, std):
    g, dg = GATES[name]
    result = activation_moment(name, mean=mean, std=std, digits=20)
    with mp.workdps(40):
        mu, s = mpmath.mpf(mean), mpmath.mpf(std)
        gauss = lambda f: mpmath.quad(lambda z: f(mu + s * z) * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
        g1, g2, dg2 = gauss(g), gauss(lambda x: g(x) ** 2), gauss(lambda x: dg(x) ** 2)
        a2 = mu * mu + s * s
        expected = {
            "mean": mu * g1,
            "second_moment": a2 * g2,
            "variance": a2 * g2 - (mu * g1) ** 2,
            "derivative_second_moment": g2 + a2 * dg2,
        }
        expected["centered_gain"] = 1 / mpmath.sqrt(expected["variance"])
        for key, value in expected.items():
            if value == 0:
                assert result[key].decimal(20) == "0"
            else:
                assert result[key].decimal(20) == _rounded(value, 20), key
    assert all(result[key].certified for key in expected)


def test_the_factoring_against_a_monte_carlo_of_the_product():
    """E[(a·sigmoid(b))²] = (mean² + std²)·E[sigmoid(b)²] only because a and b are independent:
    sampled directly, 10^6 draws, within 5 standard errors."""
    rng = np.random.default_rng(20261126)
    a, b = rng.normal(0.5, 2.0, size=(2, 1_000_000))
    sample = (a / (1 + np.exp(-b))) ** 2
    proven = float(activation_moment("glu", mean="0.5", std="2").value("second_moment"))
    assert abs(sample.mean() - proven) <= 5 * sample.std() / np.sqrt(sample.size)


def test_glu_gamma_is_the_index_entry():
    """The normalizer-free gamma of glu (Brock et al., 2021) that audit/identify know."""
    from momentcalc.computations.identify import exact_text, index

    (entry,) = [c for c in index() if c.id == "glu.centered_gain"]
    assert activation_moment("glu", digits=17)["centered_gain"].decimal(17) == exact_text(entry, 17)


@pytest.mark.parametrize(
    "argv",
    [
        ("meanfield", "glu"),
        ("tat", "geglu", "--target-slope", "2"),
        ("kernel", "glu", "--slope", "0.2"),
        ("activation-moment", "glu", "--derive"),
        ("activation-moment", "glu", "--slope", "0.2"),
    ],
)
def test_commands_that_need_one_input_say_so(argv):
    run = invoke(*argv)
    assert run.code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert ("gated unit" in run.stderr) or ("--derive" in run.stderr)


# 1e100 by default (0.3 s of CPU), 1e300 (1.7 s) with -m reference
@pytest.mark.parametrize("exponent", [100, pytest.param(300, marks=pytest.mark.reference)])
def test_a_huge_mean_keeps_the_variance_without_cancellation(exponent):
    """geglu at mean 1e300, std 1: Var = E[a²]·Var gelu(b) + Var a·E[gelu(b)]² ≈ 2e600 (gelu(b) ≈ b
    there: Var ≈ 1, E ≈ 1e300); E[a²]E[g²] − E[a]²E[g]² would cancel every digit (and at 1e100)."""
    r = activation_moment("geglu", mean=f"1e{exponent}", std="1")
    assert r["variance"].decimal(15) == f"2.00000000000000e+{2 * exponent}" and r["variance"].certified
