"""dks.locate finishes a first start's long walk to large input scales in double precision
(``FAR_SCALE``): each certified step there costs more, its rule's nodes growing with a."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from momentcalc.catalog import resolve
from momentcalc.computations.tat import tat
from momentcalc.moments import dks


def _walk(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> tuple[list[Fraction], list[tuple[Fraction, Fraction]]]:
    """A synthetic certified step: a grows ×1.8 a step until 170, then stays (the shape of
    softplus's walk to C'(1) = 1.46); returns the a of each step and the points screened."""
    steps: list[Fraction] = []

    def step(act, a, b, target, digits, fixed):
        steps.append(a)
        if a >= 170:
            return a, b, 0.0
        return min(a * Fraction(9, 5), Fraction(170)), b, 1.0

    screened: list[tuple[Fraction, Fraction]] = []

    def screen(b: Fraction, a: Fraction) -> tuple[Fraction, Fraction]:
        screened.append((b, a))
        return b, Fraction(170)

    monkeypatch.setattr(dks, "_newton_step", step)
    dks.locate(resolve(name), arb("1.46"), 15, screen=screen)
    return steps, screened


def test_a_far_walk_is_screened_once(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, screened = _walk(monkeypatch, "softplus")
    # steps at a = 1, 1.8, ..., 10.5; its step to 18.9 (past 16, growing by 1/4 or more) is screened
    # and the certified steps go on from 170
    assert len(screened) == 1 and Fraction(16) <= screened[0][1] < 20
    assert steps[:5] == [Fraction(9, 5) ** k for k in range(5)] and steps[5:] == [Fraction(170)] * 2


def test_closed_forms_walk_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """elu's expectations are closed forms, cheap at any scale: no screening."""
    steps, screened = _walk(monkeypatch, "elu")
    assert screened == [] and len(steps) > 9


@pytest.mark.reference
def test_softplus_far_target() -> None:
    """softplus at C'(1) = 1.46 (a = 167.9): the digits main printed before the walk was
    screened (16 certified steps then, 9 now); 4.5 → 2.6 s of CPU."""
    r = tat("softplus", target_slope="1.46")
    assert mpmath.nstr(r.value("input_scale"), 15) == "167.878901719834"
    assert mpmath.nstr(r.value("input_shift"), 15) == "0.015381699592767"
