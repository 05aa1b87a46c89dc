"""E[g(X)], X ~ N(m, s²), for a mean far below the std (|m|/s < 2^−(digits' bits + 64)), from
two expectations at mean 0 and a proven bound on the rest (a change of measure):

    E[g(m + sZ)] = E[g(sZ)·w(Z)],  w(Z) = e^{uZ − u²/2},  u = m/s,
                 = E[g(sZ)] + (m/s²)·E[X·g(X)] + R,  X = sZ ~ N(0, s²),
    |R| ≤ u²·E[|g(sZ)|·(1 + 2Z²)·e^{|Z|}]                         (|u| ≤ 1),

since w − 1 − uZ = (e^y − 1 − y) − u²/2 with y = uZ − u²/2, |e^y − 1 − y| ≤ y²e^{|y|}/2,
y² ≤ u²(2Z² + 1/2) and |y| ≤ |Z| + 1/2 (so |w − 1 − uZ| ≤ u²(1/2 + e^{1/2}(Z² + 1/4)e^{|Z|})
≤ u²(1 + 2Z²)e^{|Z|}). The last expectation is bounded from the growth bound of |g| (valid on
the whole line): |g(x)|·(1 + 2x²/s²)·e^{|x|/s} is again a sum of growth terms, bounded by its
value at |x| = sL on |t| ≤ L and by the engine's Gaussian tail bound beyond.

A mean like 1e-100000 is then answered at once: tanh's mean is (m/s²)·E[X·tanh(X)] =
m·E[sech²(X)] to every digit, where integrating at the mean itself cancels through 100000 digits (exit 3 after the
CPU budget). An odd g has E[g(sZ)] = 0 exactly and the first-order term carries the value.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, ctx

from ..engine.gaussian_balls import (
    BITS_PER_DIGIT,
    NotCertified,
    Term,
    UnboundedTail,
    as_arb,
    narrow,
    normalise,
    tail_bound,
)
from ..engine.precision import Precision
from ..errors import PrecisionError

# |m|/s below 2^−(bits of the digits + MARGIN_BITS) counts as tiny: u·K/|E1| must stay below
# the digits' relative accuracy, K/|E1| (the remainder's constant against the first-order
# term) is allowed up to 2^MARGIN_BITS before the usual route is used instead.
MARGIN_BITS = 64


def is_tiny(mean: Fraction, std: Fraction, digits: int) -> bool:
    """Is 0 < |mean|/std < 2^−((digits + 3)·log2(10) + MARGIN_BITS)?"""
    if mean == 0:
        return False
    ratio = abs(mean) / std
    bits = ratio.denominator.bit_length() - ratio.numerator.bit_length()  # about −log2(ratio)
    return bits > (digits + 3) * BITS_PER_DIGIT + MARGIN_BITS + 1


def remainder_constant(terms: tuple[Term, ...], std: arb) -> arb:
    """An upper bound of E[G(|X|)·(1 + 2X²/s²)·e^{|X|/s}], X ~ N(0, s²), for G the growth
    terms (valid for every x); +inf when the tails are not integrable."""
    shifted = []
    for term in terms:
        c, a, b = as_arb(term.c), as_arb(term.a) + 1 / std, as_arb(term.b)
        shifted += [Term(c, term.k, a, b), Term(2 * c / (std * std), term.k + 2, a, b)]
    # The completed square's centre of each term (engine.gaussian_balls._term_tail, mean 0): beyond
    # it the tail bound applies; below it, the terms are increasing in |x|.
    L = 1
    for term in shifted:
        q = 1 - 2 * as_arb(term.b) * std * std
        if not q > 0:
            return arb("inf")
        centre = std * as_arb(term.a) / q
        L = max(L, math.ceil(float(centre.upper())) + 1)
    edge = std * L
    bulk = sum(
        (as_arb(t.c) * edge**t.k * (as_arb(t.a) * edge + as_arb(t.b) * edge * edge).exp() for t in shifted),
        arb(0),
    )
    tail = tail_bound(shifted, arb(L), arb(0), std)
    if tail is None:
        return arb("inf")
    return arb((bulk + tail).upper())


def tiny_mean_ball(
    zero_mean,
    terms,
    monomial: tuple[int, int, int],
    mean: Fraction,
    std: Fraction,
    digits: int,
) -> arb | None:
    """E[x^a·φ^b·φ'^c] at a tiny ``mean`` (``is_tiny``) with relative radius ≤ 10^−(digits+3),
    or None when this route cannot give it (the caller integrates at the mean instead).

    ``zero_mean(monomials, digits)`` gives expectations at mean 0 (same std) as balls;
    ``terms()`` the growth terms of |x^a·φ^b·φ'^c| valid on the whole line."""
    a, b, c = monomial
    try:
        e0, e1 = zero_mean([monomial, (a + 1, b, c)], digits + 3)
        with ctx.workprec(64):
            bound = remainder_constant(normalise(terms()), as_arb(std))
    except (NotCertified, UnboundedTail, PrecisionError):
        return None
    if not bound.is_finite():
        return None
    u = mean / std
    bits = max(Precision(digits).ball_bits, *(_bits(x) for x in (e0, e1)))
    with ctx.workprec(bits):
        m, s = as_arb(mean), as_arb(std)
        value = e0 + m / (s * s) * e1
        value += arb(0, (as_arb(u * u) * bound).upper())
    if narrow(value, digits):
        return value
    return None


def _bits(ball: arb) -> int:
    mantissa, _ = ball.mid().man_exp()
    return int(mantissa).bit_length() + 64
