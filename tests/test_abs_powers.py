"""Sums of signed powers of |x| (moments.abs_powers: Kummer-function closed forms in Arb
balls) against independent routes: mpmath's quadrature split at 0 (50 digits), and for
E|Z|^s with s near −1, where no quadrature reaches the mass at 0, the series of the normal
density on [0, 1] plus a quadrature beyond."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

from momentcalc.moments import expectation_balls, midpoint, radius

MEAN, SECOND, DERIV2 = (0, 1, 0), (0, 2, 0), (0, 0, 2)


def _abs_moment_standard(s: mpmath.mpf) -> mpmath.mpf:
    """E|Z|^s, s > −1, Z ~ N(0, 1), without the Gamma function: 2·(∫_0^1 + ∫_1^15) x^s·ϕ(x) dx
    (beyond 15 the density is below e^(−112)), the first termwise from ϕ(x) = Σ_k (−1)^k
    x^(2k)/(2^k·k!·√(2π)), ∫_0^1 x^(s+2k) dx = 1/(s + 2k + 1) (60 terms: the k-th is below
    1/(2^k·k!))."""
    head = sum((-1) ** k / (2**k * mpmath.factorial(k) * (s + 2 * k + 1)) for k in range(60))
    tail = mpmath.quad(lambda x: x**s * mpmath.exp(-x * x / 2), [1, 3, 6, 15])
    return 2 * (head + tail) / mpmath.sqrt(2 * mpmath.pi)


def _holds(ball, value: mpmath.mpf, digits: int) -> None:
    with mp.workdps(digits + 20):
        assert abs(midpoint(ball) - value) <= radius(ball) + abs(value) * mpmath.mpf(10) ** -(digits + 5), (
            ball,
            value,
        )
        assert radius(ball) <= abs(value) * mpmath.mpf(10) ** -digits


def test_near_the_edge_of_integrability():
    """abs(x)**0.5001 (issue 15's exit 3): E|Z|^p, E|Z|^(2p) and E[φ'(Z)²] = p²·E|Z|^(2p−2),
    2p − 2 = −0.9998, to 35 digits against the series route at 45 digits."""
    p = Fraction(5001, 10000)
    balls = expectation_balls("abs(x)**0.5001", [MEAN, SECOND, DERIV2], digits=35)
    with mp.workdps(45):
        pm = mpmath.mpf(p.numerator) / p.denominator
        wants = (
            _abs_moment_standard(pm),
            _abs_moment_standard(2 * pm),
            pm**2 * _abs_moment_standard(2 * pm - 2),
        )
        for ball, want in zip(balls, wants):
            _holds(ball, want, 35)


def _power_075(x):
    return abs(x) ** mpmath.mpf("0.75")


def _mixed(x):
    return x * mpmath.sqrt(abs(x)) - 2 * abs(x)


@pytest.mark.parametrize(
    "text, monomial, g",
    [
        ("abs(x)**0.75", MEAN, _power_075),
        ("abs(x)**0.75", DERIV2, lambda x: (mpmath.mpf("0.75") * abs(x) ** mpmath.mpf("-0.25")) ** 2),
        ("x*abs(x)**0.5 - 2*abs(x)", SECOND, lambda x: _mixed(x) ** 2),
        (
            "x*abs(x)**0.5 - 2*abs(x)",
            DERIV2,
            lambda x: (mpmath.mpf("1.5") * mpmath.sqrt(abs(x)) - 2 * mpmath.sign(x)) ** 2,
        ),
    ],
)
def test_shifted_gaussian_against_quadrature(text, monomial, g):
    """Mean 0.7, std 1.3 (the Kummer functions at a non-zero argument) to 30 digits against
    mpmath's quadrature at 40 digits, split at 0 and with x = ±t² (the quadrature alone misses
    |x|^(−1/2)'s mass near 0 from the 28th digit on), cut at t = 4.5 (|x| = 20.25, where the
    density is below e^(−110))."""
    (ball,) = expectation_balls(text, [monomial], mean="0.7", std="1.3", digits=30)
    with mp.workdps(40):
        mu, sigma = mpmath.mpf("0.7"), mpmath.mpf("1.3")

        def h(x):
            return g(x) * mpmath.exp(-(((x - mu) / sigma) ** 2) / 2)

        want = mpmath.quad(lambda t: 2 * t * (h(t * t) + h(-t * t)), [0, 1, 2, 3, 4.5]) / (
            sigma * mpmath.sqrt(2 * mpmath.pi)
        )
        _holds(ball, want, 30)


def test_odd_sum_is_exactly_zero_and_powers_below_minus_one_are_left_alone():
    """x*abs(x)**0.5 under N(0, 1): mean exactly 0 (every term odd, every power above −1);
    abs(x)**-0.5's E[1/|Z|] is left to the integrating route (None), which says it diverges."""
    from momentcalc.catalog import resolve
    from momentcalc.moments.abs_powers import abs_power_ball

    (zero,) = expectation_balls("x*abs(x)**0.5", [MEAN], digits=20)
    assert zero == 0 and zero.rad() == 0
    assert abs_power_ball(resolve("abs(x)**-0.5"), SECOND, Fraction(0), Fraction(1), 15) is None
    assert abs_power_ball(resolve("abs(x)**-0.5"), MEAN, Fraction(0), Fraction(1), 15) is not None


def test_cli_certifies_it(cli):
    """The CLI call of the issue: exit 0, every result certified."""
    run = cli("activation-moment", "abs(x)**0.5001", "--json")
    assert run.code == 0, run
    results = run.json()["results"]
    assert all(r["certified"] and r["error_bound"] is not None for r in results.values())
    with mp.workdps(30):
        assert results["mean"]["decimal"] == mpmath.nstr(_abs_moment_standard(mpmath.mpf("0.5001")), 15)


_P = mpmath.mpf("0.75")


@pytest.mark.parametrize(
    "monomial, g",
    [
        (MEAN, lambda x: mpmath.tanh(x**_P)),
        (DERIV2, lambda x: (mpmath.sech(x**_P) ** 2 * _P * x ** (_P - 1)) ** 2),
    ],
)
def test_power_of_abs_inside_other_functions(monomial, g):
    """tanh(abs(x)**0.75) (not a sum of powers: integrated): the integrand is enclosed on real
    balls reaching 0, where u^p lies in [0, max|u|^p], and E[φ'²] (∝ |x|^(−1/2) at 0) takes the
    integrable-singularity route; to 16 digits against mpmath's quadrature with x = ±t²."""
    (ball,) = expectation_balls("tanh(abs(x)**0.75)", [monomial], digits=16)
    with mp.workdps(25):
        want = 2 * mpmath.quad(lambda t: 2 * t * g(t * t) * mpmath.npdf(t * t), [0, 1, 2, 3, 5])
        _holds(ball, want, 16)
