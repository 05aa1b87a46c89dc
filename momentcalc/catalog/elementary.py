"""Elementary functions at mpmath precision, written to stay exact in both tails; shared by
the catalog's activations and by the functions an expression may call."""

from __future__ import annotations

import mpmath
from mpmath import mp


def sigmoid(x: mpmath.mpf) -> mpmath.mpf:
    """1/(1 + e^−x), without overflow trouble on either side."""
    if x >= 0:
        return 1 / (1 + mpmath.exp(-x))
    e = mpmath.exp(x)
    return e / (1 + e)


def sigmoid_slope(x: mpmath.mpf) -> mpmath.mpf:
    """σ'(x) = σ(x)(1 − σ(x)) = e^−|x| / (1 + e^−|x|)², without 1 − σ cancelling."""
    e = mpmath.exp(-abs(x))
    return e / (1 + e) ** 2


def softplus(x: mpmath.mpf) -> mpmath.mpf:
    """log(1 + e^x) = max(x, 0) + log1p(e^−|x|), exact in both tails."""
    return max(x, mp.zero) + mpmath.log1p(mpmath.exp(-abs(x)))


def sech2(x: mpmath.mpf) -> mpmath.mpf:
    """1/cosh(x)², the derivative of tanh."""
    return 1 / mpmath.cosh(x) ** 2
