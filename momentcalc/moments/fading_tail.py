"""The tail of a deep trajectory whose variance fades out geometrically: every later layer's
(q, c) proven without another integral.

A plain network with σ_b² = 0 and an activation with φ(0) = 0, a = φ'(0) ≠ 0 and
|R(x)| ≤ B·x² for every real x, R(x) = φ(x) − a·x (``linear_remainder``). For u, v ~ N(0, q)
with correlation c, |c| ≤ 1, m₃ = E|Z|³ = 2·sqrt(2/π) (Cauchy–Schwarz on every cross term):

    A(q) = E[φ(u)²] = a²q + 2a·E[u·R(u)] + E[R(u)²],  |E[u·R(u)]| ≤ B·m₃·q^{3/2},  E[R²] ≤ 3B²q²;
    K − c·A = a·(E[u·R(v)] + E[R(u)·v]) + E[R(u)R(v)] − c·(2a·E[u·R(u)] + E[R(u)²]),
    |K − c·A| ≤ α·q^{3/2} + β·q²,  α = (2√3 + 2m₃)·|a|·B,  β = 6B².

So for every q ≤ q_L = s² the layer q' = σ_w²·A(q), c' = K/A (σ_b² = 0) has

    σ_w²a²·(1 − ε(q)) ≤ q'/q ≤ σ_w²a²·(1 + ε(q)),  ε(q) = (2|a|·B·m₃·√q + 3B²q)/a²,
    |c' − c| ≤ (α·√q + β·q)/(a²·(1 − ε(q_L)))  (the denominator: A ≥ a²q·(1 − ε)).

When λ = σ_w²a²·(1 + ε(q_L)) < 1 every later variance is at most λ^k·q_L, so summing the
geometric series, for every k ≥ 0:

    |c_{L+k} − c_L| ≤ D = (α·s/(1 − √λ) + β·s²/(1 − λ))/(a²·(1 − ε(q_L))),
    q_{L+k} ∈ q_L·(σ_w²a²)^k·exp[−S/(1 − ε(q_L)), S],  S = (2|a|B·m₃·s/(1 − √λ) + 3B²s²/(1 − λ))/a²

(ln(1 + ε) ≤ ε, ln(1 − ε) ≥ −ε/(1 − ε₀) for ε ≤ ε₀). Once D and S are below the digits asked,
the later layers are those balls: no more integrals. The proof fails (None) when λ ≥ 1 (the
variance does not fade geometrically: tanh, elu at σ_w² = 1), when 0 is a kink of φ' (relu,
relu6), when φ(0) ≠ 0, or when φ grows faster than x² (no B on the real line).

B is proven on balls: |x| ≤ ρ by the maximum principle for the analytic R(z)/z² on the circle
|z| = ρ (R(0) = R'(0) = 0; φ and φ' finite on small boxes covering the disk, analyticity asked: no pole
inside),
ρ ≤ |x| ≤ REACH on short intervals I of φ's pieces by the mean-value form R(m) + (φ'(I) − a)·(I − m),
and |x| ≥ REACH from the catalog's (or the expression's) growth bound |φ(x)| ≤ Σ c_k·|x|^k, k ≤ 2.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from flint import acb, arb, ctx

from ..catalog import Activation
from ..engine.gaussian_balls import Term, as_arb
from .activation_balls import model_of

# |x| ≤ REACH is covered by intervals of width STEP, beyond by the growth bound.
REACH = 16
STEP = Fraction(1, 16)
# Boxes on the circle |z| = ρ, and ρ's largest value.
CIRCLE = 64
RADIUS = Fraction(1, 2)
# The disk's box is checked in GRID × GRID pieces.
GRID = 8
# Bits for the bound B (an upper bound only).
BOUND_BITS = 96


class Remainder(NamedTuple):
    """φ(x) = a·x + R(x) with |R(x)| ≤ bound·x² for every real x."""

    slope: arb
    bound: arb


def linear_remainder(act: Activation, bits: int) -> Remainder | None:
    """a = φ'(0) (at ``bits``) and a proven B with |φ(x) − a·x| ≤ B·x² on the real line, or None
    when φ(0) ≠ 0, 0 is a kink, φ grows faster than x², or a ball is not finite."""
    try:
        with ctx.workprec(BOUND_BITS):
            found = _bound(act)
    except (ArithmeticError, ValueError, ZeroDivisionError):
        return None
    if found is None:
        return None
    index, bound = found
    with ctx.workprec(bits):
        branches = model_of(act, Fraction(0)).branches(arb(-REACH), arb(REACH))
        slope = branches.derivatives[index](acb(0), False)
        if not (slope.imag == 0 and slope.real.is_finite() and not slope.real.contains(0)):
            return None
        return Remainder(slope.real, bound)


def _bound(act: Activation) -> tuple[int, arb] | None:
    model = model_of(act, Fraction(0))
    branches = model.branches(arb(-REACH), arb(REACH))
    kinks = [as_arb(k) for k in branches.kinks]
    if any(k.contains(0) for k in kinks):
        return None
    index = sum(1 for k in kinks if k < 0)  # the piece that holds 0
    value, slope_of = branches.values[index], branches.derivatives[index]
    zero = value(acb(0), False)
    if not (zero.is_exact() and zero == 0):
        return None
    a = slope_of(acb(0), False)
    if not a.is_finite():
        return None
    nearest = min((abs(k).lower() for k in kinks), default=arb(REACH))
    rho = min(as_arb(RADIUS), arb(nearest) / 4)
    if not rho > 0:
        return None
    bound = _near(value, slope_of, a, arb(rho.lower()))
    if bound is None:
        return None
    bounds = [bound]
    edges = [None, *kinks, None]
    for i, (low, high) in enumerate(zip(edges, edges[1:])):
        for side in (-1, 1):
            part = _middle(branches.values[i], branches.derivatives[i], a, low, high, side, arb(rho.lower()))
            if part is None:
                return None
            bounds.append(part)
    if branches.truth is not None:  # the balls that hold the expression's kinks
        for k in kinks:
            if abs(k).lower() < REACH:
                gap = branches.truth[0](acb(k), False) - a * acb(k)
                low_end = abs(k).lower()
                if not (gap.is_finite() and low_end > 0):
                    return None
                bounds.append(abs(gap).upper() / (arb(low_end) ** 2))
    tail = _far(model.growth(arb(REACH)), a)
    if tail is None:
        return None
    bounds.append(tail)
    total = arb(0)
    for b in bounds:
        total = total.max(arb(b.upper()))
    return index, arb(total.upper())


def _near(value, slope_of, a: acb, rho: arb) -> arb | None:
    """sup |R(x)|/x² over |x| ≤ ρ, from |R| on the circle |z| = ρ (maximum principle)."""
    side = rho / GRID
    for i in range(GRID):
        for j in range(GRID):  # the disk's box in GRID² pieces: φ, φ' finite (no pole inside)
            piece = acb(
                arb(((2 * i + 1 - GRID) * side).mid(), side.upper()),
                arb(((2 * j + 1 - GRID) * side).mid(), side.upper()),
            )
            if not (slope_of(piece, True).is_finite() and value(piece, True).is_finite()):
                return None
    half = arb.pi() * rho / CIRCLE * as_arb(Fraction(101, 100))
    top = arb(0)
    for k in range(CIRCLE):
        angle = 2 * arb.pi() * k / CIRCLE
        point = acb(rho * angle.cos(), rho * angle.sin())
        centre = acb(arb(point.real.mid()), arb(point.imag.mid()))
        box = acb(arb(centre.real.mid(), half.upper()), arb(centre.imag.mid(), half.upper()))
        inner = value(centre, True) - a * centre
        spread = slope_of(box, True) - a
        size = abs(inner) + abs(spread) * half * arb(2).sqrt()
        if not size.is_finite():
            return None
        top = top.max(size)
    return top / (rho * rho)


def _middle(
    value,
    slope_of,
    a: acb,
    low: arb | None,
    high: arb | None,
    side: int,
    rho: arb,
) -> arb | None:
    """sup |R(x)|/x² over the piece [low, high] ∩ side·[ρ, REACH] (mean-value form per interval)."""
    start, stop = (rho, arb(REACH)) if side > 0 else (arb(-REACH), -rho)
    if low is not None:
        start = start.max(arb(low.upper()))
    if high is not None:
        stop = stop.min(arb(high.lower()))
    if not start < stop:
        return arb(0)
    top = arb(0)
    x = start
    while x < stop:
        y = (x + as_arb(STEP)).min(stop)
        mid = (x + y) / 2
        centre = acb(arb(mid.mid()))
        interval = acb(arb(mid.mid(), ((y - x) / 2 + abs(mid - arb(mid.mid()))).upper()))
        inner = value(centre, False) - a * centre
        spread = slope_of(interval, False) - a
        size = abs(inner) + abs(spread) * arb(interval.real.rad())
        if not size.is_finite():
            return None
        nearest = x.min(y) if side > 0 else (-y).min(-x)
        top = top.max(size / (nearest * nearest))
        x = y
    return top


def _far(terms, a: acb) -> arb | None:
    """sup (|φ(x)| + |a|·|x|)/x² over |x| ≥ REACH from |φ(x)| ≤ Σ c_k·|x|^k (k ≤ 2)."""
    reach = arb(REACH)
    total = abs(a) / reach
    for term in terms:
        term = Term(*term)
        if as_arb(term.a) != 0 or as_arb(term.b) != 0 or term.k > 2:
            return None
        total += abs(as_arb(term.c)) * reach ** (term.k - 2)
    return total


class Tail(NamedTuple):
    """Every later layer's balls: q_{L+k} = q_L·ratio^k·spread, |c_{L+k} − c_L| ≤ drift."""

    ratio: arb
    spread: arb
    drift: arb


def fading_tail(rem: Remainder, q: arb, w: Fraction, digits: int, c: arb | None) -> Tail | None:
    """The proven tail from layer L (variance ball ``q``, correlation ball ``c``), or None when λ ≥ 1
    or its widths are not yet below 10^−digits relative to q and c."""
    a, B = rem.slope, rem.bound
    if not q > 0:
        return None
    s = arb(q.upper()).sqrt()
    m3 = 2 * (2 / arb.pi()).sqrt()
    a2 = a * a
    eps = (2 * abs(a) * B * m3 * s + 3 * B * B * s * s) / a2
    lam = as_arb(w) * a2 * (1 + eps)
    if not (lam < 1 and eps < 1):
        return None
    root = lam.sqrt()
    total = (2 * abs(a) * B * m3 * s / (1 - root) + 3 * B * B * s * s / (1 - lam)) / a2
    small = arb(10) ** (-digits)
    if not total < small:
        return None
    alpha = (2 * arb(3).sqrt() + 2 * m3) * abs(a) * B
    drift = (alpha * s / (1 - root) + 6 * B * B * s * s / (1 - lam)) / (a2 * (1 - eps))
    drift = arb(drift.upper())
    if c is not None and not drift < small * abs(c):
        return None
    spread = arb(0, 1) * (total / (1 - eps))  # [−S/(1 − ε), S/(1 − ε)] ⊇ [−S/(1 − ε), S]
    return Tail(as_arb(w) * a2, spread.exp(), drift)


__all__ = ["Remainder", "Tail", "fading_tail", "linear_remainder"]
