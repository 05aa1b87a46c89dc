"""Exact Gaussian moments of a catalog activation that is a Laurent polynomial in 1 + |x| on
each side of 0 (softsign = x/(1 + |x|); ``ball_functions.HALF_LINE_LAURENT``):

    E[x^a·φ^b·φ'^c] = Σ_{σ = ±1} Σ_k c_{σ,k}·E[q^k; σX > 0],   q = 1 + σX,

where x^a·φ^b·φ'^c on σx > 0, with x = σ(q − 1), expands to Σ_k c_{σ,k}·q^k (likewise
(φ − centre)²), and E[q^k; σX > 0] = K_{−k} of σX ~ N(σ·mean, std²) comes in closed form from
``engine.reciprocal`` (Φ, the normal density, and one Goodwin–Staton-type series, all balls).
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

from ..catalog import Activation
from ..engine.gaussian_balls import as_arb, narrow
from ..engine.reciprocal import half_line_moments, reachable
from .exact_precision import EXACT_RAISES, exact_precision_bits
from .monomials import Monomial
from ..catalog.ball_functions import HALF_LINE_LAURENT

Laurent = dict[int, arb]


def laurent_times(f: Laurent, g: Laurent) -> Laurent:
    """The product of two Laurent polynomials (exponent -> coefficient)."""
    out: Laurent = {}
    for i, a in f.items():
        for j, b in g.items():
            out[i + j] = out.get(i + j, arb(0)) + a * b
    return out


def laurent_power(f: Laurent, n: int) -> Laurent:
    """f^n for n ≥ 0."""
    out: Laurent = {0: arb(1)}
    for _ in range(n):
        out = laurent_times(out, f)
    return out


def _exact(coefficients: dict[int, int | Fraction | arb]) -> Laurent:
    return {k: as_arb(c) for k, c in coefficients.items()}


def laurent_ball(
    act: Activation, monomial: Monomial, mean: Fraction, std: Fraction, digits: int, centre: arb | None = None
) -> arb | None:
    """E[x^a·φ^b·φ'^c] (or E[(φ − centre)²]) for an entry of HALF_LINE_LAURENT, with relative
    radius ≤ 10^−(digits+3), at a precision doubled while it is not; None for other
    activations, or when the closed form would need too many terms or bits (the caller
    integrates)."""
    if act.expression or act.name not in HALF_LINE_LAURENT:
        return None
    a, b, c = monomial
    given = dict(act.values)
    bits = exact_precision_bits(digits, mean, std)
    with ctx.workprec(64):
        params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}
        sides = [side for side, _, _ in HALF_LINE_LAURENT[act.name](params)]
        if not all(reachable(side * as_arb(mean), as_arb(std), bits) for side in sides):
            return None
    for _ in range(EXACT_RAISES):
        with ctx.workprec(bits):
            params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}
            m, s = as_arb(mean), as_arb(std)
            total = arb(0)
            for side, value, slope in HALF_LINE_LAURENT[act.name](params):
                f, d = _exact(value), _exact(slope)
                if centre is not None:
                    shifted = dict(f)
                    shifted[0] = shifted.get(0, arb(0)) - centre
                    g = laurent_times(shifted, shifted)
                else:
                    x = {1: as_arb(side), 0: as_arb(-side)}
                    g = laurent_times(
                        laurent_times(laurent_power(x, a), laurent_power(f, b)), laurent_power(d, c)
                    )
                k = half_line_moments(side * m, s, min(0, -max(g)), max(1, -min(g)))
                if k is None:
                    return None
                for power, coefficient in g.items():
                    total += coefficient * k[-power]
        if narrow(total, digits):
            return total
        bits *= 2
    return None
