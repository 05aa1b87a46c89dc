"""The standard normal: density, tail masses and truncated moments, without cancellation.

Su 2021, Transformer initialization (sampling distributions) and Wu 2022, NLP reading notes (gamma as a ratio of integrals over [-2, 2]):
for X ~ N(0, 1) kept on [a, b], with Z = Φ(b) − Φ(a),

    E[X]   = (φ(a) − φ(b)) / Z
    Var[X] = 1 + (a·φ(a) − b·φ(b)) / Z − E[X]²

Masses are taken from the tail that is small (erfc), so [30, 31] and [−1000, −999] keep
their relative accuracy; the variance formula still cancels in far tails and for tiny
intervals, which ``precision.stable`` absorbs by raising the working precision.
"""

from __future__ import annotations

import mpmath
from mpmath import mp


def pdf(x: mpmath.mpf) -> mpmath.mpf:
    """φ(x) = exp(−x²/2) / sqrt(2π); 0 at ±inf."""
    if mpmath.isinf(x):
        return mp.zero
    return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mp.pi)


def x_pdf(x: mpmath.mpf) -> mpmath.mpf:
    """x·φ(x), with the limit 0 at ±inf."""
    if mpmath.isinf(x):
        return mp.zero
    return x * pdf(x)


# Beyond this, mpmath's erfc overflows a double internally; the asymptotic series is used.
ASYMPTOTIC_FROM = mpmath.mpf(10) ** 100


def upper_tail(x: mpmath.mpf) -> mpmath.mpf:
    """Q(x) = P(X > x) = erfc(x / sqrt 2) / 2, accurate far into the tail.

    For x > 1e100, Q(x) = φ(x)/x · (1 − 1/x² + 3/x⁴ − 15/x⁶ + …), whose terms shrink by a
    factor of at least 1e200 each, so a few reach any working precision.
    """
    if x == mpmath.inf:
        return mp.zero
    if x == -mpmath.inf:
        return mp.one
    if x > ASYMPTOTIC_FROM:
        return pdf(x) / x * _asymptotic_series(x)
    if x < -ASYMPTOTIC_FROM:
        return 1 - pdf(x) / -x * _asymptotic_series(-x)
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


def _asymptotic_series(x: mpmath.mpf) -> mpmath.mpf:
    """1 − 1/x² + 3/x⁴ − 15/x⁶ + … to the working precision (x > 1e100)."""
    total, term, k = mp.one, mp.one, 1
    epsilon = mp.eps
    while abs(term) > epsilon:
        term *= -(2 * k - 1) / (x * x)
        total += term
        k += 1
    return total


def mass(a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    """Φ(b) − Φ(a) for a < b, taken from whichever tail avoids cancellation."""
    if a >= 0:
        return upper_tail(a) - upper_tail(b)
    if b <= 0:
        return upper_tail(-b) - upper_tail(-a)
    return 1 - upper_tail(-a) - upper_tail(b)


def truncated_moments(a: mpmath.mpf, b: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(mass, mean, variance) of N(0, 1) truncated to [a, b], at the current precision."""
    z = mass(a, b)
    mean = (pdf(a) - pdf(b)) / z
    variance = 1 + (x_pdf(a) - x_pdf(b)) / z - mean * mean
    return z, mean, variance
