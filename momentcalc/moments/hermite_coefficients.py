"""Normalized probabilists' Hermite coefficients of an activation, proven.

    a_k = E[φ(Z)·He_k(Z)]/√(k!),   He_k(x) = Σ_m (−1)^m·k!/(m!·(k − 2m)!·2^m)·x^{k−2m},

so φ = Σ a_k·He_k/√(k!) in L²(N(0, 1)), E[φ(Z)²] = Σ a_k² (Parseval), and for (u, v) unit
Gaussians with correlation ρ, E[φ(u)φ(v)] = Σ a_k²·ρ^k (Mehler's formula: the "dual
activation" of Daniely, Frostig & Singer, 2016). With N terms the energy left out is
tail = E[φ²] − Σ_{k<N} a_k² ≥ 0, and |E[φ(u)φ(v)] − Σ_{k<N} a_k²ρ^k| ≤ tail·|ρ|^N.

Each a_k is a fixed combination of the certified moments E[Z^j·φ(Z)], j ≤ k, with exact integer
weights; the moments are asked for with the digits that combination loses to cancellation.
A piecewise polynomial with rational coefficients (relu, leaky_relu, relu2, identity, a
polynomial expression) has every E[Z^j·φ(Z)] = A + B/√(2π) with A, B rational (``moments.exact``):
its a_k are exact in that form, so a zero (relu's odd k ≥ 3) is proven exactly; an odd or even
φ has E[Z^j φ] = 0 by symmetry for half of the j (not integrated), and so exact zeros for half
of the k.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx

from ..catalog import Activation
from ..catalog.formulas import vanishing_coefficient
from ..engine.gaussian_balls import (
    BITS_PER_DIGIT,
    NotCertified,
    UnboundedTail,
    as_arb,
    gaussian_expectation_within,
)
from ..engine.precision import Precision
from .activation_balls import integrand, model_of
from .exact import _piece_expectation, rational_pieces
from .expectations import expectation_balls
from .monomials import vanishes


def hermite_weights(k: int) -> dict[int, int]:
    """He_k's coefficients {power: integer}."""
    return {
        k - 2 * m: (-1) ** m * math.factorial(k) // (math.factorial(m) * math.factorial(k - 2 * m) * 2**m)
        for m in range(k // 2 + 1)
    }


def _rational_moments(act: Activation, count: int) -> list[tuple[Fraction, Fraction]] | None:
    """E[Z^j·φ(Z)] = A_j + B_j/√(2π), j < count, for a piecewise polynomial with rational
    coefficients and kinks at 0 only; None otherwise."""
    pieces = rational_pieces(act)
    if pieces is None:
        return None
    kinks, polys = pieces
    if len(kinks) > 1 or any(k != 0 for k in kinks):
        return None
    sides = (-1, 1) if kinks else (0,)
    out = []
    for j in range(count):
        total_a = total_b = Fraction(0)
        for side, (f, _) in zip(sides, polys):
            g = [Fraction(0)] * j + list(f)
            part_a, part_b = _piece_expectation(g, Fraction(0), Fraction(1), side)
            total_a, total_b = total_a + part_a, total_b + part_b
        out.append((total_a, total_b))
    return out


def coefficient_balls(act: Activation, terms: int, digits: int) -> list[arb]:
    """a_0 … a_{terms−1} as balls, each to about ``digits`` digits (an exact 0 where proven)."""
    rational = _rational_moments(act, terms)
    bits = Precision(digits).ball_bits
    if rational is not None:
        out = []
        with ctx.workprec(bits + 64):
            inverse_root = 1 / (2 * arb.pi()).sqrt()
            for k in range(terms):
                a = sum((w * rational[j][0] for j, w in hermite_weights(k).items()), Fraction(0))
                b = sum((w * rational[j][1] for j, w in hermite_weights(k).items()), Fraction(0))
                if a == 0 and b == 0:
                    out.append(arb(0))
                else:
                    out.append((as_arb(a) + as_arb(b) * inverse_root) / as_arb(math.factorial(k)).sqrt())
        return out
    return _by_moments(act, terms, digits)


def _by_moments(act: Activation, terms: int, digits: int) -> list[arb]:
    """From the certified E[Z^j·φ(Z)], with the digits each combination loses: a first pass at
    a few digits sizes the terms against the result, the second asks for that many more."""
    # E[Z^j·φ(Z)] = 0 by symmetry for half of the j when φ is odd or even (not integrated: an
    # integral that is exactly 0 cannot be proven to any relative digits)
    wanted = [j for j in range(terms) if not vanishes((j, 1, 0), act.parity)]
    extra = 4
    for _ in range(3):
        found = _moments(act, wanted, digits + extra)
        moments = [arb(0)] * terms
        for j, ball in zip(wanted, found):
            moments[j] = ball
        out, loss = _combine(act, moments, terms, digits + extra)
        if loss <= extra - 2:
            return out
        extra = loss + 6
    return out


def _moments(act: Activation, powers: list[int], digits: int) -> list[arb]:
    """E[Z^j·φ(Z)] for j in ``powers``: a catalog activation's to ``digits`` digits; an
    expression's to an absolute 10^−digits·sqrt(E[Z^{2j}]) (the size of the other terms of
    a_k's combination), since one may be 0 for no symmetry (E[Z²·cos Z] = 0), which relative
    digits can never prove."""
    if not powers:
        return []
    if not act.expression:
        return expectation_balls(act, [(j, 1, 0) for j in powers], digits=digits)

    model = model_of(act, Fraction(0))
    out = []
    for j in powers:
        scale = math.log2(math.prod(range(2 * j - 1, 0, -2)) or 1) / 2
        try:
            out.append(
                gaussian_expectation_within(
                    integrand(model, (j, 1, 0)),
                    mean=0,
                    std=1,
                    goal_log2=scale - (digits + 2) * BITS_PER_DIGIT,
                )
            )
        except (NotCertified, UnboundedTail):
            return expectation_balls(act, [(j, 1, 0) for j in powers], digits=digits)  # its errors
    return out


def _combine(act: Activation, moments: list[arb], terms: int, digits: int) -> tuple[list[arb], int]:
    """(a_k balls, the digits the worst one lost to cancellation)."""
    out, loss = [], 0
    with ctx.workprec(Precision(digits, 20).ball_bits):
        for k in range(terms):
            weights = hermite_weights(k)
            if vanishing_coefficient(act, k) or all(
                moments[j] == 0 and moments[j].rad() == 0 for j in weights
            ):
                out.append(arb(0))
                continue
            total = sum((w * moments[j] for j, w in weights.items()), arb(0))
            size = sum((abs(w) * abs(moments[j]) for j, w in weights.items()), arb(0))
            if total.rad() < abs(total.mid()) and abs(total.mid()) > 0:
                loss = max(loss, math.ceil(float((size / abs(total)).upper().log()) / math.log(10)))
            else:
                loss = max(loss, digits)  # not one digit left: ask for many more
            out.append(total / as_arb(math.factorial(k)).sqrt())
    return out, loss


__all__ = ["coefficient_balls", "hermite_weights"]


def exact_squares(act: Activation, terms: int) -> list[Fraction] | None:
    """a_k², k < terms, as Fractions when every one is rational (a piecewise polynomial whose
    E[Z^j·φ(Z)] have no 1/√(2π) part in the a_k: a polynomial, identity), else None."""
    rational = _rational_moments(act, terms)
    if rational is None:
        return None
    out = []
    for k in range(terms):
        weights = hermite_weights(k)
        a = sum((w * rational[j][0] for j, w in weights.items()), Fraction(0))
        b = sum((w * rational[j][1] for j, w in weights.items()), Fraction(0))
        if b != 0:
            return None
        out.append(a * a / math.factorial(k))
    return out
