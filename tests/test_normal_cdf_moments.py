"""gelu's moments in closed form (moments.normal_cdf, engine.normal_cdf_moments: Stein's identity
down to orthant probabilities): the balls hold mpmath quadrature's values (the independent
route) at 50 digits, and E[φ⁴], which gau-scale needs at --digits 1000, no longer integrates."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.engine.normal_cdf_moments import cdf_moment, density_moment
from momentcalc.moments.expectations import expectations_by_quadrature
from momentcalc.moments.normal_cdf import normal_cdf_ball


def _arb(value, digits):
    return arb(mpmath.nstr(value, digits + 5))


def _holds(ball, expected, digits):
    return (ball - _arb(expected, digits + 10)).abs_lower() <= abs(expected) * mpmath.mpf(10) ** -digits


def _balls_holding_the_quadrature_values(act, shapes, std):
    """The closed-form balls at 50 digits, each asserted to hold mpmath's quadrature value (the
    independent route) at mean 0 and ``std``."""
    reference = expectations_by_quadrature(act, shapes, mean=0, std=std, digits=50)
    balls = []
    with mp.workdps(60):
        for shape, expected in zip(shapes, reference):
            ball = normal_cdf_ball(act, shape, Fraction(0), std, 50)
            assert ball is not None, shape
            assert _holds(ball, expected, 50), (shape, ball, expected)
            balls.append(ball)
    return balls


@pytest.mark.parametrize("std", [Fraction(1), Fraction(3, 7)])
def test_gelu_moments_hold_the_mpmath_values_at_50_digits(std):
    act = resolve("gelu")
    if std == 1:  # Φ⁴ under N(0, 1): E[Φ(Z)⁴] = 1/5
        shapes = [(0, 4, 0), (2, 2, 1), (1, 3, 1), (0, 0, 2)]
    else:
        shapes = [(0, 2, 0), (0, 3, 0), (1, 1, 1), (4, 1, 0), (0, 0, 2)]
    for ball in _balls_holding_the_quadrature_values(act, shapes, std):
        assert ball.rad() <= abs(ball.mid()) * arb(10) ** -53


def test_erf_moments_hold_the_mpmath_values_at_50_digits():
    """erf(x) = 2Φ(√2·x) − 1, erf' = 2√2·ϕ(√2·x): the same route with U = √2·X."""
    act, std = resolve("erf"), Fraction(2)
    shapes = [(0, 2, 0), (0, 0, 2), (2, 2, 0)]
    _balls_holding_the_quadrature_values(act, shapes, std)
    assert normal_cdf_ball(act, (0, 3, 1), Fraction(0), std, 50) is None  # exactly 0 (odd): parity decides


def test_orthant_ends_agree_with_symmetry():
    """Φ(−y) = 1 − Φ(y) and a symmetric Y give 2·E[Φ³] = 1 − 3·E[Φ] + 3·E[Φ²]: the trivariate
    orthant 1/8 + 3·asin(ρ)/(4π) against Sheppard's 1/4 + asin(ρ)/(2π), at any v."""
    with ctx.workprec(200):
        for v in (Fraction(2, 3), Fraction(9, 4), Fraction(1, 1000)):
            first, second, third = (cdf_moment(0, n, v) for n in (1, 2, 3))
            assert (2 * third - (1 - 3 * first + 3 * second)).abs_upper() < arb(2) ** -190, v


def test_density_powers_fold_into_the_weight():
    """E[Y³·Φ(Y)²·ϕ(Y)²], Y ~ N(0, 2/5), against mpmath's integral."""
    with mp.workdps(25), ctx.workprec(120):
        s = mpmath.sqrt(mpmath.mpf(2) / 5)
        expected = mpmath.quad(
            lambda y: y**3 * mpmath.ncdf(y) ** 2 * mpmath.npdf(y) ** 2 * mpmath.npdf(y, 0, s), [-8, 0, 8]
        )
        assert _holds(density_moment(3, 2, 2, Fraction(2, 5)), expected, 20)


def test_four_orthant_by_plackett_against_quadrature():
    """E[Φ(Y)⁴] at v ≠ 1 (Plackett's identity and one integral of an elementary function), and
    gelu's and erf's E[φ⁴] off N(0, 1) that rest on it, against mpmath's integrals; and 1/5 at
    v = 1 from the same formula."""
    from momentcalc.engine.normal_cdf_moments import _four_orthant

    with mp.workdps(25), ctx.workprec(120):
        for v in (Fraction(2), Fraction(3, 10)):
            s = mpmath.sqrt(mpmath.mpf(v.numerator) / v.denominator)
            expected = mpmath.quad(lambda y: mpmath.ncdf(y) ** 4 * mpmath.npdf(y, 0, s), [-12 * s, 0, 12 * s])
            assert _holds(cdf_moment(0, 4, v), expected, 20), v
        assert (_four_orthant(Fraction(1)) - arb(1) / 5).abs_upper() < arb(2) ** -100
    reference = {
        name: expectations_by_quadrature(resolve(name), [(0, 4, 0)], mean=0, std=Fraction(3, 7), digits=30)[0]
        for name in ("gelu", "erf")
    }
    with mp.workdps(40):
        for name, expected in reference.items():
            ball = normal_cdf_ball(resolve(name), (0, 4, 0), Fraction(0), Fraction(3, 7), 30)
            assert ball is not None and _holds(ball, expected, 30), (name, ball, expected)


def test_no_closed_form_is_none():
    """E[Φ(Y)^n] for n ≥ 5 at v ≠ 1: the caller integrates."""
    with ctx.workprec(100):
        assert cdf_moment(0, 6, Fraction(1, 2)) is None
        assert cdf_moment(2, 5, Fraction(3)) is None
    act = resolve("gelu")
    assert normal_cdf_ball(act, (0, 6, 0), Fraction(0), Fraction(3, 7), 20) is None
    assert normal_cdf_ball(act, (0, 2, 0), Fraction(1, 2), Fraction(1), 20) is None  # mean != 0
    assert normal_cdf_ball(resolve("swish"), (0, 2, 0), Fraction(0), Fraction(1), 20) is None


def test_gau_fourth_moment_at_1000_digits_is_closed():
    """gau-scale --activation gelu --digits 1000 needs E[gelu(Z)⁴] to 1003 digits: a closed form,
    checked against the 50-digit quadrature."""
    act = resolve("gelu")
    ball = normal_cdf_ball(act, (0, 4, 0), Fraction(0), Fraction(1), 1003)
    assert ball is not None and ball.rad() <= abs(ball.mid()) * arb(10) ** -1006
    (reference,) = expectations_by_quadrature(act, [(0, 4, 0)], mean=0, std=1, digits=50)
    with mp.workdps(60):
        assert _holds(ball, reference, 50)
