"""``moments.dks_smooth``: the regions shown so far of the proof that DKS cannot give swish a
per-layer C'(1) of 3 (κ = −Cov(φ(X), φ''(X))/E[φ'(X)²] < 2/3 for every input scale and shift).
The region b ≤ −6a, a ≥ 1/4 is ``dks_smooth_left``'s (tests/test_dks_smooth_left.py); these
tests check this module's pieces: each part holds at B = 3 and fails at a B too small.

Independent route: κ by mpmath quadrature of the four Gaussian expectations in z, φ and its
derivatives written out here (not the catalog's, not the proof's relu-split form)."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from momentcalc.moments import dks_smooth

REFERENCE = pytest.mark.reference


def _swish(x):
    s = 1 / (1 + mpmath.exp(-x))
    ds = s * (1 - s)
    return x * s, s + x * ds, ds * (2 + x * (1 - 2 * s))


def _mish(x):
    s = 1 / (1 + mpmath.exp(-x))
    th = mpmath.tanh(mpmath.log1p(mpmath.exp(x)))
    u = (1 - th * th) * s  # (tanh(softplus))' = sech²(softplus)·σ
    return x * th, th + x * u, 2 * u + x * u * ((1 - s) - 2 * th * s)


def _gelu(x):
    big, small = mpmath.ncdf(x), mpmath.npdf(x)
    return x * big, big + x * small, small * (2 - x * x)


PHI = {"swish": _swish, "mish": _mish, "gelu": _gelu}


@functools.cache
def _moments(name, a, b, digits=20, pieces=48):
    """(Cov(φ(X), φ''(X)), E[φ'(X)²]) by quadrature over z in [−12, 12 + min(2a, max(−b/a, 0))] (the weight e^{2X}
    of the second moments moves the mass up to z = 2a, or to the kink −b/a if that comes
    first), split in ``pieces`` per 24 and at the kink −b/a ± k/a (a single tanh-sinh interval
    misses the tilted peak: κ(1, −30) came out +0.13)."""
    phi = PHI[name]
    with mpmath.workdps(digits):
        a, b = mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(b.numerator) / b.denominator
        top = 12 + min(2 * a, max(-b / a, 0))
        count = int(pieces * (top + 12) / 24)
        kink = [-b / a + mpmath.mpf(k) / a for k in (-8, -4, -2, -1, 0, 1, 2, 4, 8)]
        points = sorted(set(list(mpmath.linspace(-12, top, count + 1)) + [p for p in kink if -12 < p < top]))

        def mean(i, j=None):
            return mpmath.quad(
                lambda z: (lambda v: v[i] * (1 if j is None else v[j]))(phi(a * z + b)) * mpmath.npdf(z),
                points,
            )

        return mean(0, 2) - mean(0) * mean(2), mean(1, 1)


def _kappa(name, a, b, digits=20, pieces=48):
    """κ = −Cov(φ, φ'')/E[φ'²] by quadrature (``_moments``)."""
    cov, square = _moments(name, a, b, digits, pieces)
    return -cov / square


@pytest.mark.parametrize(
    "name, a, b, low, high",
    [
        # the largest κ of a double-precision scan (log10 a in [−3, 4], b in [−50, 20]), each
        ("swish", "1", "-3", 0.4797, 0.4798),
        pytest.param("mish", "0.8", "-2.5", 0.4588, 0.4589, marks=REFERENCE),
        pytest.param("gelu", "0.6", "-1.7", 0.5688, 0.5689, marks=REFERENCE),
        # input_scale → ∞ with the kink at y = −0.481: relu's largest ϕ·m/Q = 0.35542
        pytest.param("swish", "1000", "481", 0.3554, 0.3555, marks=REFERENCE),
        pytest.param("gelu", "100", "50", 0.3557, 0.3558, marks=REFERENCE),
        # far left: κ → −(1 − e^{−a²}) + O(1/b) (here −0.6040, from E[X^k e^{nX}] in closed form)
        pytest.param("swish", "1", "-30", -0.6041, -0.6040, marks=REFERENCE),
    ],
)
def test_kappa_by_quadrature_stays_below_two_thirds(name, a, b, low, high):
    cheap = (name, a, b) == ("swish", "1", "-3")
    kappa = _kappa(name, Fraction(a), Fraction(b), digits=15 if cheap else 20, pieces=8 if cheap else 48)
    assert low < kappa < high < Fraction(2, 3) - Fraction(9, 100)


@pytest.mark.reference
@pytest.mark.parametrize(
    "a, b, high",
    [
        (10, -60, 0.002),  # λ = −b/a² = 0.6: the tilted kink
        (10, -100, -0.12),  # λ = 1
        (10, -150, -0.75),  # λ = 1.5
        (10, -200, -0.98),  # λ = 2: the exponential tail takes over
        (3, -20, -0.89),
        (1, -6, -0.30),
    ],
)
def test_kappa_left_of_the_kink_by_quadrature(a, b, high):
    """The region a ≥ 1/4, b ≤ −6a (``dks_smooth_left``'s): κ by quadrature, far below 2/3
    (values to two digits, 20-digit quadrature)."""
    assert float(_kappa("swish", Fraction(a), Fraction(b))) < high


def _proof_kappa(a, b):
    """κ from the proof's relu-split form at one point: G_B/a² at B = 1 is Cov(F, F''), and at
    B = 2 it is E[F'²] + 2·Cov(F, F'')."""
    with ctx.workprec(dks_smooth.PRECISION):
        t, y = dks_smooth._a(1 / Fraction(a)), dks_smooth._a(-Fraction(b) / Fraction(a))
        integrals = dks_smooth._integrals(dks_smooth.SWISH, t, y, 0)
        q, _, m = dks_smooth._gauss(y)
        cov = dks_smooth._form(arb(1), t, q, m, integrals)
        square = dks_smooth._form(arb(2), t, q, m, integrals) - 2 * cov
        return -cov / square


@pytest.mark.parametrize(
    "a, b",
    [
        (1, -3),
        pytest.param(3, -5, marks=REFERENCE),
        pytest.param(Fraction(1, 2), Fraction(3, 10), marks=REFERENCE),
    ],
)
def test_the_proofs_form_is_kappa_by_quadrature(a, b):
    proof = _proof_kappa(a, b)
    assert proof.rad() < 1e-6  # the tails beyond |x| = U, bounded by the envelopes
    assert (
        abs(float(proof.mid()) - float(_kappa("swish", Fraction(a), Fraction(b), digits=15, pieces=8))) < 1e-6
    )


@pytest.mark.reference
@pytest.mark.parametrize(
    "cell",
    [
        (Fraction(1), Fraction(17, 16), Fraction(3), Fraction(49, 16)),
        (Fraction(1, 16), Fraction(1, 8), Fraction(-1, 2), Fraction(-3, 8)),
        (Fraction(3), Fraction(13, 4), Fraction(-3), Fraction(-11, 4)),
    ],
)
def test_cell_enclosures_contain_quadrature_values(cell):
    """G_B/a² = (B − 1)·E[φ'(X)²] + B·Cov(φ(X), φ''(X)) by quadrature at the centre and two
    corners of a cell lies in ``cell_value``'s enclosure of the cell (B = 3)."""
    t0, t1, y0, y1 = cell
    with ctx.workprec(dks_smooth.PRECISION):
        enclosure = dks_smooth.cell_value(dks_smooth.SWISH, Fraction(3), *cell)
    for t, y in [((t0 + t1) / 2, (y0 + y1) / 2), (t0, y0), (t1, y1)]:
        cov, square = _moments("swish", 1 / t, -y / t, digits=15, pieces=8)
        value = 2 * square + 3 * cov
        assert float(enclosure.lower()) <= float(value) <= float(enclosure.upper())


def test_the_relu_limit_of_the_form():
    """At t = 0 the form is relu's (B − 1)·Q(y) − B·m(y)·ϕ(y) (the corrections vanish)."""
    with ctx.workprec(dks_smooth.PRECISION):
        y = arb("-0.5")
        q, d, m = dks_smooth._gauss(y)
        integrals = dks_smooth._integrals(dks_smooth.SWISH, arb(0), y, 0)
        assert abs(integrals[3] + d) < 1e-9  # I[g''] = −ϕ(y)·∫φ'' = −ϕ(y)
        form = dks_smooth._form(arb(3), arb(0), q, m, integrals)
        assert abs(form - (2 * q - 3 * m * d)) < 1e-9


def test_core_cells_hold_near_the_peak_and_can_fail():
    """Cells at the scan's largest κ (t = 1, y = 3) hold at B = 3; next to relu's limit
    (t → 0, y = −0.5, where C'(1) on the curve nears 1/(1 − 0.3554) = 1.5514) they cannot
    show B = 3/2."""
    peak = [(Fraction(1), Fraction(17, 16), Fraction(3), Fraction(49, 16))]
    relu = [(Fraction(0), dks_smooth.MIN_CELL, Fraction(-61, 128), Fraction(-15, 32))]
    assert dks_smooth.core_cells(dks_smooth.SWISH, Fraction(3), peak)
    with ctx.workprec(dks_smooth.PRECISION):
        assert bool(dks_smooth.cell_value(dks_smooth.SWISH, Fraction(3, 2), *relu[0]) < 0)
    assert not dks_smooth.core_cells(dks_smooth.SWISH, Fraction(3, 2), relu)


def test_the_linear_sides_closing_inequalities_hold_and_can_fail():
    assert dks_smooth.linear_side(dks_smooth.SWISH, dks_smooth.CEILING)
    # B = 1 + 1/100: relu's own (B − 1)Q − B·mϕ is negative near y = 0, but here the bound's
    # corrections are what fail
    assert not dks_smooth.linear_side(dks_smooth.SWISH, Fraction(101, 100))


@pytest.mark.reference
def test_linear_side_bound_is_above_kappa_by_quadrature():
    """A point of each of the linear side's analytic parts (y ≤ −8; |y|·t ≤ 1/2, and b ≥ 20):
    κ is small there, as the bounds say."""
    for a, b in [(Fraction(100), Fraction(800)), (Fraction(1, 4), Fraction(24))]:
        assert abs(float(_kappa("swish", a, b, digits=15, pieces=8))) < 0.01


def test_small_scales_hold_and_can_fail():
    """a ≤ 1/4, every b: shown at B = 3; at B = 11/10 (κ < 1/11) the bound is too weak."""
    assert dks_smooth.small_scale(dks_smooth.CEILING)
    assert not dks_smooth.small_scale(Fraction(11, 10))


@pytest.mark.reference
def test_the_sups_are_above_sampled_values():
    """sup|φ'''| and sup|φ''''| of swish by mpmath on a grid, just below the proof's bounds."""
    with ctx.workprec(dks_smooth.PRECISION):
        m3, m4 = dks_smooth.swish_sups()
    f = lambda x: x / (1 + mpmath.exp(-x))
    with mpmath.workdps(15):
        grid = [mpmath.mpf(k) / 8 for k in range(-48, 49)]
        top3 = max(abs(mpmath.diff(f, x, 3)) for x in grid)
        top4 = max(abs(mpmath.diff(f, x, 4)) for x in grid)
    assert top3 < float(m3.upper()) < top3 * 1.02 and top4 < float(m4.upper()) < top4 * 1.02


@pytest.mark.parametrize(
    "b", ["-1.2785", pytest.param("-4", marks=REFERENCE), pytest.param("-12", marks=REFERENCE)]
)
def test_kappa_at_small_scale_by_quadrature(b):
    """At a = 1/4 (the small scales' edge) κ stays far below 2/3: near b* (φ' = 0), at b_L, far left."""
    assert abs(float(_kappa("swish", Fraction(1, 4), Fraction(b), digits=15, pieces=8))) < 0.2


# The core's and the linear side's cells run in the whole proof (``dks_swish.proof``:
# tests/test_dks_ceilings.py, -m reference), a slice of them by default.
