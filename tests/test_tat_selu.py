"""``tat selu --target-slope``: C'(1) < 1.47 wherever Q'(1) = 1, proven (``moments.dks_selu``).

The proof's identity R = 1 + N/D is checked against the closed form of selu's Q'(1) and C'(1) in
tests/test_tat_reach.py (itself checked against mpmath quadrature there) and against quadrature
here. Its tail bounds are checked against R on grids; one batch of its cells runs in the default
run, and the whole proof behind the reference marker."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from momentcalc.catalog import CATALOG, resolve
from momentcalc.computations.tat import tat
from momentcalc.moments import dks_selu
from tests.conftest import invoke
from tests.test_tat_reach import _q_and_c, _selu_constants, _selu_q_and_c


def _ratio_by_the_proof(a: Fraction, y: Fraction) -> arb:
    """R = 1 + N/D from the proof's formulas (``dks_selu._form``) at one exact point: F at B = 1 is
    −N, and F at B = 2 minus F at B = 1 is D."""
    alpha = dks_selu.drop_alpha(resolve("selu", None))
    with ctx.workprec(200):
        t, yy = dks_selu._a(1 / a), dks_selu._a(y)
        parts = dks_selu._y_functions(yy)
        f1 = dks_selu._form(alpha, arb(0), yy, t, *parts, dks_selu._direct)
        f2 = dks_selu._form(alpha, arb(1), yy, t, *parts, dks_selu._direct)
        return 1 - f1 / (f2 - f1)


@pytest.mark.parametrize(
    "a, y",
    [
        (Fraction(3, 10), Fraction(1, 2)),
        pytest.param(Fraction(5), Fraction(-1, 10), marks=pytest.mark.reference),
        pytest.param(Fraction(1, 8), Fraction(3), marks=pytest.mark.reference),
    ],
)
def test_the_proofs_ratio_is_stein_s_by_quadrature(a, y):
    """The proof's R against C'(1) − Q'(1) + 1 by mpmath quadrature (20 digits) and by the closed
    form (30 digits). α is a ball of radius about 3e−15 in the proof (from the catalog's pieces),
    which bounds the agreement."""
    ratio = _ratio_by_the_proof(a, y)
    with mpmath.workdps(30):
        q, c = _selu_q_and_c(mpmath.mpf(a.numerator) / a.denominator, mpmath.mpf(y.numerator) / y.denominator)
        closed = 1 + c - q
    assert abs(float(ratio.mid()) - float(closed)) < 1e-12
    qq, cc = _q_and_c("selu", float(a), float(-a * y), digits=20)
    assert abs(float(1 + cc - qq) - float(closed)) < 1e-12
    assert float(closed) < 1.47


def _ratio(a, y):
    """R at 60 digits from the closed form (30 digits lose Var f to cancellation far out)."""
    with mpmath.workdps(60):
        q, c = _selu_q_and_c(mpmath.mpf(a), mpmath.mpf(y))
        return 1 + c - q


def test_tail_regions_stay_below_their_bounds():
    """The closed form's R on the regions the proof bounds by hand: y ≤ −2 (below 1.1826, the
    proven value of the bound there), a ≤ 1/8 (below 1.2758 on the grid of the bound), y ≥ 6
    (below 1 + 1e−5); and never above 1.47 on a grid of the cells' region."""
    with mpmath.workdps(60):
        assert max(_ratio(mpmath.mpf(10) ** k, y) for k in (-2, 0, 1, 3) for y in (-2, -3, -5)) < 1.1826
        assert (
            max(_ratio(mpmath.mpf(a), y) for a in ("0.01", "0.125") for y in (-2, -1, 0, "0.5", 2, 6))
            < 1.2758
        )
        assert max(_ratio(mpmath.mpf(10) ** k, y) for k in (-2, 0, 1, 3) for y in (6, 8)) < 1 + 1e-5
        grid = [
            _ratio(mpmath.mpf(10) ** (mpmath.mpf(k) / 2), mpmath.mpf(y) / 4)
            for k in range(-2, 9)
            for y in range(-8, 25, 4)
        ]
        assert max(grid) < 1.47


def test_tail_bounds_and_small_scale_are_shown_for_selu():
    alpha = dks_selu.drop_alpha(resolve("selu", None))
    with ctx.workprec(dks_selu.PRECISION):
        b1 = dks_selu._a(dks_selu.CEILING) - 1
        assert dks_selu.left_tail(alpha, b1) and dks_selu.right_tail(alpha, b1)
        assert dks_selu.small_scale(alpha, b1)
        # the bounds can fail: below relu's ratio at y = −2 (1.113) the left tail's bound does not hold
        assert not dks_selu.left_tail(alpha, arb("0.1"))


def test_cells_near_the_tight_spot_hold_and_can_fail():
    """Cells around y = −0.11, a → ∞ (where R comes nearest relu's 1.4691): shown at B = 1.47; at
    B = 1.469, below relu's largest ratio, the cells touching t = 0 there cannot show it."""
    alpha = dks_selu.drop_alpha(resolve("selu", None))
    quarter = Fraction(1, 4)
    cells = [
        (Fraction(0), quarter, Fraction(-1, 2), Fraction(0)),
        (Fraction(0), quarter, Fraction(0), Fraction(1, 2)),
    ]
    with ctx.workprec(dks_selu.PRECISION):
        assert dks_selu.cells_hold(alpha, dks_selu._a(dks_selu.CEILING) - 1, cells)
        assert not dks_selu.cells_hold(alpha, arb("0.469"), cells[:1])


@pytest.mark.reference
@pytest.mark.slow
@pytest.mark.parametrize("name", [act.name for act in CATALOG])
def test_the_whole_proof_holds_for_every_declared_entry(name):
    """``prove`` for every catalog entry ``drop_alpha`` recognizes (``tat`` trusts CEILING for them
    at run time): about a minute of CPU each."""
    alpha = dks_selu.drop_alpha(resolve(name, None))
    if alpha is None:
        return
    assert dks_selu.prove(alpha)


def test_only_selu_is_recognized():
    assert [act.name for act in CATALOG if dks_selu.drop_alpha(resolve(act.name, None)) is not None] == [
        "selu"
    ]
    _lam, alpha = _selu_constants()
    found = dks_selu.drop_alpha(resolve("selu", None))
    assert abs(float(found.mid()) - float(alpha)) < 1e-14


@pytest.mark.parametrize(
    "argv, power",
    [
        (("selu", "--target-slope", "1.5"), "1.47^1 = 1.47"),
        (("selu", "--depth", "10", "--target-slope", "60"), "1.47^10 = 47.1166 (rounded up)"),
    ],
)
def test_selu_target_at_or_above_the_bound_is_exit_2(argv, power):
    run = invoke("tat", *argv)
    assert run.code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert (
        "(an exponential linear unit whose slope drops at its kink): below 1.47 wherever Q'(1) = 1 (a proven bound"
        in run.stderr
    )
    assert f"--target-slope below {power}" in run.stderr and "--depth" in run.stderr


@pytest.mark.reference
@pytest.mark.slow
def test_selu_target_just_below_the_curves_top_is_solved():
    """1.464: within 0.003 of the largest C'(1) found on the curve (1.4666 at input_scale 1000)."""
    result = tat("selu", depth=1, target_slope="1.464")
    assert float(result.value("input_scale")) > 100


def test_selu_target_needing_a_large_input_scale_is_solved():
    """1.4662 needs input_scale 431: the final Newton stage stalled at the dyadic rounding of a
    (|Δa| about 10^−28 relative to a = 431, never below the absolute 10^−28 asked) and the call was
    exit 3 for every target from 1.4658 up to the surveyed 1.4666. The transform is checked by
    selu's closed-form Q'(1) and C'(1) at 30 digits."""
    result = tat("selu", depth=1, target_slope="1.4662")
    with mpmath.workdps(30):
        a = mpmath.mpf(result.value("input_scale"))
        y = -mpmath.mpf(result.value("input_shift")) / a
        q_slope, c_slope = _selu_q_and_c(a, y)
    assert a > 400
    assert abs(q_slope - 1) < 1e-13 and abs(c_slope - mpmath.mpf("1.4662")) < 1e-13
