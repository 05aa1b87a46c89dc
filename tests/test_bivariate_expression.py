"""Certified bivariate expectations of user expressions (moments.bivariate_expression: bounds
from the tree on real and complex boxes; engine.bivariate_balls' finite-rectangle error):
against closed forms evaluated 40 digits further, against the catalog's own route, and
against an independent Gauss–Hermite product rule in double precision; honest None for
expressions with kinks; meanfield's chaotic c* and depth_scale_c certified for expressions."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.moments.bivariate_certified import cross_balls

Q, C = Fraction(13, 10), Fraction(2, 5)


def _mpf(ball: arb) -> mpmath.mpf:
    mantissa, exponent = ball.mid().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(mantissa)), int(exponent))


def _holds(ball: arb, value: mpmath.mpf, digits: int) -> None:
    """``ball`` holds ``value`` and its radius proves ``digits`` + 3 digits."""
    with mp.workdps(digits + 40):
        mid, rad = _mpf(ball), _mpf(arb(ball.rad()))
        assert abs(mid - value) <= rad, (mid, value, rad)
        assert rad <= abs(value) * mpmath.mpf(10) ** -(digits + 3), (rad, value)


@pytest.mark.parametrize("digits", [15, 40])
def test_sine_against_its_closed_form(digits):
    """phi = sin(x) + 1/10: E[sin u1 sin u2] = (E cos(u1 - u2) - E cos(u1 + u2))/2 =
    e^-q sinh(qc) and E[sin u] = 0, so K = e^-q sinh(qc) + 1/100; K1 = E[cos u1 cos u2] =
    e^-q cosh(qc). Evaluated 40 digits further, both lie in the balls."""
    k, k1 = cross_balls(resolve("sin(x)+0.1", {}), Q, C, digits)
    with mp.workdps(digits + 40):
        q, c = mpmath.mpf(Q.numerator) / Q.denominator, mpmath.mpf(C.numerator) / C.denominator
        _holds(k, mpmath.exp(-q) * mpmath.sinh(q * c) + mpmath.mpf(1) / 100, digits)
        _holds(k1, mpmath.exp(-q) * mpmath.cosh(q * c), digits)


def test_expression_agrees_with_the_catalog_route():
    """tanh(x) as an expression (boxes, finite rectangle) and the catalog's tanh (its strip
    bounds, whole-line rule): two bound routes, overlapping balls each proving 40 digits."""
    expression = cross_balls(resolve("tanh(x)", {}), Q, C, 40)
    catalog = cross_balls(resolve("tanh", {}), Q, C, 40)
    with ctx.workprec(300):
        for mine, theirs in zip(expression, catalog):
            assert mine.overlaps(theirs)
            assert mine.rad() <= abs(mine.mid()) * arb(10) ** -43


def _gauss_hermite(f, q: float, c: float, n: int = 160) -> float:
    """E[f(u1)f(u2)] = E_W[psi(aW)^2], psi(m) = E_V[f(m + bV)], by an n-point Gauss–Hermite
    product rule in double precision (numpy; independent of Arb and of the trapezoidal rule)."""
    x, w = np.polynomial.hermite_e.hermegauss(n)
    w = w / np.sqrt(2 * np.pi)
    a, b = np.sqrt(q * c), np.sqrt(q * (1 - c))
    psi = f(a * x[:, None] + b * x[None, :]) @ w
    return float(w @ psi**2)


@pytest.mark.parametrize(
    "text, f, df",
    [
        (
            "tanh(x)+0.1*sin(x)",
            lambda u: np.tanh(u) + 0.1 * np.sin(u),
            lambda u: 1 / np.cosh(u) ** 2 + 0.1 * np.cos(u),
        ),
        ("1/(1+x**2)", lambda u: 1 / (1 + u * u), lambda u: -2 * u / (1 + u * u) ** 2),
        (
            "sin(x)*exp(-x**2/8)",
            lambda u: np.sin(u) * np.exp(-u * u / 8),
            lambda u: (np.cos(u) - u / 4 * np.sin(u)) * np.exp(-u * u / 8),
        ),
    ],
)
def test_against_gauss_hermite(text, f, df):
    """A pole pair at +-i (1/(1 + x^2): the strip narrows to avoid it), a sum of two functions
    and a Gaussian damping (bounded: the growth rules keep the sign of -x^2/8 through the
    division): the balls' midpoints against the Gauss–Hermite rule to 10 digits."""
    k, k1 = cross_balls(resolve(text, {}), Q, C, 20)
    q, c = float(Q), float(C)
    for ball, g in ((k, f), (k1, df)):
        reference = _gauss_hermite(g, q, c)
        assert abs(float(ball.mid()) - reference) <= 1e-10 * abs(reference), (text, ball, reference)
        assert ball.rad() <= abs(ball.mid()) * arb(10) ** -23


@pytest.mark.parametrize("text", ["exp(x)", "x*cosh(x)"])
def test_no_route_for_exponential_growth(text):
    """Exponential growth (no polynomial bound for the outer rule): None, so the value stays
    uncertified. (Kinks have a route: tests/test_kinked_routes.py.)"""
    assert cross_balls(resolve(text, {}), Q, C, 15) is None


def test_meanfield_certifies_expression_c_star():
    """meanfield with tanh written as an expression: c* and depth_scale_c now proven, with the
    catalog tanh's digits."""
    from momentcalc.computations.meanfield import meanfield

    from .certified_checks import assert_certified

    mine = meanfield("tanh(x)", sigma_w2="2.5", sigma_b2="0.05")
    theirs = meanfield("tanh", sigma_w2="2.5", sigma_b2="0.05")
    for name in ("q_star", "chi1", "c_star", "depth_scale_q", "depth_scale_c"):
        assert assert_certified(mine[name], 15) == assert_certified(theirs[name], 15), name


def test_meanfield_sine_against_its_closed_form():
    """phi = sin(x) + 1/10 at sigma_w2 = 2, sigma_b2 = 1/20, 20 digits: with E[sin^2 X] =
    (1 - e^-2q)/2 and the kernels above, q* solves q = 2((1 - e^-2q)/2 + 1/100) + 1/20, c*
    solves c = (2(e^-q sinh(qc) + 1/100) + 1/20)/q and depth_scale_c = -1/ln(2 e^-q cosh(qc*)):
    mpmath's roots at 60 digits, rounded to 20, are the printed digits, all certified."""
    from momentcalc.computations.meanfield import meanfield

    from .certified_checks import assert_certified

    r = meanfield("sin(x)+0.1", sigma_w2="2", sigma_b2="0.05", digits=20)
    with mp.workdps(60):
        w, b, s2 = mpmath.mpf(2), mpmath.mpf(1) / 20, mpmath.mpf(1) / 100
        q = mpmath.findroot(lambda q: w * ((1 - mpmath.exp(-2 * q)) / 2 + s2) + b - q, 0.9)
        c = mpmath.findroot(lambda c: (w * (mpmath.exp(-q) * mpmath.sinh(q * c) + s2) + b) / q - c, 0.45)
        xi = -1 / mpmath.log(w * mpmath.exp(-q) * mpmath.cosh(q * c))
        for name, want in (("q_star", q), ("c_star", c), ("depth_scale_c", xi)):
            assert assert_certified(r[name], 20) == mpmath.nstr(want, 20, strip_zeros=False), name


def test_largest_box_bound_is_the_largest_ball_not_the_largest_double(monkeypatch):
    """Two bounds equal as doubles: the rectangle's bound must be the larger ball's upper end,
    not whichever comes first (a float key would drop 2^-70 from a proof)."""
    from momentcalc.engine import bivariate_balls as bb

    with ctx.workprec(128):
        small, large = arb(1), arb(1) + arb(2) ** -70
    seen = []

    def record(largest, *args):
        seen.append(largest)
        raise StopIteration

    monkeypatch.setattr(bb, "_rectangle_error", record)
    strip = bb.Strip(arb(1), ((), ()), lambda x, ex: [x, x], box=lambda X: [small, large])
    with ctx.workprec(128), pytest.raises(StopIteration):
        bb._box_smoothing(
            strip, [[arb(1)], [arb(1)]], arb(1), arb(1), arb(1), arb(0.5), arb(0.5), 2, arb(2) ** -30
        )
    assert seen and seen[0] >= large


def test_box_cover_reaches_past_a_reach_just_above_a_tile_edge(monkeypatch):
    """box(X) for X a hair above 9/4 (a double rounds it to 9/4 exactly) must cover X: the
    boxes reach (2n + 1)/4 >= X, so n = 5, not 4."""
    from momentcalc.moments.bivariate_expression import ExpressionRoute

    route = ExpressionRoute(resolve("tanh(x)").tree)
    strip = route.strip(1.0)
    ks = []
    original = route._box
    monkeypatch.setattr(route, "_box", lambda width, k: ks.append(k) or original(width, k))
    with ctx.workprec(128):
        strip.box(arb(9) / 4 + arb(2) ** -60)
    assert max(ks) >= 5
