"""The standard normal in Arb balls: tail masses and truncated moments with proven radii.

The same formulas as ``engine/normal`` (the mpmath route), evaluated on balls at the current
Arb precision (``balls.arb_precision``), for X ~ N(0, 1) kept on [a, b], Z = Φ(b) − Φ(a):

    E[X]   = (φ(a) − φ(b)) / Z
    Var[X] = 1 + (a·φ(a) − b·φ(b)) / Z − E[X]²

Masses come from the small tail, Q(x) = erfc(x/√2)/2 (Arb's erfc, rigorous). Far out, where
Arb's erfc only bounds Q from above, Q(x) = φ(x)/x·(1 − 1/x² + 3/x⁴ − …): for real x > 0
the remainder after any number of terms has the sign of, and is smaller than, the first
omitted term (Abramowitz and Stegun, Handbook of Mathematical Functions, 7.1.24), so the
sum carries that term as its radius. Cancellation (far tails, tiny intervals) shows up as
wide balls; the caller raises the precision until the results round (``tier.prove``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, cast
from flint import arb

from .balls import exact_ball

Endpoint = Fraction | float  # a float only for ±inf


def pdf(x: Any) -> Any:
    """φ(x) = exp(−x²/2) / sqrt(2π) of a ball."""
    return (-(x * x) / 2).exp() / (2 * arb.pi()).sqrt()


def upper_tail(x: Endpoint, bits: int) -> Any:
    """Q(x) = P(X > x) for x ≥ 0 (or ±inf) as a ball with relative accuracy near ``bits``."""
    if x == float("inf"):
        return arb(0)
    if x == float("-inf"):
        return arb(1)
    ball = exact_ball(cast(Fraction, x))  # (an Endpoint is a float only for ±inf)
    if x > 0 and x * x > 4 * bits:
        return pdf(ball) / ball * _asymptotic_series(ball, bits)
    return (ball / arb(2).sqrt()).erfc() / 2


def _asymptotic_series(x: Any, bits: int) -> Any:
    """1 − 1/x² + 3/x⁴ − … with the first omitted term as radius (x² > 4·bits: the terms
    shrink at least until they are below 2^−bits)."""
    total, term, k = arb(1), arb(1), 1
    square = x * x
    limit = arb(2) ** -(bits + 10)
    while True:
        term = -term * (2 * k - 1) / square
        k += 1
        if abs(term) < limit:
            return total + arb(0, abs(term).upper())  # ± the first omitted term
        total += term


def mass(a: Endpoint, b: Endpoint, bits: int) -> Any:
    """Φ(b) − Φ(a) for a < b, from whichever tail avoids cancellation."""
    if a >= 0:
        return upper_tail(a, bits) - upper_tail(b, bits)
    if b <= 0:
        return upper_tail(-b, bits) - upper_tail(-a, bits)
    return 1 - upper_tail(-a, bits) - upper_tail(b, bits)


def _density_terms(x: Endpoint) -> tuple[Any, Any]:
    """(φ(x), x·φ(x)), both 0 at ±inf."""
    if x in (float("inf"), float("-inf")):
        return arb(0), arb(0)
    ball = exact_ball(cast(Fraction, x))  # (an Endpoint is a float only for ±inf)
    density = pdf(ball)
    return density, ball * density


def truncated_moments(a: Endpoint, b: Endpoint, bits: int) -> tuple[Any, Any, Any]:
    """(mass, mean, variance) of N(0, 1) truncated to [a, b], as balls."""
    z = mass(a, b, bits)
    phi_a, x_phi_a = _density_terms(a)
    phi_b, x_phi_b = _density_terms(b)
    mean = (phi_a - phi_b) / z
    variance = 1 + (x_phi_a - x_phi_b) / z - mean * mean
    return z, mean, variance
