"""``moments.dks_mish``: mish in ``dks_smooth``'s framework (not wired into ``tat``): its
envelopes hold on Arb cells, its branches agree with mpmath, and a core cell at the largest κ
of a double-precision scan (a = 0.8, b = −2.5: κ = 0.4588) shows B = 3 and cannot show B = 3/2."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import acb, arb, ctx

from momentcalc.moments import dks_mish, dks_smooth
from tests.test_dks_smooth import _mish

PEAK = (Fraction(5, 4), Fraction(21, 16), Fraction(3), Fraction(49, 16))  # t = 1/0.8, y = 2.5/0.8


def test_the_envelopes_hold():
    assert dks_mish.envelopes_hold()


@pytest.mark.parametrize("x", ["-3", "-0.5", "0.7", "5"])
def test_the_branches_are_relu_minus_mish(x):
    with ctx.workprec(dks_smooth.PRECISION):
        ball = acb(arb(x))
        branch = dks_mish.MISH.right if float(x) > 0 else dks_mish.MISH.left
        g, g1, g2 = (part.real for part in branch(ball))
    with mpmath.workdps(20):
        phi, d1, d2 = _mish(mpmath.mpf(x))
        relu, step = (mpmath.mpf(x), 1) if float(x) > 0 else (0, 0)
        for got, want in [(g, relu - phi), (g1, step - d1), (g2, -d2)]:
            assert abs(float(got.mid()) - float(want)) < 1e-15 and float(got.rad()) < 1e-20


def test_a_core_cell_at_the_peak_shows_three_and_not_three_halves():
    assert dks_smooth.core_cells(dks_mish.MISH, Fraction(3), [PEAK])
    with ctx.workprec(dks_smooth.PRECISION):
        assert not bool(dks_smooth.cell_value(dks_mish.MISH, Fraction(3, 2), *PEAK) > 0)


def test_the_linear_sides_closing_inequalities_hold_for_mish():
    assert dks_smooth.linear_side(dks_mish.MISH, Fraction(3))
