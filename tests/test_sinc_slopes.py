"""ψ' from ψ's values at the outer nodes (engine.sinc_slopes, the cardinal series' derivative): the
balls against erf's closed-form smoothing and arcsine kernel, and E[φ'(u₁)φ'(u₂)] by that route
against the route with an inner rule of its own for φ' (tanh, sigmoid)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.catalog.kernels import kernel
from momentcalc.engine import bivariate_balls, sinc_slopes
from momentcalc.engine.gaussian_balls import Term
from momentcalc.moments import bivariate_certified
from momentcalc.moments.bivariate_certified import cross_ball, cross_balls, cross_balls_with_second

Q, C = Fraction(13, 10), Fraction(3, 5)


def _erf_slopes(error_scale: int, step: str | None = None) -> tuple[list[arb], list[arb], arb]:
    """(ψ' at the nodes from ``slopes``, the exact ψ' there, the goal) for g = erf, q = 1.3,
    c = 0.6 at 400 bits: ψ(m) = erf(m/s), ψ'(m) = 2·e^{−m²/s²}/(s√π), s = sqrt(1 + 2b²); the
    cardinal series' error bound multiplied by ``error_scale`` (0: left out); the step
    ``cardinal_step``'s for the goal 2^−370, or ``step``."""
    with ctx.workprec(400):
        c = arb(C.numerator) / C.denominator
        q = arb(Q.numerator) / Q.denominator
        a, b = (q * c).sqrt(), (q * (1 - c)).sqrt()
        s = (1 + 2 * b * b).sqrt()
        goal = arb(2) ** -370
        h = sinc_slopes.cardinal_step(arb("0.3"), c, arb(1), goal)  # |erf| ≤ 1: M₀ ≤ 1
        assert h is not None and h < arb("0.3")
        if step is not None:
            h = arb(step)
        L = 30.0
        while not sinc_slopes.truncation_error([Term(arb(1), 0)], L, h) <= goal:
            L *= 1.05
        error = sinc_slopes.cardinal_error(h, c, arb(1)) + sinc_slopes.truncation_error(
            [Term(arb(1), 0)], L, h
        )
        n = math.ceil(L / float(h.lower()))
        psi = [(a * h * j / s).erf() for j in range(-n, n + 1)]
        size = 2 / (s * arb.pi().sqrt())
        got = sinc_slopes.slopes(psi, h, a, error * error_scale, size, parity=-1)
        exact = [2 * (-((a * h * j / s) ** 2)).exp() / (s * arb.pi().sqrt()) for j in range(-n, n + 1)]
        return got, exact, goal


def test_slopes_hold_erf_smoothing_derivative():
    """Every ball holds the exact ψ'(a·h·j), and near the middle it is as narrow as the goal
    allows (e^{w²/2} widens it further out, where the outer rule's weight makes up for it)."""
    got, exact, goal = _erf_slopes(1)
    n = (len(got) - 1) // 2
    with ctx.workprec(400):
        for value, truth in zip(got, exact):
            assert value.overlaps(truth), (value, truth)
        for j in range(-5, 6):
            assert got[n + j].rad() < goal * 2**20, got[n + j]


def test_slopes_at_a_coarse_step_hold_only_with_the_series_bound():
    """At a step far too long for the goal (0.3) the cardinal series errs by far more than the
    rounding: with its bound every ball still holds the exact ψ', without it some ball misses."""
    with ctx.workprec(400):
        got, exact, _ = _erf_slopes(1, "0.3")
        assert all(value.overlaps(truth) for value, truth in zip(got, exact))
        got, exact, _ = _erf_slopes(0, "0.3")
        assert not all(value.overlaps(truth) for value, truth in zip(got, exact))


def _forced(monkeypatch) -> list[int]:
    """The cardinal route at any precision and cost; the list counts its uses."""
    used: list[int] = []
    original = sinc_slopes.derivatives

    def counted(*args, **kwargs):
        used.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(bivariate_balls, "CARDINAL_FROM_BITS", 0)
    monkeypatch.setattr(bivariate_balls, "CARDINAL_NODE_COST", 0)
    monkeypatch.setattr(sinc_slopes, "derivatives", counted)
    return used


def test_cardinal_route_holds_erf_arcsine_kernel(monkeypatch):
    """E[erf'(u₁)·erf'(u₂)] by the cardinal route (forced at 50 digits) holds the arcsine kernel's
    derivative, 40 digits further, and proves 53 digits."""
    used = _forced(monkeypatch)
    k, k1 = cross_balls(resolve("erf", {}), Q, C, 50)
    assert used
    closed = kernel("erf")
    with mp.workdps(90):
        q, c = mpmath.mpf(Q.numerator) / Q.denominator, mpmath.mpf(C.numerator) / C.denominator
        for ball, value in ((k, closed.cross(q, c, {})), (k1, closed.derivative_cross(q, c, {}))):
            mantissa, exponent = ball.mid().man_exp()
            mid = mpmath.ldexp(mpmath.mpf(int(mantissa)), int(exponent))
            mantissa, exponent = arb(ball.rad()).mid().man_exp()
            rad = mpmath.ldexp(mpmath.mpf(int(mantissa)), int(exponent))
            assert abs(mid - value) <= rad
            assert rad <= abs(value) * mpmath.mpf(10) ** -53


def _against_own_rule(monkeypatch, name: str, q: Fraction, c: Fraction, digits: int) -> None:
    first = cross_balls(resolve(name, {}), q, c, digits)
    monkeypatch.setattr(bivariate_certified, "DERIVED_SLOPES", False)
    second = cross_balls(resolve(name, {}), q, c, digits)
    assert first is not None and second is not None
    for x, y in zip(first, second):
        assert x.overlaps(y)
        assert x.rad() <= abs(x.mid()) * arb(10) ** -(digits + 3)


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_cardinal_route_agrees_with_an_inner_rule_for_the_slope(monkeypatch, name):
    """Forced at 60 digits: the balls overlap those of φ' by its own inner rule, and prove the digits."""
    used = _forced(monkeypatch)
    _against_own_rule(monkeypatch, name, Q, C, 60)
    assert used


@pytest.mark.reference
def test_cardinal_route_at_a_thousand_digits(monkeypatch):
    """meanfield tanh --sigma-w2 2.5 --sigma-b2 0.05's correlation fixed point at 1030 digits: the
    route is taken unforced, and agrees with the inner rule for φ'."""
    used: list[int] = []
    original = sinc_slopes.derivatives
    monkeypatch.setattr(sinc_slopes, "derivatives", lambda *a, **k: used.append(1) or original(*a, **k))
    _against_own_rule(monkeypatch, "tanh", Fraction("1.0639583774168"), Fraction("0.4468042323442"), 1030)
    assert used


def test_second_derivative_holds_erf_smoothing():
    """ψ'' from the same values (``derivatives``, its sum at 200 bits) holds erf's exact
    ψ''(m) = −2m/s²·ψ'(m) at every node, and near the middle to about 2^−180."""
    with ctx.workprec(400):
        c = arb(C.numerator) / C.denominator
        q = arb(Q.numerator) / Q.denominator
        a, b = (q * c).sqrt(), (q * (1 - c)).sqrt()
        s = (1 + 2 * b * b).sqrt()
        h = sinc_slopes.cardinal_step(arb("0.3"), c, arb(1), arb(2) ** -370)
        L = 45.0
        tail = sinc_slopes.truncation_error([Term(arb(1), 0)], L, h)
        first = sinc_slopes.cardinal_error(h, c, arb(1)) + tail
        second = sinc_slopes.curvature_error(h, c, arb(1)) + tail * arb.pi() ** 2 / (3 * h)
        n = math.ceil(L / float(h.lower()))
        psi = [(a * h * j / s).erf() for j in range(-n, n + 1)]
        size = 2 / (s * arb.pi().sqrt())
        _, curved = sinc_slopes.derivatives(psi, h, a, -1, (first, size), (second, 4 * L * size, 200))
        assert curved is not None
        for j, value in zip(range(-n, n + 1), curved):
            m = a * h * j
            exact = -2 * m / s**2 * 2 * (-((m / s) ** 2)).exp() / (s * arb.pi().sqrt())
            assert value.overlaps(exact), (j, value, exact)
        assert curved[n].rad() < arb(2) ** -180 and curved[n + 3].rad() < arb(2) ** -180


def test_second_cross_ball_from_the_same_smoothing(monkeypatch):
    """E[tanh''(u₁)·tanh''(u₂)] beside the other two (forced at 60 digits, wanted to 33): it
    overlaps the ball of tanh'' by its own lattice rule, and proves its digits."""
    used = _forced(monkeypatch)
    act = resolve("tanh", {})
    _, _, k2 = cross_balls_with_second(act, Q, C, 60, 33)
    assert used and k2 is not None
    own = cross_ball(act, Q, C, 33, 2)
    assert own is not None and k2.overlaps(own)
    assert k2.rad() <= abs(k2.mid()) * arb(10) ** -36


def test_third_cross_ball_from_the_same_smoothing(monkeypatch):
    """E[tanh'''(u₁)·tanh'''(u₂)] beside the other three (forced at 60 digits, wanted to 20): it
    proves its digits and agrees, to 17 digits, with the independent second difference
    (K₁(c + ε) − 2K₁(c) + K₁(c − ε))/(ε²q²) of E[tanh'(u₁)·tanh'(u₂)] by its own lattice rule
    (dK₁/dc = q·K₂, dK₂/dc = q·K₃; ε = 10^−10, the difference's own error about 10^−20)."""
    used = _forced(monkeypatch)
    act = resolve("tanh", {})
    found = bivariate_certified.cross_balls_with_third(act, Q, C, 60, 40, 20)
    assert used and found is not None
    k3 = found[3]
    assert k3 is not None and k3.rad() <= abs(k3.mid()) * arb(10) ** -23
    eps = Fraction(1, 10**10)
    slopes = [cross_ball(act, Q, C + d, 50, 1) for d in (-eps, Fraction(0), eps)]
    assert all(s is not None for s in slopes)
    with ctx.workprec(400):
        q = arb(Q.numerator) / Q.denominator
        low, middle, high = slopes
        difference = (low - 2 * middle + high) * 10**20 / (q * q)
        assert abs(k3 - difference) <= abs(difference) * arb(10) ** -17


def _erf_third(step: arb | None, scale: int) -> tuple[list[arb], list[arb], int]:
    """(ψ''' at the nodes from ``derivatives``' third, erf's exact ψ''' = (4m²/s⁴ − 2/s²)·ψ' there,
    n) at q = 1.3, c = 0.6 and 400 bits (ψ' and ψ'' with their bounds, ψ'' summed at 250 bits,
    ψ''' at 150): the step ``cardinal_step``'s for 2^−370, or ``step``; the series' bound of
    ψ''' times ``scale``."""
    with ctx.workprec(400):
        c = arb(C.numerator) / C.denominator
        q = arb(Q.numerator) / Q.denominator
        a, b = (q * c).sqrt(), (q * (1 - c)).sqrt()
        s = (1 + 2 * b * b).sqrt()
        h = sinc_slopes.cardinal_step(arb("0.3"), c, arb(1), arb(2) ** -370) if step is None else step
        assert h is not None
        L = 45.0
        tail = sinc_slopes.truncation_error([Term(arb(1), 0)], L, h)
        assert tail is not None
        first = sinc_slopes.cardinal_error(h, c, arb(1)) + tail
        second = sinc_slopes.curvature_error(h, c, arb(1)) + tail * arb.pi() ** 2 / (3 * h)
        third = sinc_slopes.third_error(h, c, arb(1)) + tail * (6 + arb.pi() ** 2) / (h * h)
        n = math.ceil(L / float(h.lower()))
        psi = [(a * h * j / s).erf() for j in range(-n, n + 1)]
        size = 2 / (s * arb.pi().sqrt())
        found: list[list[arb]] = []
        sinc_slopes.derivatives(
            psi,
            h,
            a,
            -1,
            (first, size),
            (second, 4 * L * size, 250),
            None,
            (third * scale, 8 * L**2 * size, 150),
            found,
        )
        exact = []
        for j in range(-n, n + 1):
            m = a * h * j
            exact.append((4 * m * m / s**4 - 2 / s**2) * 2 * (-((m / s) ** 2)).exp() / (s * arb.pi().sqrt()))
        return found[0], exact, n


def test_third_derivative_holds_erf_smoothing():
    """ψ''' from the same values holds erf's exact ψ''' at every node, near the middle to about
    2^−130; at a coarse step (0.6) it holds with the series' bound and not without it."""
    got, exact, n = _erf_third(None, 1)
    assert all(value.overlaps(truth) for value, truth in zip(got, exact))
    assert got[n].rad() < arb(2) ** -130 and got[n + 3].rad() < arb(2) ** -130
    coarse = arb("0.6")
    got, exact, _ = _erf_third(coarse, 1)
    assert all(value.overlaps(truth) for value, truth in zip(got, exact))
    got, exact, _ = _erf_third(coarse, 0)
    assert not all(value.overlaps(truth) for value, truth in zip(got, exact))
