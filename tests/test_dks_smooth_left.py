"""``moments.dks_smooth_left``: swish's ceiling left of the kink (y = −b/a ≥ 6). Each part's
closing inequalities hold at B = 3 and fail when pushed (a wrong sign interval, a Λ0 too
large, a cell too wide); the tilted form against quadrature of E[p(X)]; the far-left constant
against mpmath.

Independent route: mpmath quadrature (``test_dks_smooth._moments``, and E[p(X)] here), with
φ and its derivatives written out in mpmath."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from momentcalc.moments import dks_smooth, dks_smooth_left
from tests.test_dks_smooth import _kappa

REFERENCE = pytest.mark.reference


def _swish(x):
    s = 1 / (1 + mpmath.exp(-x))
    ds = s * (1 - s)
    return x * s, s + x * ds, ds * (2 + x * (1 - 2 * s))


def test_the_signs_of_p_hold_and_can_fail():
    assert dks_smooth_left.p_signs()
    with ctx.workprec(dks_smooth.PRECISION):  # p's root near −2.1512 lies in [−2.152, −2.14]
        assert not dks_smooth_left._sign_holds(Fraction(-5, 2), Fraction(-214, 100), True)


def test_the_far_left_constant_by_mpmath():
    """K = 3·M₁·M₃·e^{2c}/(2d²·sqrt(2π)) with sup|φ'''| by mpmath on a grid (the proof's M₃ is
    at most 2% above it), and λ_far(1/20) = 2 + c/400 + sqrt(2·ln(40K))/20."""
    assert dks_smooth_left.far_left()
    with ctx.workprec(dks_smooth.PRECISION):
        k, _ = dks_smooth_left._far_constant()
        top = dks_smooth_left.lambda_far(dks_smooth_left.T_STRIP)
    with mpmath.workdps(15):
        f = lambda x: x / (1 + mpmath.exp(-x))
        m3 = max(abs(mpmath.diff(f, mpmath.mpf(j) / 16, 3)) for j in range(-64, 65))
        s = 1 / (1 + mpmath.e**4)
        d = (4 * (1 - s) - 1) / (1 + mpmath.e**-4)
        expected = 3 * (1 + 1 / mpmath.e) * m3 * mpmath.e**8 / (2 * d * d * mpmath.sqrt(2 * mpmath.pi))
        assert expected < float(k.mid()) < expected * 1.02
        lam = 2 + mpmath.mpf(4) / 400 + mpmath.sqrt(2 * mpmath.log(40 * expected)) / 20
        assert abs(float(top.mid()) - lam) < 1e-3


@pytest.mark.parametrize("a", [1, pytest.param(4, marks=REFERENCE)])
def test_kappa_past_the_far_left_edge_by_quadrature(a):
    """Just past b_far(a) (part 1) κ is negative by quadrature: far below 2/3."""
    with ctx.workprec(dks_smooth.PRECISION):
        k, _ = dks_smooth_left._far_constant()
        edge = -2 * a * a - 4 - a * (2 * (2 * k * a).log()).sqrt()
    b = Fraction(int(float(edge.mid())) - 1)
    assert float(_kappa("swish", Fraction(a), b, digits=15, pieces=8)) < 0


def test_small_tilts_hold_and_can_fail(monkeypatch):
    assert dks_smooth_left.small_tilt()
    monkeypatch.setattr(dks_smooth_left, "LAMBDA0", Fraction(1, 4))
    assert not dks_smooth_left.small_tilt()


def test_the_strip_holds_and_a_wide_cell_cannot_show_it():
    """Every λ-cell of the strip (t ≤ 1/20): a fraction of a second of CPU."""
    assert dks_smooth_left.strip_cells(dks_smooth_left.strip_grid())
    assert not dks_smooth_left.strip_cell(Fraction(1, 16), Fraction(2))


@pytest.mark.parametrize("a, b", [(2, -12), pytest.param(Fraction(1, 2), -4, marks=REFERENCE)])
def test_the_tilted_form_is_the_expectation(a, b):
    """E[p(X)] = t·ϕ(y)·J[p] (J from the proof's piece integrals over [−60, 200]) against
    mpmath quadrature of E[p(X)] in z."""
    a, b = Fraction(a), Fraction(b)
    t, lam = 1 / a, -b / a / a
    with ctx.workprec(dks_smooth.PRECISION):
        tt, ll = dks_smooth._a(t), dks_smooth._a(lam)
        edges = [-60, dks_smooth_left.R1, dks_smooth_left.N1, dks_smooth_left.N2, dks_smooth_left.R2, 0, 200]
        j = sum((dks_smooth_left._piece_integral(lo, hi, tt, ll) for lo, hi in zip(edges, edges[1:])), arb(0))
        value = tt * dks_smooth._density(-dks_smooth._a(b / a)) * j
    with mpmath.workdps(20):
        af, bf = mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(b.numerator) / b.denominator
        p = lambda x: (lambda v: 2 * v[1] ** 2 + 3 * v[0] * v[2])(_swish(x))
        expected = mpmath.quad(lambda z: p(af * z + bf) * mpmath.npdf(z), mpmath.linspace(-12, 12, 25))
    assert abs(float(value.mid()) / float(expected) - 1) < 1e-8


def _h_by_quadrature(t, lam):
    """H = G/(t·ϕ(y)) by quadrature (``test_dks_smooth._moments``), G = 2E[φ'²] + 3Cov(φ, φ'')."""
    from tests.test_dks_smooth import _moments

    a, b = 1 / t, -lam / t / t
    cov, square = _moments("swish", a, b, digits=15, pieces=8)
    with mpmath.workdps(15):
        y = mpmath.mpf(lam.numerator) / lam.denominator / (mpmath.mpf(t.numerator) / t.denominator)
        return (2 * square + 3 * cov) / (mpmath.mpf(t.numerator) / t.denominator * mpmath.npdf(y))


@pytest.mark.parametrize(
    "cell",
    [
        (Fraction(1), Fraction(201, 200), Fraction(6), Fraction(193, 32)),
        pytest.param((Fraction(1, 5), Fraction(21, 100), Fraction(1), Fraction(17, 16)), marks=REFERENCE),
    ],
)
def test_a_box_cells_bound_is_below_h_by_quadrature(cell):
    """The box cell's lower bound of H is positive and below H by quadrature at two corners."""
    t0, t1, la, lb = cell
    low = dks_smooth_left.box_cell(*cell)
    assert bool(low > 0)
    for t, lam in [(t0, la), (t1, lb)]:
        assert float(low.upper()) < float(_h_by_quadrature(t, lam))


def test_box_cells_cannot_show_small_scales_near_the_kink():
    """At a = 1/3, y = 6, J[p] < 0 (the product term carries G): the Cauchy–Schwarz cells' part."""
    assert not bool(
        dks_smooth_left.box_cell(
            Fraction(3), Fraction(3) + Fraction(1, 3200), Fraction(18), Fraction(18) + Fraction(1, 256)
        )
        > 0
    )


def test_cauchy_schwarz_cells_hold_and_fail_at_scale_one():
    """9a⁴E[φ'''²] < 4E[φ'²] on the cells at a = 1/4, y = 6 (ratio about 0.2; quartered),
    not at a = 1 next to b_far(1) = −9.23 (ratio about 1.05 by a double-precision scan)."""
    near_kink = (Fraction(1, 4), Fraction(17, 64), Fraction(-13, 8), Fraction(-3, 2))
    assert not dks_smooth_left.cs_cell(*near_kink)  # too wide for the ball integrals
    assert dks_smooth_left.cs_cells([near_kink])
    assert not dks_smooth_left.cs_cell(
        Fraction(1), Fraction(1025, 1024), Fraction(-37, 4), Fraction(-295, 32)
    )


def test_the_cauchy_schwarz_ratio_by_quadrature():
    """9a⁴E[φ'''²]/(4E[φ'²]) by mpmath at the scan's worst points of the Cauchy–Schwarz cells'
    region (a = 4/5 at b_far; a = 1/4 at y = 6): below 1 with room, as the cells show."""
    with mpmath.workdps(15):
        f = lambda x: x / (1 + mpmath.exp(-x))
        for a, b, high in [(0.8, -7.8, 0.4), (0.25, -1.5, 0.21)]:
            d1 = lambda x: mpmath.diff(f, x, 1)
            d3 = lambda x: mpmath.diff(f, x, 3)
            e = lambda g: mpmath.quad(lambda z: g(a * z + b) ** 2 * mpmath.npdf(z), [-10, -3, 0, 3, 10])
            ratio = 9 * a**4 * e(d3) / (4 * e(d1))
            assert high - 0.05 < ratio < high
