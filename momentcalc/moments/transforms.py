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

For the plain network the composition is enclosed without a ball's radius growing through the
layers: C_α is nondecreasing and 1-Lipschitz on [−1, 1] for α in [0, 1],

    C_α'(c) = [(1 − α)²·(π − arccos c)/π + 2α]/(1 + α²)  in  [0, ((1 − α)² + 2α)/(1 + α²)] = [0, 1],

so with c_k within R_k of an exact point m_k, C_α(c_k) lies within R_k of C_α(m_k) (the mean value
theorem): each layer evaluates the map once at an exact point, and the radius grows by that
evaluation's rounding alone (a ball evaluated at a ball near c = 1, where √(1 − c²) and arccos c are
steep, grew about a thousandfold per layer: 10,000 layers took 80,000 bits and 40 s). α itself is
located by Newton's method with the derivative dC_α^{∘L}(0)/dα carried through the layers (forward
mode), at 64 bits and then at the working precision.
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
    subnetwork-maximizing function of the TAT paper). The plain network needs an exact α in [0, 1]
    (``plain_c0_ball``)."""
    if network is None:
        return plain_c0_ball(alpha, depth)
    layer = lambda c: leaky_c_map(alpha, c, arb.pi(), lambda x: x.acos(), lambda x: x.sqrt())
    return network(layer, arb(0))


def _layer(alpha: arb, c: arb, pi: arb) -> arb:
    """C_α(c) for an exact c in [−1, 1] (1 − c² as (1 − c)(1 + c): exact factors)."""
    h = (((1 - c) * (1 + c)).sqrt() + (pi - c.acos()) * c) / pi
    return ((1 - alpha) ** 2 * h + 2 * alpha * c) / (1 + alpha * alpha)


def plain_c0_ball(alpha: arb, depth: int) -> arb:
    """C_α^{∘L}(0) as a ball for an exact α in [0, 1], at the current precision, its radius the sum
    of the layers' rounding (the map is 1-Lipschitz and nondecreasing: the module docstring)."""
    pi, c, radius = arb.pi(), arb(0), arb(0)
    for _ in range(depth):
        value = _layer(alpha, c, pi)
        radius = arb((radius + value.rad()).upper())
        c = value.mid()
        if c > 1:  # C_α maps [−1, 1] into itself: the enclosure's part above 1 is dropped
            c = arb(1)
    return c + arb(0, radius)


def _plain_c0_slope(alpha: Any, depth: int, sqrt: Any, acos: Any, pi: Any) -> tuple[Any, Any]:
    """(C_α^{∘L}(0), its derivative in α) in floats or on balls' midpoints, not proven: for
    Newton's method."""
    c, slope = 0 * alpha, 0 * alpha
    a2, da = (1 - alpha) ** 2, -2 * (1 - alpha)
    inverse, inv_pi = 1 / (1 + alpha * alpha), 1 / pi
    twice = 2 * alpha * inverse
    for _ in range(depth):
        arc = (pi - acos(c)) * inv_pi
        h = sqrt((1 - c) * (1 + c)) * inv_pi + arc * c
        numerator = a2 * h + 2 * alpha * c
        along_c = a2 * arc * inverse + twice
        along_alpha = (da * h + 2 * c) * inverse - numerator * twice * inverse
        c, slope = numerator * inverse, along_alpha + along_c * slope
        if isinstance(c, arb):
            c, slope = c.mid(), slope.mid()
        if c > 1:
            c = 1 + 0 * c
    return c, slope


def _newton(alpha: Any, target: Any, evaluate: Any, tolerance: Any) -> Any:
    """Newton's method for C_α^{∘L}(0) = target from ``alpha``, kept inside a bracket in [0, 1]
    (bisecting where a step leaves it: C_α^{∘L}(0) falls as α rises); it stops once a step is
    below ``tolerance`` squared-ish (the next would be about its square)."""
    low, high = 0 * alpha, 1 + 0 * alpha
    for _ in range(200):
        value, slope = evaluate(alpha)
        if value > target:
            low = alpha
        else:
            high = alpha
        moved = alpha - (value - target) / slope if slope < 0 else None
        if isinstance(moved, arb):
            moved = moved.mid()
        if moved is None or not low < moved < high:
            moved = (low + high) / 2
            if isinstance(moved, arb):
                moved = moved.mid()
        step, alpha = abs(moved - alpha), moved
        if step < tolerance or high - low < tolerance:
            break
    return alpha


def _plain_negative_slope(target: arb, depth: int, bits: int) -> Fraction:
    """α in (0, 1) with C_α^{∘L}(0) ≈ ``target`` to about ``bits`` bits: Newton's method in
    floats, then on balls at ``bits`` + 20 bits (quadratic: it stops at a step below 2^−(bits/2 +
    10), the next one's square)."""
    start = _newton(
        0.5,
        float(target.mid()),
        lambda a: _plain_c0_slope(a, depth, math.sqrt, math.acos, math.pi),
        1e-13,
    )
    with ctx.workprec(bits + 20):
        alpha = _newton(
            arb(start),
            target,
            lambda a: _plain_c0_slope(a, depth, arb.sqrt, arb.acos, arb.pi()),
            arb(2) ** -(bits // 2 + 10),
        )
    mantissa, exponent = (int(x) for x in alpha.mid().man_exp())  # to ``bits`` bits, as the mpmath route
    drop = max(0, mantissa.bit_length() - bits)
    return Fraction(mantissa >> drop) * Fraction(2) ** (exponent + drop)


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
    if network is None:
        bits = int((digits + 2 * ROOT_GUARD) * BITS_PER_DIGIT) + depth.bit_length() + 64
        with ctx.workprec(bits):
            centre = _plain_negative_slope(
                as_arb(eta), depth, int((digits + ROOT_GUARD + 4) * BITS_PER_DIGIT)
            )
        return _proven_slope(eta, depth, digits, centre, None, bits)
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
    return _proven_slope(
        eta, depth, digits, centre, network, int((digits + 2 * ROOT_GUARD) * BITS_PER_DIGIT) + 64 + 8 * depth
    )


def _proven_slope(
    eta: Fraction, depth: int, digits: int, centre: Fraction, network: Callable | None, precision: int
) -> arb:
    """A ball around ``centre`` holding the α with C_α^{∘L}(0) = η, by a sign change at its exact ends."""
    for widen in range(4):
        shift = math.ceil((digits + ROOT_GUARD - 3 * widen) * BITS_PER_DIGIT)
        half = abs(centre) / 2**shift  # dyadic, as centre is: exact ends
        low, high = centre - half, centre + half
        with ctx.workprec(precision):
            target = as_arb(eta)
            f_low = network_c0_ball(as_arb(low), depth, network) - target
            f_high = network_c0_ball(as_arb(high), depth, network) - target
            if (f_low > 0 and f_high < 0) or (f_low < 0 and f_high > 0):
                return as_arb(centre) + arb(0, as_arb(half))
    raise PrecisionError(f"the negative slope could not be proven to {digits} digits")


__all__ = ["leaky_c_map", "network_c0", "network_c0_ball", "reachable_c0", "tat_negative_slope"]
