"""tanh's Gaussian expectations from sech² less its poles' principal parts (moments.tanh_poles):
the balls hold mpmath's quadrature of the integrands themselves (an independent route: no pole
subtraction, no integration by parts), agree with the plain strip's rule at a thousand-digit
precision, and are the ones ``expectation_balls`` returns from FROM_BITS on; and a lattice rule
over one integrand (``select_strip``) evaluates it alone, to the same ball."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from momentcalc.catalog import resolve
from momentcalc.engine.bivariate_balls import select_strip
from momentcalc.moments import activation_balls, tanh_poles
from momentcalc.moments.bivariate_certified import _strip, _tanh_subtracted

INTEGRANDS = {
    tanh_poles.TANH_SQUARED: lambda x: mpmath.tanh(x) ** 2,
    tanh_poles.STEIN: lambda x: x * mpmath.tanh(x) * mpmath.sech(x) ** 2,
    tanh_poles.SECH4: lambda x: mpmath.sech(x) ** 4,
    tanh_poles.SECH2: lambda x: mpmath.sech(x) ** 2,
    tanh_poles.STEIN_X2: lambda x: x**3 * mpmath.tanh(x) * mpmath.sech(x) ** 2,
    tanh_poles.SECH4_X2: lambda x: x**2 * mpmath.sech(x) ** 4,
}


def _quadrature(g, std: Fraction, dps: int) -> mpmath.mpf:
    """E[g(X)], X ~ N(0, std²), by mpmath's tanh-sinh quadrature (every integrand is even: twice
    the right half), split where tanh turns."""
    with mpmath.workdps(dps):
        s = mpmath.mpf(std.numerator) / std.denominator
        turns = [0, 2 * mpmath.pi / s] if s < 10 else [0, mpmath.mpf(1) / 10, 1]
        return 2 * mpmath.quad(lambda t: g(s * t) * mpmath.npdf(t), [*turns, mpmath.inf])


def _holds(ball: arb, value: mpmath.mpf, accuracy: int) -> bool:
    """|mid − value| ≤ rad + 10^−accuracy (the reference's own accuracy)."""
    with ctx.workprec(4 * accuracy + 64):
        reference = arb(mpmath.nstr(value, accuracy + 10, strip_zeros=False))
        return bool(abs(ball.mid() - reference) <= ball.rad() + arb(10) ** -accuracy)


@pytest.mark.parametrize(
    "std",
    [
        Fraction(103, 100),
        pytest.param(Fraction(4), marks=pytest.mark.reference),
        pytest.param(Fraction(1, 10), marks=pytest.mark.reference),
        pytest.param(Fraction(30), marks=pytest.mark.reference),
    ],
)
def test_balls_hold_the_quadrature(std: Fraction) -> None:
    digits = 20 if std == Fraction(103, 100) else 40  # (the default run's case: quadratures at 32 digits)
    found = tanh_poles.pole_balls(tanh_poles.COVERED, std, digits)
    assert set(found) == set(tanh_poles.COVERED)
    for monomial, ball in found.items():
        assert ball.rad() <= abs(ball.mid()) * arb(10) ** -(digits + 3)
        assert _holds(ball, _quadrature(INTEGRANDS[monomial], std, digits + 12), digits + 8), monomial


def test_only_what_it_proves() -> None:
    """Too small a std cancels the integration by parts: those are left to the caller's route;
    monomials it does not cover are not answered."""
    found = tanh_poles.pole_balls([(0, 2, 0), (1, 1, 1), (0, 1, 0), (0, 4, 0)], Fraction(1, 1000), 40)
    assert set(found) == {(0, 2, 0)}
    assert tanh_poles.pole_balls([(0, 4, 0)], Fraction(1), 40) == {}


def test_applies() -> None:
    assert tanh_poles.applies("tanh", (), Fraction(0), 1000)
    assert not tanh_poles.applies("tanh", (), Fraction(0), 15)
    assert not tanh_poles.applies("tanh", (), Fraction(1, 2), 1000)
    assert not tanh_poles.applies("sigmoid", (), Fraction(0), 1000)


def test_agrees_with_the_plain_strip_at_320_digits() -> None:
    """The route ``expectation_balls`` takes from FROM_BITS on, against the plain strip's rule
    (``trapezoid_balls``: tanh and sech² at every node, its own strip) at the same digits."""
    act, std, digits = resolve("tanh"), Fraction(103, 100), 320
    monomials = list(tanh_poles.COVERED)
    plain = activation_balls.trapezoid_balls(act, [(m, None) for m in monomials], Fraction(0), std, digits)
    poles = tanh_poles.pole_balls(monomials, std, digits)
    assert plain is not None and set(poles) == set(monomials)
    for monomial, ball in zip(monomials, plain):
        assert ball.overlaps(poles[monomial]), monomial


def test_expectation_balls_take_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """From FROM_BITS on tanh's covered monomials come from this route, the rest from the plain rule."""
    asked: list[list] = []
    original = tanh_poles.pole_balls

    def spy(monomials, std, digits):
        asked.append(list(monomials))
        return original(monomials, std, digits)

    monkeypatch.setattr(tanh_poles, "pole_balls", spy)
    act, std = resolve("tanh"), Fraction(5, 4)
    balls = activation_balls.expectation_balls(act, [(0, 2, 0), (0, 0, 2)], Fraction(0), std, 310)
    assert asked == [[(0, 2, 0), (0, 0, 2)]]
    plain = activation_balls.trapezoid_balls(
        act, [((0, 2, 0), None), ((0, 0, 2), None)], Fraction(0), std, 310
    )
    assert plain is not None
    for ball, other in zip(balls, plain):
        assert ball.overlaps(other) and ball.rad() <= abs(ball.mid()) * arb(10) ** -313
    activation_balls.expectation_balls(act, [(0, 2, 0)], Fraction(0), std, 30)
    assert len(asked) == 1  # not below FROM_BITS


def test_one_integrand_alone_is_the_same_ball() -> None:
    """``select_strip`` to one integrand evaluates ``Strip.alone`` (tanh without sech², sech²
    without tanh, tanh less its poles alone): the very balls ``at`` gives."""
    with ctx.workprec(3400):
        act = resolve("tanh")
        for strip in (_strip(act), _tanh_subtracted((-1, 1))):
            assert strip is not None
            for which in (0, 1):
                single = select_strip(strip, (which,))
                for x in (arb(0), arb(1) / 3, arb(-7) / 2, arb(41)):
                    both = strip.at(x, x.exp())[which]
                    (alone,) = single.at(x, x.exp())
                    assert alone.mid() == both.mid() and alone.rad() == both.rad()


@pytest.mark.parametrize("std", [Fraction(1, 10**400), Fraction(10**400)])
def test_extreme_std_left_to_the_caller(std: Fraction) -> None:
    """A std beyond a float's range (``activation-moment tanh --std 1e-400 --digits 1000`` ended
    in a ValueError traceback, ``--std 1e400`` in exit 3 "overflowed", where e84ca8b answers both):
    the route declines (the caller's route takes them) instead of raising."""
    found = tanh_poles.pole_balls([tanh_poles.TANH_SQUARED], std, 310)  # raised before
    assert set(found) <= {tanh_poles.TANH_SQUARED}


@pytest.mark.reference
@pytest.mark.parametrize("q", ["1e-400", "1e-310"])
def test_kernel_at_a_tiny_variance_from_1024_bits(q: str) -> None:
    """The banded lattice (``bivariate_balls._lattice_sums``) takes 1/(2q·ln 2) in floats: q
    below a float's range gave ZeroDivisionError (1e-400) or int(NaN) (1e-310), a traceback
    and exit 1, where e84ca8b prints nngp = 5.0000…e-401 (2 s)."""
    from tests.conftest import invoke

    run = invoke("kernel", "tanh", "--q", q, "--rho", "0.5", "--digits", "320", "--get", "nngp")
    assert run.code == 0, run.stderr[-300:]
