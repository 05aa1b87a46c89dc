"""Where an exact (closed-form) expectation starts its precision, and how often it doubles it:
shared by the closed-form routes (``abs_powers``, ``laurent``, ``normal_cdf``) and
``activation_balls``, which tries them."""

from __future__ import annotations

from fractions import Fraction

from ..engine.bits import bits_for

# Exact (exp-polynomial) expectations double their precision at most this many times.
EXACT_RAISES = 8


def exact_precision_bits(digits: int, mean: Fraction, std: Fraction) -> int:
    """The first working precision of an exact expectation: the digits, plus twice the bits
    of |mean|/std. A mean far beyond std (relu at mean 1e100000) makes its terms cancel by
    that much: E[φ²] and mean² agree to (mean/std)², and the tail Q(t) against φ(t)/t, t =
    mean/std, to 1/t² (relu at mean −1e100000); doubling the precision from the digits alone
    would give up long before."""
    ratio = abs(mean) / std
    extra = 2 * (ratio.numerator.bit_length() - ratio.denominator.bit_length()) if ratio > 1 else 0
    return bits_for(digits + 3) + 64 + extra
