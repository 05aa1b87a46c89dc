"""``moments.dks_gelu``: the closed forms of E[φ'(X)²] and Cov(φ(X), φ''(X)) for gelu (φ = x·Φ(x))
against mpmath quadrature in z, Sheppard's integral and its slopes against quadrature and
numerical differentiation, and the proof's regions (a slice in the default run, every cell
under the reference marker). The inequalities must be able to fail: at a ceiling below the
largest 1/(1 − κ) over the plane (about 2.349, at a ≈ 0.588, b ≈ −1.730, off the curve
Q'(1) = 1, on which C'(1) appears to reach only about 1.979) the cell around κ's maximizer has
G_B < 0."""

from __future__ import annotations

import random
from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from momentcalc.moments import dks_gelu

F = Fraction
REFERENCE = pytest.mark.reference


def _gelu(x):
    big, small = mpmath.ncdf(x), mpmath.npdf(x)
    return x * big, big + x * small, small * (2 - x * x)


def _mean(g, a, b):
    """E[g(a·Z + b)] by Gauss–Legendre quadrature in z over [−15, 15] in six pieces (ϕ(15) <
    10^-49; the integrands are entire and of polynomial growth)."""
    return mpmath.quad(
        lambda z: g(a * z + b) * mpmath.npdf(z), mpmath.linspace(-15, 15, 7), method="gauss-legendre"
    )


def _reference(a, b):
    """(E[φ'²], Cov(φ, φ'')) at 40 digits."""
    with mpmath.workdps(40):
        a, b = mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(b.numerator) / b.denominator
        slope = _mean(lambda x: _gelu(x)[1] ** 2, a, b)
        cross = _mean(lambda x: _gelu(x)[0] * _gelu(x)[2], a, b)
        cov = cross - _mean(lambda x: _gelu(x)[0], a, b) * _mean(lambda x: _gelu(x)[2], a, b)
        return slope, cov


def _close(ball: arb, value, digits: int = 30) -> bool:
    scale = max(abs(value), mpmath.mpf(10) ** -300)
    centre = mpmath.mpf(ball.mid().str(60, radius=False))
    radius = mpmath.mpf(ball.rad().str(10, radius=False))
    return (
        radius < scale * mpmath.mpf(10) ** -digits and abs(centre - value) < scale * mpmath.mpf(10) ** -digits
    )


@pytest.mark.parametrize(
    "a, b",
    [
        (F(1), F(-3, 2)),
        pytest.param(F(1, 10), F(-7, 10), marks=REFERENCE),
        pytest.param(F(3), F(2), marks=REFERENCE),
        pytest.param(F(2), F(-5), marks=REFERENCE),
        pytest.param(F(10), F(-30), marks=REFERENCE),
    ],
)
def test_closed_forms_match_quadrature(a, b):
    with ctx.workprec(160):
        slope, cov = dks_gelu.point_moments(a, b)
    with mpmath.workdps(40):
        ref_slope, ref_cov = _reference(a, b)
        assert _close(slope, ref_slope) and _close(cov, ref_cov)


def _sheppard_reference(h, s):
    """E[Φ(X)²] − Φ(h)² by quadrature, X ~ N(h/s, (1 − s²)/s²)."""
    a, b = mpmath.sqrt(1 - s * s) / s, h / s
    return _mean(lambda x: mpmath.ncdf(x) ** 2, a, b) - mpmath.ncdf(h) ** 2


def test_sheppard_slopes_match_differences():
    """∂_h J and ∂_s J against central differences of the certified integral (step 2^-40 at
    200 bits: the error is O(step²))."""
    with ctx.workprec(200):
        h, s, step = arb(-3) / 2, arb(3) / 5, arb(2) ** -40
        d_h, d_s = dks_gelu.sheppard_slopes(h, s)
        by_h = (dks_gelu.sheppard(h + step, 1 - s * s) - dks_gelu.sheppard(h - step, 1 - s * s)) / (2 * step)
        ds = (s + step, s - step)
        by_s = (dks_gelu.sheppard(h, 1 - ds[0] ** 2) - dks_gelu.sheppard(h, 1 - ds[1] ** 2)) / (2 * step)
        assert abs(d_h - by_h) < arb(10) ** -20 and abs(d_s - by_s) < arb(10) ** -20


@REFERENCE
def test_sheppard_and_its_slopes_by_quadrature():
    h, s = F(-3, 2), F(3, 5)
    with ctx.workprec(128):
        hb, sb = arb(h.numerator) / h.denominator, arb(s.numerator) / s.denominator
        value = dks_gelu.sheppard(hb, 1 - sb * sb)
        d_h, d_s = dks_gelu.sheppard_slopes(hb, sb)
    with mpmath.workdps(30):
        hm, sm = mpmath.mpf(-3) / 2, mpmath.mpf(3) / 5
        assert _close(value, _sheppard_reference(hm, sm), 25)
        assert _close(d_h, mpmath.diff(lambda x: _sheppard_reference(x, sm), hm), 12)
        assert _close(d_s, mpmath.diff(lambda x: _sheppard_reference(hm, x), sm), 12)


def test_cell_ball_contains_the_closed_form_at_points_of_the_cell():
    """The mean-value enclosure over a cell holds G at its corners and at random points (the
    point values are the closed forms tested above)."""
    cell = (F(-3, 2), F(-11, 8), F(13, 16), F(7, 8))
    with ctx.workprec(dks_gelu.PRECISION):
        ball = dks_gelu.cell_g(*cell)
    rng = random.Random(35)
    points = [(cell[i], cell[j]) for i in (0, 1) for j in (2, 3)]
    points += [
        (F(rng.uniform(*map(float, cell[:2]))), F(rng.uniform(*map(float, cell[2:])))) for _ in range(4)
    ]
    with ctx.workprec(dks_gelu.PRECISION):
        for h, s in points:
            hb, sb = arb(h.numerator) / h.denominator, arb(s.numerator) / s.denominator
            slope, cov = dks_gelu.expectations(hb, sb, dks_gelu.sheppard(hb, 1 - sb * sb))
            assert ball.contains(2 * slope + 3 * cov)


# gelu's largest κ over the plane: 1/(1 − κ) ≈ 2.349 at h ≈ −1.4916, s ≈ 0.8620 (off the curve)
PEAK = (F(-1493, 1000), F(-1490, 1000), F(861, 1000), F(863, 1000))


def test_the_cell_test_fails_below_the_largest_kappa():
    with ctx.workprec(dks_gelu.PRECISION):
        assert dks_gelu.cell_g(*PEAK, ceiling=F(7, 3)) < 0  # 2.333 < 2.349: G_B < 0 there
        assert dks_gelu.cell_g(*PEAK, ceiling=F(12, 5)) > 0
    assert dks_gelu.shown(PEAK)


def test_the_zero_at_b_star_needs_the_small_scale_bound():
    """G = 0 at s = 1, h = b* ≈ −0.7518: no cell there has G > 0, the small-scale bound holds on
    the thin ones and fails on a thick one."""
    with ctx.workprec(dks_gelu.PRECISION):
        assert not dks_gelu.cell_g(*dks_gelu.SLICE_CORE[2]) > 0
    assert dks_gelu.small_scale(F(-25, 32), F(-3, 4), F(63, 64), F(1))
    assert not dks_gelu.small_scale(F(-25, 32), F(-3, 4), F(1, 2), F(1))


def test_right_side_can_fail():
    assert not dks_gelu.right_side(F(2))  # 2Φ(2)² ≈ 1.91 < ϕ(2)·P(2) ≈ 9.07


def test_far_left_closing_inequalities_can_fail():
    assert not dks_gelu.near_zero_scale(F(1, 2))  # ρ_ε = 3/4 is too wide for the bound
    s0, s1 = dks_gelu.SLICE_FAR
    frontier = dks_gelu.far_frontier(s0, s1)
    assert frontier is not None and frontier < dks_gelu.LEFT
    with ctx.workprec(dks_gelu.PRECISION):
        cell = dks_gelu._ball(s0, s1)[1]
        assert dks_gelu.sign_bound(arb(frontier.numerator), cell)
        assert not dks_gelu.sign_bound(arb(frontier.numerator + 1), cell)  # one nearer the kink fails


@pytest.mark.parametrize("a, b", [(F(1), F(-12)), (F(2), F(-44))])
def test_the_far_left_bound_is_below_g(a, b):
    """(B − 1)(9/32)c₂m₂² − 2B·a²·M1·M3·Q(z) ≤ G_B at points where the sign argument applies."""
    with ctx.workprec(dks_gelu.PRECISION):
        slope, cov = dks_gelu.point_moments(a, b)
        s = 1 / (1 + arb(a.numerator) ** 2 / a.denominator**2).sqrt()
        h = arb(b.numerator) / b.denominator * s
        rho = 1 - s * s
        c2 = s * (-(h * h) / (1 + rho)).exp() / (2 * arb.pi() * (1 + rho).sqrt())
        m2 = h * s / (1 + rho)
        m1, m3 = dks_gelu._sups()
        tail = dks_gelu.ncdf(-(-h - 2 * s) / rho.sqrt())
        lower = 2 * arb(9) / 32 * c2 * m2 * m2 - 6 * rho / (s * s) * m1 * m3 * tail
        assert lower < 2 * slope + 3 * cov
        assert dks_gelu.sign_bound(h, s)


@REFERENCE
@pytest.mark.parametrize("region", sorted(dks_gelu.REGIONS))
def test_every_region(region):
    assert dks_gelu.REGIONS[region]()


def test_the_tilted_identity():
    """2π·e^{h²/(1+ρ)}·G = 2(R(|h|)²·E + Ĵ) + s·K(λ, ρ) − 3E·(ρ − |h|R(|h|))(2 − h²s² − ρ) at
    a = 4, b = −40 (h ≈ −9.70, s ≈ 0.243: the tilted corner)."""
    a, b = F(4), F(-40)
    with ctx.workprec(128):
        slope, cov = dks_gelu.point_moments(a, b)
        s = 1 / arb(17).sqrt()
        h = -40 * s
        rho = 1 - s * s
        scale = 2 * arb.pi() * (h * h / (1 + rho)).exp()
        mills = dks_gelu.mills(-h)
        tilt = (-h * h * rho / (1 + rho)).exp()
        j_hat = scale * dks_gelu.sheppard(h, rho)
        k = dks_gelu.tilted_k(-h * s, rho)
        right = (
            2 * (mills * mills * tilt + j_hat)
            + s * k
            - 3 * tilt * (rho + h * mills) * (2 - h * h * s * s - rho)
        )
        left = scale * (2 * slope + 3 * cov)
        assert abs(left - right) < arb(10) ** -15 * abs(left)
        assert j_hat > arb(-1).exp() / (h * h)  # the bound ``tilted_remainder`` rests on


@pytest.mark.parametrize("lam, rho", [(F(1, 2), F(55, 64)), (F(3), F(15, 16)), (F(20), F(1))])
def test_tilted_k_is_its_explicit_form(lam, rho):
    """K = A·R(x) + C (the form ``tilted_tail`` bounds), and K ≥ the Gordon bound N/((1 + ρ)²r(1 + ρ + λ²))."""
    with ctx.workprec(128):
        lb, rb = arb(lam.numerator) / lam.denominator, arb(rho.numerator) / rho.denominator
        r = (1 + rb).sqrt()
        x = lb / r
        big_a = lb * (3 * lb * lb + 9 * rb - 10)
        big_c = -(
            lb * lb * (3 * rb**3 + 9 * rb**2 + 9 * rb - 2) + 6 * rb**4 + 5 * rb**3 - 13 * rb**2 - 12 * rb
        )
        big_c = big_c / ((1 + rb) ** 2 * r)
        k = dks_gelu.tilted_k(lb, rb)
        assert abs(k - (big_a * dks_gelu.mills(x) + big_c)) < arb(10) ** -25
        square = lb * lb
        n = 5 * square**2 - 8 * (1 + rb) ** 2 * square - rb * (1 + rb) ** 2 * (2 * rb - 3) * (3 * rb + 4)
        if lam >= 1:
            assert k * (1 + rb) ** 2 * r * (1 + rb + square) > n


def test_tilted_tail_can_fail():
    assert not dks_gelu.tilted_tail(F(2))  # N(4, ρ) < 0: Gordon's bound is not enough at λ = 2
