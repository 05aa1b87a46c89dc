"""The one place init-report takes Gaussian moments of an activation from (the public tier's
``moment_balls`` today; the propagation core's length map q ↦ E[φ(√q Z)²] when it lands: a
change of this file only).

``moments(name, low, high, digits)`` gives E[φ(√v Z)²] and E[φ'(√v Z)²] as balls for every
variance v in [low, high] (exact ends: a ball's). The tier takes an exact std; √low and √high are
bracketed by rationals s₀ ≤ √low, √high ≤ s₁ (a relative 2^−(bits + 40) beyond), the moments taken
at s₀ and widened by the
Lipschitz bounds |E[φ(sZ)²] − E[φ(s₀Z)²]| ≤ 2·L₁²·s₁·(s₁ − s₀) and |E[φ'(sZ)²] − E[φ'(s₀Z)²]| ≤
2·L₁·L₂·(s₁ − s₀), with L₁ ≥ sup|φ'| and L₂ ≥ sup|φ''| (φ(0) = 0; E|Z|² = 1, E|Z| < 1).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb

from ...engine.balls import exact_ball
from ...tier import moment_balls

# Upper bounds of sup|φ'| and sup|φ''| over the real line for the activations a feed-forward layer
# of init-report may use (tests/test_init_report.py checks them on a fine grid): gelu's are about
# 1.129 and 0.798, gelu_tanh's 1.13 and 0.80, swish's 1.0998 and 0.5, quick_gelu's 1.10 and 0.86;
# relu's derivative is a step (E[φ'(sZ)²] = 1/2 for every s, L₂ = 0 suffices).
LIPSCHITZ = {
    "gelu": (Fraction(6, 5), Fraction(1)),
    "gelu_tanh": (Fraction(6, 5), Fraction(1)),
    "swish": (Fraction(6, 5), Fraction(1)),
    "quick_gelu": (Fraction(6, 5), Fraction(1)),
    "relu": (Fraction(1), Fraction(0)),
}


def _root_bracket(variance: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """(s₀, s₁) rationals with s₀ ≤ √variance ≤ s₁ and s₁ − s₀ ≤ 2^−bits·√variance."""
    n, d = variance.numerator, variance.denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    if rn * rn == n and rd * rd == d:
        exact = Fraction(rn, rd)
        return exact, exact
    scale = 1 << (bits + 8)
    # √(n/d) = √(n·d)/d; isqrt of n·d·scale² brackets √(n·d)·scale
    low = math.isqrt(n * d * scale * scale)
    return Fraction(low, d * scale), Fraction(low + 1, d * scale)


def moments(name: str, low: Fraction, high: Fraction, digits: int) -> tuple[Any, Any]:
    """(E[φ(√v Z)²], E[φ'(√v Z)²]) as balls that hold for every variance v in [``low``, ``high``]
    (0 < low ≤ high, exact), at the current Arb precision."""
    bits = int(digits * 3.33) + 40
    s0, _ = _root_bracket(low, bits)
    _, s1 = _root_bracket(high, bits)
    balls = moment_balls(name, mean=0, std=s0, digits=digits + 3)
    second, derivative = balls["second_moment"], balls["derivative_second_moment"]
    if s0 != s1:
        l1, l2 = LIPSCHITZ[name]
        width = exact_ball(s1 - s0)
        second += arb(0, (2 * exact_ball(l1 * l1 * s1) * width).upper())
        derivative += arb(0, (2 * exact_ball(l1 * l2) * width).upper())
    return second, derivative
