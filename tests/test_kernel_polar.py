"""``kernel`` near ρ = ±1 for activations with a kink at 0 whose conditional expectation has no
closed form (softsign = x/(1 + |x|), expressions such as x/(1+abs(x)) or x*tanh(abs(x))): the
polar route (``moments.bivariate_polar``, tensor Gauss–Legendre with proven ellipse bounds),
checked against independent routes —

* the shared-part route node by node (``engine.bivariate_balls`` with the kinked smoothing) at
  ρ = 1/2, both balls proving 20 digits: they must overlap;
* the expansion at ρ = 1 from univariate values (mpmath quadrature of E[φ²], E[φ'²], E[φ''²]):
  K(ρ) = K(1) − ε·E[φ'²] + ε²/2·E[φ''²] + O(ε^{5/2}) and K'(ρ) = E[φ'²] − ε·E[φ''²] + O(ε^{3/2})
  with ε = 1 − ρ (φ'' jumps at 0, so K''' grows like ε^{−1/2}): at ε = 10⁻¹² both remainders are
  below 10⁻¹⁷, far under the printed 15 digits;
* nested QUADPACK in doubles split at the kinks (about 1e-11) at ρ = ±0.999999 and unequal
  variances; and (``reference``) mpmath's nested tanh-sinh at 30 digits."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest
from flint import arb
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.moments.bivariate_certified import _polys, _size_log2, signed_cross_balls
from momentcalc.moments.bivariate_polar import polar_cross
from tests.conftest import invoke
from tests.test_kinked_routes import _nested_quad, _softsign, _softsign_slope


def _get(*args: str) -> list[str]:
    run = invoke("kernel", *args, "--get", "nngp", "--get", "ntk_derivative")
    assert run.code == 0, run.stderr
    return run.stdout.strip().split("\t")


def _rounds_to(printed: str, value: mpmath.mpf, slack: mpmath.mpf) -> None:
    """``printed`` is ``value`` rounded (within half a unit of its last digit, plus ``slack``)."""
    last = Decimal(printed).as_tuple().exponent
    with mp.workdps(50):
        assert abs(mp.mpf(printed) - value) <= mp.mpf(10) ** last / 2 + slack, (printed, value)


# the even expression at a negative ρ (1.4 s of CPU, the same two routes as softsign's): -m reference
@pytest.mark.parametrize(
    "activation, rho, digits",
    [
        ("softsign", Fraction(1, 2), 20),
        pytest.param("sqrt(1+abs(x))", Fraction(-1, 2), 15, marks=pytest.mark.reference),
    ],
)
def test_polar_and_shared_part_routes_overlap(activation, rho, digits):
    """Two certified routes below the polar route's start (the polar route called directly): the
    balls overlap and both prove the digits; an even expression at a negative ρ too (-m reference)."""
    act = resolve(activation, {})
    if act.expression:
        from momentcalc.moments.bivariate_expression import expression_route

        polys = expression_route(act.tree).polys
    else:
        polys = _polys(act)
    sizes = [_size_log2(polys[i], arb(1)) for i in (0, 1)]
    polar = polar_cross(act, polys, Fraction(1), Fraction(1), rho, digits, (0, 1), max(sizes), min(sizes))
    shared = signed_cross_balls(act, Fraction(1), Fraction(1), rho, digits)
    assert polar is not None and shared is not None
    for a, b in zip(polar, shared):
        assert a.overlaps(b), (a, b)
        for ball in (a, b):
            assert ball.rad() <= abs(ball.mid()) * arb(10) ** -(digits + 3)


@pytest.fixture(scope="module")
def at_one():
    """E[φ²], E[φ'²], E[φ''²] of softsign under N(0, 1) by mpmath at 40 digits (φ'' = −2·sign(x)/(1 + |x|)³)."""
    with mp.workdps(40):

        def second(g):  # even integrands: twice the half line
            return 2 * mp.quad(lambda x: g(x) ** 2 * mp.npdf(x), [0, mp.inf])

        return (
            second(lambda x: x / (1 + x)),
            second(lambda x: 1 / (1 + x) ** 2),
            second(lambda x: 2 / (1 + x) ** 3),
        )


@pytest.mark.parametrize(
    "activation", ["softsign", pytest.param("x/(1+abs(x))", marks=pytest.mark.reference)]
)
def test_softsign_just_below_one_against_the_expansion_at_one(at_one, activation):
    k, k1, k2 = at_one
    with mp.workdps(40):
        eps = mp.mpf(10) ** -12
        nngp = k - eps * k1 + eps**2 / 2 * k2
        ntk = k1 - eps * k2
        nngp_printed, ntk_printed = _get(activation, "--rho", "0.999999999999")
        _rounds_to(nngp_printed, nngp, mp.mpf(10) ** -25)
        _rounds_to(ntk_printed, ntk, mp.mpf(10) ** -17)


@pytest.mark.reference  # the mirror of the case above (0.3 s of CPU): -m reference
def test_softsign_just_above_minus_one_against_the_expansion_at_one(at_one):
    """softsign is odd: K(−ρ) = −K(ρ) and K'(−ρ) = K'(ρ)."""
    k, k1, k2 = at_one
    with mp.workdps(40):
        eps = mp.mpf(10) ** -12
        nngp_printed, ntk_printed = _get("softsign", "--rho", "-0.999999999999", "--digits", "12")
        _rounds_to(nngp_printed, -(k - eps * k1), mp.mpf(10) ** -20)
        _rounds_to(ntk_printed, k1 - eps * k2, mp.mpf(10) ** -17)


@pytest.mark.parametrize(
    "rho, q1, q2",
    [
        (Fraction(999999, 10**6), Fraction(2), Fraction(1, 2)),
        pytest.param(Fraction(-999999, 10**6), Fraction(1), Fraction(1), marks=pytest.mark.reference),
    ],
)
def test_softsign_near_one_against_nested_quadrature(rho, q1, q2):
    """The route's balls (15 digits) hold nested QUADPACK's values within its accuracy."""
    balls = signed_cross_balls(resolve("softsign", {}), q1, q2, rho, 15)
    assert balls is not None
    for ball, f in zip(balls, (_softsign, _softsign_slope)):
        reference = _nested_quad(f, float(rho), float(q1), float(q2))
        assert abs(float(ball.mid()) - reference) <= 1e-11 * abs(reference), (ball, reference)
        assert ball.rad() <= abs(ball.mid()) * arb(10) ** -18


def test_kinked_expression_near_one_against_nested_quadrature():
    """x*tanh(abs(x)) (odd, kink at 0, no closed form of its conditional expectation) at ρ = 0.9999."""
    import math

    nngp, _ = _get("x*tanh(abs(x))", "--rho", "0.9999")
    reference = _nested_quad(lambda x: x * math.tanh(abs(x)), 0.9999)
    assert abs(float(nngp) - reference) <= 1e-11 * abs(reference), (nngp, reference)


def _nested_mp(f, rho: str, dps: int = 36, n_inner: int = 100, n_outer: int = 80) -> mpmath.mpf:
    """E[f(u)f(v)], unit variances, as ∫ f(x)·E[f(ρx + s·Y)]·ϕ(x) dx (s = sqrt(1 − ρ²)) by
    Gauss–Legendre in mpmath on |x|, |y| ≤ 14 (the Gaussian tails beyond are below 10⁻⁴²): the
    inner integral split where ρx + s·y = 0 (f's kink), the outer at 0 and ±s·4^k (the inner
    expectation turns over a width s there). 80/60 nodes gave 24 digits at ρ = 0.999999,
    100/80 all 34 the certified route gives."""
    with mp.workdps(dps):
        r = mp.mpf(rho)
        s = mp.sqrt(1 - r * r)
        inner_rule = mp.gauss_quadrature(n_inner, "legendre")
        outer_rule = mp.gauss_quadrature(n_outer, "legendre")
        reach = 14

        def rule(g, a, b, nodes):
            c, h = (a + b) / 2, (b - a) / 2
            return h * mp.fsum(w * g(c + h * x) for x, w in zip(*nodes))

        def inner(x):
            edges = sorted(
                {mp.mpf(-reach), mp.mpf(reach)} | ({-r * x / s} if abs(r * x / s) < reach else set())
            )
            return mp.fsum(
                rule(lambda y: f(r * x + s * y) * mp.npdf(y), a, b, inner_rule)
                for a, b in zip(edges, edges[1:])
            )

        points = sorted(
            {mp.mpf(0), mp.mpf(-reach), mp.mpf(reach)}
            | {sign * s * 4**k for sign in (-1, 1) for k in range(12) if s * 4**k < reach}
        )
        return mp.fsum(
            rule(lambda x: f(x) * inner(x) * mp.npdf(x), a, b, outer_rule) for a, b in zip(points, points[1:])
        )


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("rho", ["0.999999"])
def test_softsign_near_one_at_30_digits_against_mpmath(rho):
    """About 20 s: two nested 100 × 80-node rules on 22 outer pieces at 36 digits."""
    nngp, ntk = _get("softsign", "--rho", rho, "--digits", "30")
    for printed, f in ((nngp, lambda x: x / (1 + abs(x))), (ntk, lambda x: 1 / (1 + abs(x)) ** 2)):
        reference = _nested_mp(f, rho)
        _rounds_to(printed, reference, abs(reference) * mp.mpf(10) ** -33)


def test_the_route_leaves_out_branch_points_at_the_kink_and_huge_variances():
    """abs(x)**2.5's branches have a branch point at the kink (the arcs' ends): not this route's
    (its α-panels would halve towards it for nothing); nor a standard deviation past MAX_STD."""
    from momentcalc.moments.bivariate_polar import MAX_STD, applies

    assert applies(resolve("softsign", {})) and applies(resolve("x*tanh(abs(x))", {}))
    assert not applies(resolve("abs(x)**2.5", {}))
    act = resolve("softsign", {})
    q = Fraction(MAX_STD**2 + 1)
    assert polar_cross(act, _polys(act), q, q, Fraction(9999, 10000), 15, (0, 1), 0.0, 0.0) is None
