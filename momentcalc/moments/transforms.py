"""The activation transforms of Tailored Activation Transformation (TAT: Zhang et al., 2022,
"Deep learning without shortcuts: shaping the kernel with tailored rectifiers") for a plain
network of L layers, proven.

Leaky ReLU with negative slope α, scaled by √(2/(1 + α²)) so that Q(1) = 1, has the normalized
C map (the arc-cosine kernel; deepmind/dks ``_leaky_relu_cmap``)

    C_α(c) = [(1 − α)²·(√(1 − c²) + (π − arccos c)·c)/π + 2α·c]/(1 + α²),

and the network's C map is C_α composed L times. TAT picks α ∈ [0, 1] with C_α^{∘L}(0) = η: at
α = 1 the map is the identity (η = 0), at α = 0 (relu) η is largest, and C_α^{∘L}(0) falls as α
rises, so every η in [0, (C_0)^{∘L}(0)] is reached once. α is found in mpmath and proven by a sign
change of C_α^{∘L}(0) − η at two exact α around it (Arb); the output scale √(2/(1 + α²)) follows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from flint import arb, ctx
import mpmath

from ..engine.gaussian_balls import BITS_PER_DIGIT, as_arb
from ..errors import PrecisionError

ROOT_GUARD = 6


def leaky_c_map(alpha: Any, c: Any, pi: Any, acos: Any, sqrt: Any) -> Any:
    """C_α(c), with the arithmetic of the caller (mpmath or Arb)."""
    return ((1 - alpha) ** 2 * (sqrt(1 - c * c) + (pi - acos(c)) * c) / pi + 2 * alpha * c) / (
        1 + alpha * alpha
    )


def _plain(depth: int) -> Callable[[Callable[[Any], Any], Any], Any]:
    """A plain network of ``depth`` layers: its C map at x is the layer's map composed."""

    def network(layer: Callable[[Any], Any], x: Any) -> Any:
        for _ in range(depth):
            x = layer(x)
        return x

    return network


def network_c0_ball(alpha: arb, depth: int, network: Callable | None = None) -> arb:
    """C_α^{∘L}(0) on balls (``network(layer, x)``: another architecture's map, e.g. the
    subnetwork-maximizing function of the TAT paper)."""
    layer = lambda c: leaky_c_map(alpha, c, arb.pi(), lambda x: x.acos(), lambda x: x.sqrt())
    return (network or _plain(depth))(layer, arb(0))


def network_c0(alpha: Any, depth: int, network: Callable | None = None) -> Any:
    """C_α^{∘L}(0) in mpmath."""
    layer = lambda c: leaky_c_map(alpha, c, mpmath.pi, mpmath.acos, mpmath.sqrt)
    return (network or _plain(depth))(layer, mpmath.mpf(0))


def reachable_c0(depth: int, digits: int = 6) -> float:
    """The largest η: relu's C map composed L times at 0."""
    with mpmath.workdps(digits + 5):
        return float(network_c0(mpmath.mpf(0), depth))


def tat_negative_slope(eta: Fraction, depth: int, digits: int, network: Callable | None = None) -> arb:
    """α with C_α^{∘L}(0) = η as a ball of relative width about 10^−(digits + ROOT_GUARD);
    η must lie in (0, reachable) (the caller handles the ends)."""
    with mpmath.workdps(digits + 2 * ROOT_GUARD):
        target = mpmath.mpf(eta.numerator) / eta.denominator
        root = mpmath.findroot(
            lambda a: network_c0(a, depth, network) - target,
            (mpmath.mpf(0), mpmath.mpf(1)),
            solver="anderson",
        )
        if not 0 < root < 1:
            raise PrecisionError("the negative slope could not be located")
        mantissa, exponent = mpmath.frexp(root)
        bits = int((digits + ROOT_GUARD + 4) * BITS_PER_DIGIT)
        centre = Fraction(int(mpmath.floor(mantissa * 2**bits))) * Fraction(2) ** (int(exponent) - bits)
    for widen in range(4):
        shift = math.ceil((digits + ROOT_GUARD - 3 * widen) * BITS_PER_DIGIT)
        half = abs(centre) / 2**shift  # dyadic, as centre is: exact ends
        low, high = centre - half, centre + half
        with ctx.workprec(int((digits + 2 * ROOT_GUARD) * BITS_PER_DIGIT) + 64 + 8 * depth):
            target = as_arb(eta)
            f_low = network_c0_ball(as_arb(low), depth, network) - target
            f_high = network_c0_ball(as_arb(high), depth, network) - target
            if (f_low > 0 and f_high < 0) or (f_low < 0 and f_high > 0):
                return as_arb(centre) + arb(0, as_arb(half))
    raise PrecisionError(f"the negative slope could not be proven to {digits} digits")


__all__ = ["leaky_c_map", "network_c0", "network_c0_ball", "reachable_c0", "tat_negative_slope"]
