"""softsign's moments in closed form (moments.laurent, engine.reciprocal: integer powers of 1 + x
over a half-line by a recurrence and one Goodwin–Staton-type series): the balls hold mpmath
quadrature's values (the independent route), also where the series alternates (mean < −1)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.engine.reciprocal import half_line_moments
from momentcalc.moments.expectations import expectations_by_quadrature
from momentcalc.moments.laurent import laurent_ball

CASES = [
    (Fraction(0), Fraction(1)),
    (Fraction(-7, 10), Fraction(1, 3)),
    (Fraction(2), Fraction(4)),
    (Fraction(-10), Fraction(1)),
    (Fraction(5, 2), Fraction(1, 50)),
]
# The default run checks the centred case, the alternating series (mean < −1) and, for the half
# line's powers, the narrow Gaussian the series is forced onto; the others (the same recurrence and
# series at other inputs, 1.9 s of CPU) are marked ``reference`` (``python -m pytest -n 2 -m reference``).
_DEFAULT = {
    "powers": {(Fraction(0), Fraction(1)), (Fraction(-10), Fraction(1)), (Fraction(5, 2), Fraction(1, 50))},
    "softsign": {(Fraction(0), Fraction(1)), (Fraction(-10), Fraction(1))},
}


def _cases(which):
    return [
        case if case in _DEFAULT[which] else pytest.param(*case, marks=pytest.mark.reference)
        for case in CASES
    ]


def _quadrature(n, mean, std):
    m, s = mpmath.mpf(mean.numerator) / mean.denominator, mpmath.mpf(std.numerator) / std.denominator
    norm, two_var = 1 / (s * mpmath.sqrt(2 * mpmath.pi)), 2 * s * s  # once, not at every node
    density = lambda x: norm * mpmath.exp(-((x - m) ** 2) / two_var)
    points = sorted({mpmath.mpf(0), *(p for p in (m - 8 * s, m, m + 8 * s) if p > 0)})
    return mpmath.quad(lambda x: (1 + x) ** (-n) * density(x), [*points, mpmath.inf])


def _arb(value, digits):
    return arb(mpmath.nstr(value, digits + 5))


@pytest.fixture
def every_series(monkeypatch):
    """The series summed wherever MAX_WORK allows, also where a narrow Gaussian far from the
    pole is left to the integrator (reciprocal.SMOOTH_TERMS): the series is still checked there."""
    from momentcalc.engine import reciprocal

    monkeypatch.setattr(reciprocal, "SMOOTH_TERMS", reciprocal.MAX_WORK)


@pytest.mark.parametrize(("mean", "std"), _cases("powers"))
def test_half_line_powers_hold_the_quadrature_values(mean, std, every_series):
    with ctx.workprec(300):  # the upward recurrence loses log2(1/std²) bits a step
        k = half_line_moments(
            arb(mean.numerator) / mean.denominator, arb(std.numerator) / std.denominator, -3, 5
        )
    with mp.workdps(55):
        for n, ball in k.items():
            expected = _quadrature(n, mean, std)
            assert (ball - _arb(expected, 55)).abs_lower() <= abs(expected) * mpmath.mpf(10) ** -50, (
                n,
                ball,
                expected,
            )
            assert ball.rad() <= abs(ball.mid()) * arb(10) ** -50, (n, ball)


@pytest.mark.parametrize(("mean", "std"), _cases("softsign"))
def test_softsign_moments_hold_the_mpmath_values_at_50_digits(mean, std, every_series):
    act = resolve("softsign")
    shapes = [(0, 1, 0), (0, 2, 0), (0, 0, 2), (1, 1, 0), (0, 0, 1), (2, 1, 1)]
    reference = expectations_by_quadrature(act, shapes, mean=mean, std=std, digits=50)
    with mp.workdps(60):
        for shape, expected in zip(shapes, reference):
            if mean == 0 and shape in ((0, 1, 0), (2, 1, 1)):
                continue  # exactly 0 by parity, which the caller proves (a ball cannot)
            ball = laurent_ball(act, shape, mean, std, 50)
            assert (ball - _arb(expected, 60)).abs_lower() <= abs(expected) * mpmath.mpf(10) ** -50, (
                shape,
                ball,
            )
            assert ball.rad() <= abs(ball.mid()) * arb(10) ** -53


def test_the_centred_second_moment():
    """E[(φ − c)²] = E[φ²] − 2c·E[φ] + c², c = 1/3, at mean 1/2."""
    act = resolve("softsign")
    mean, std = Fraction(1, 2), Fraction(1)
    with ctx.workprec(300):
        centre = arb(1) / 3
        central = laurent_ball(act, (0, 1, 0), mean, std, 50, centre)
        first = laurent_ball(act, (0, 1, 0), mean, std, 50)
        second = laurent_ball(act, (0, 2, 0), mean, std, 50)
        assert central.overlaps(second - 2 * centre * first + centre * centre)
        assert central.rad() < arb(10) ** -52


def test_other_activations_and_far_means_are_left_to_the_integrator():
    assert laurent_ball(resolve("tanh"), (0, 2, 0), Fraction(0), Fraction(1), 30) is None
    assert laurent_ball(resolve("softsign"), (0, 2, 0), Fraction(10**6), Fraction(1), 30) is None


def test_narrow_gaussian_far_from_the_pole_is_left_to_the_integrator():
    """std 1/300 at mean 0 (4z² = 180000 terms): the series is not summed (None), and the
    integrator's moments hold mpmath quadrature's values to 25 digits (a deep network's layer)."""
    from momentcalc.moments.activation_balls import expectation_balls

    act, mean, std = resolve("softsign"), Fraction(0), Fraction(1, 300)
    assert laurent_ball(act, (0, 2, 0), mean, std, 25) is None
    shapes = [(0, 2, 0), (0, 0, 2), (2, 2, 0)]
    reference = expectations_by_quadrature(act, shapes, mean=mean, std=std, digits=30)
    with mp.workdps(40):
        for ball, expected in zip(expectation_balls(act, shapes, mean, std, 25), reference):
            assert (ball - _arb(expected, 40)).abs_lower() <= abs(expected) * mpmath.mpf(10) ** -25, ball
