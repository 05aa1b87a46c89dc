"""Closed-form Gaussian kernels of the catalog activations that have them, as data.

For (u₁, u₂) centred Gaussian with variance q each and correlation c (Cho & Saul 2009, the
arc-cosine kernel; Williams 1997, the arcsine kernel of erf; Poole et al. 2016 and Schoenholz
et al. 2017 use both for mean-field signal propagation):

* relu: E[φ(u₁)φ(u₂)] = q·(sqrt(1 − c²) + (π − arccos c)·c)/(2π),
  E[φ'(u₁)φ'(u₂)] = (π − arccos c)/(2π)
* leaky_relu (slope s) = s·x + (1 − s)·relu(x): E[φφ] = q·(s·c + (1 − s)²·k(c)) with
  k(c) = (sqrt(1 − c²) + (π − arccos c)·c)/(2π) (Stein: E[u₁·relu(u₂)] = q·c/2),
  E[φ'φ'] = s + (1 − s)²·(π − arccos c)/(2π)
* erf: E[φφ] = (2/π)·arcsin(2qc/(1 + 2q)), E[φ'φ'] = (4/π)/sqrt((1 + 2q)² − 4q²c²)
* identity: E[φφ] = q·c, E[φ'φ'] = 1

With c = 1 they give E[φ(√q·Z)²] and E[φ'(√q·Z)²]; ``slope`` is E[X·φ(X)·φ'(X)]/q =
d/dq E[φ(√q·Z)²], the derivative of the length map per unit σ_w². The computations use
these where they exist (fast at any precision); the tests hold them against quadrature.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, NamedTuple

import mpmath
from mpmath import mp
from flint import arb

Params = Mapping[str, mpmath.mpf]


class Kernel(NamedTuple):
    """E[φ(u₁)φ(u₂)] and E[φ'(u₁)φ'(u₂)] as functions of (q, c, params), d/dq E[φ(√q·Z)²]
    as a function of (q, params), and the same three as sympy expressions."""

    cross: Callable[[mpmath.mpf, mpmath.mpf, Params], mpmath.mpf]
    derivative_cross: Callable[[mpmath.mpf, mpmath.mpf, Params], mpmath.mpf]
    slope: Callable[[mpmath.mpf, Params], mpmath.mpf]
    sympy: Callable[
        [Any, Any, Any, Mapping[str, Any]], tuple[Any, Any]
    ]  # (sp, q, c, params) -> (cross, dcross)


def _arccos_part(c: mpmath.mpf) -> mpmath.mpf:
    """(sqrt(1 − c²) + (π − arccos c)·c)/(2π), E[relu(u₁)relu(u₂)]/q."""
    return (mpmath.sqrt(1 - c * c) + (mp.pi - mpmath.acos(c)) * c) / (2 * mp.pi)


def _sp_arccos_part(sp: Any, c: Any) -> Any:
    return (sp.sqrt(1 - c**2) + (sp.pi - sp.acos(c)) * c) / (2 * sp.pi)


def _leaky_cross(q: mpmath.mpf, c: mpmath.mpf, p: Params) -> mpmath.mpf:
    s = p.get("slope", mp.zero)
    return q * (s * c + (1 - s) ** 2 * _arccos_part(c))


def _leaky_dcross(q: mpmath.mpf, c: mpmath.mpf, p: Params) -> mpmath.mpf:
    s = p.get("slope", mp.zero)
    return s + (1 - s) ** 2 * (mp.pi - mpmath.acos(c)) / (2 * mp.pi)


def _leaky_slope(q: mpmath.mpf, p: Params) -> mpmath.mpf:
    s = p.get("slope", mp.zero)
    return (1 + s * s) / 2


def _sp_leaky(sp: Any, q: Any, c: Any, p: Mapping[str, Any]) -> tuple[Any, Any]:
    s = p.get("slope", sp.Integer(0))
    return (
        q * (s * c + (1 - s) ** 2 * _sp_arccos_part(sp, c)),
        s + (1 - s) ** 2 * (sp.pi - sp.acos(c)) / (2 * sp.pi),
    )


def _sp_erf(sp: Any, q: Any, c: Any, p: Mapping[str, Any]) -> tuple[Any, Any]:
    return (
        2 / sp.pi * sp.asin(2 * q * c / (1 + 2 * q)),
        4 / sp.pi / sp.sqrt((1 + 2 * q) ** 2 - 4 * q**2 * c**2),
    )


LEAKY = Kernel(_leaky_cross, _leaky_dcross, _leaky_slope, _sp_leaky)

KERNELS: dict[str, Kernel] = {
    "relu": LEAKY,  # slope 0
    "leaky_relu": LEAKY,
    "erf": Kernel(
        cross=lambda q, c, p: 2 / mp.pi * mpmath.asin(2 * q * c / (1 + 2 * q)),
        # (1 + 2q)² − 4q²c² as the product (1 + 2q(1 − c))(1 + 2q(1 + c)): the difference
        # cancels to 0 at q = 1e30, c = 1 (a ZeroDivisionError); the product never does.
        derivative_cross=lambda q, c, p: (
            4 / mp.pi / mpmath.sqrt((1 + 2 * q * (1 - c)) * (1 + 2 * q * (1 + c)))
        ),
        slope=lambda q, p: 4 / mp.pi / ((1 + 2 * q) * mpmath.sqrt(1 + 4 * q)),
        sympy=_sp_erf,
    ),
    "identity": Kernel(
        cross=lambda q, c, p: q * c,
        derivative_cross=lambda q, c, p: mp.one,
        slope=lambda q, p: mp.one,
        sympy=lambda sp, q, c, p: (q * c, sp.Integer(1)),
    ),
}


def kernel(name: str) -> Kernel | None:
    """The closed-form kernel of catalog entry ``name`` (not an alias), or None."""
    return KERNELS.get(name)


# The same kernels on Arb balls (python-flint ``arb``; q may be a ball: the results enclose
# every q in it), for the certified mean-field results. (A, S, B) = (E[φ²], dA/dq, E[φ'²]) at
# X ~ N(0, q); ``cross`` gives (K(q, c), K'(q, c)).
def _leaky_length_ball(q: Any, p: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    half = (1 + p.get("slope", arb(0)) ** 2) / 2  # relu: slope 0
    return q * half, half, half


def _erf_length_ball(q: Any, p: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    root = (1 + 4 * q).sqrt()
    return (
        2 / arb.pi() * (2 * q / (1 + 2 * q)).asin(),
        4 / arb.pi() / ((1 + 2 * q) * root),
        4 / arb.pi() / root,
    )


def _erf_cross_ball(q: Any, c: Any, p: Mapping[str, Any]) -> tuple[Any, Any]:
    return (
        2 / arb.pi() * (2 * q * c / (1 + 2 * q)).asin(),
        4 / arb.pi() / ((1 + 2 * q) ** 2 - 4 * q * q * c * c).sqrt(),
    )


BALL_LENGTHS: dict[str, Callable[[Any, Mapping[str, Any]], tuple[Any, Any, Any]]] = {
    "relu": _leaky_length_ball,
    "leaky_relu": _leaky_length_ball,
    "erf": _erf_length_ball,
    "identity": lambda q, p: (q, q * 0 + 1, q * 0 + 1),
}
# Positively homogeneous activations (φ(ax) = a·φ(x), a > 0): A(q) = q·B(0) and the correlation
# map does not depend on q. For every kernel above A(q) <= q·B(0) (erf: asin is concave).
HOMOGENEOUS = frozenset({"relu", "leaky_relu", "identity"})
BALL_CROSS: dict[str, Callable[[Any, Any, Mapping[str, Any]], tuple[Any, Any]]] = {
    "erf": _erf_cross_ball,
    "identity": lambda q, c, p: (q * c, q * 0 + 1),
}


# ``kernel``'s closed forms on balls at unequal variances: (q1, q2, ρ, params) -> (E[φ(u)φ(v)],
# E[φ'(u)φ'(v)]) for (u, v) centred Gaussian, Var u = q1, Var v = q2, correlation ρ ∈ [−1, 1]
# (Cho & Saul 2009: E[relu(u)^n·relu(v)^n] = (q1·q2)^{n/2}·J_n(θ)/(2π), θ = arccos ρ,
# J_0 = π − θ, J_1 = sin θ + (π − θ)·cos θ, J_2 = 3·sin θ·cos θ + (π − θ)·(1 + 2cos²θ);
# Williams 1997: E[erf(u)erf(v)] = (2/π)·asin(2ρ√(q1q2)/√((1 + 2q1)(1 + 2q2))) and
# E[erf'(u)erf'(v)] = (4/π)/√((1 + 2q1)(1 + 2q2) − 4ρ²q1q2)).
def _pi_minus_acos(rho: Any) -> Any:
    """π − arccos ρ, exactly 0 at ρ = −1 (Arb's π − π would be a ball around 0)."""
    return arb(0) if rho == -1 else arb.pi() - rho.acos()


def _j1_ball(rho: Any) -> Any:
    return ((1 - rho * rho).sqrt() + _pi_minus_acos(rho) * rho) / (2 * arb.pi())


def _leaky_kernel_ball(q1: Any, q2: Any, rho: Any, p: Mapping[str, Any]) -> tuple[Any, Any]:
    s = p.get("slope", arb(0))
    return (
        (q1 * q2).sqrt() * (s * rho + (1 - s) ** 2 * _j1_ball(rho)),
        s + (1 - s) ** 2 * _pi_minus_acos(rho) / (2 * arb.pi()),
    )


def _relu2_kernel_ball(q1: Any, q2: Any, rho: Any, p: Mapping[str, Any]) -> tuple[Any, Any]:
    sine = (1 - rho * rho).sqrt()
    j2 = 3 * sine * rho + _pi_minus_acos(rho) * (1 + 2 * rho * rho)
    return q1 * q2 * j2 / (2 * arb.pi()), 4 * (q1 * q2).sqrt() * _j1_ball(rho)


def _erf_kernel_ball(q1: Any, q2: Any, rho: Any, p: Mapping[str, Any]) -> tuple[Any, Any]:
    spread = (1 + 2 * q1) * (1 + 2 * q2)
    return (
        2 / arb.pi() * (2 * rho * (q1 * q2).sqrt() / spread.sqrt()).asin(),
        4 / arb.pi() / (spread - 4 * rho * rho * q1 * q2).sqrt(),
    )


BALL_KERNELS: dict[str, Callable[[Any, Any, Any, Mapping[str, Any]], tuple[Any, Any]]] = {
    "relu": _leaky_kernel_ball,
    "leaky_relu": _leaky_kernel_ball,
    "relu2": _relu2_kernel_ball,
    "erf": _erf_kernel_ball,
    "identity": lambda q1, q2, rho, p: (rho * (q1 * q2).sqrt(), q1 * 0 + 1),
}
# The closed kernels whose q-slopes are largest at c = 1: for every |c| ≤ 1 and i = 1, 2,
# |∂K(q1, q2, c)/∂q_i| ≤ ∂K(q1, q2, 1)/∂q_i, and so at equal variances |d/dq K(q, q, c)| ≤ dA/dq
# with A(q) = K(q, q, 1) = E[φ(√q·Z)²]. relu, leaky_relu, identity (degree n = 1) and relu2
# (n = 2) are positively homogeneous: K = (q1·q2)^{n/2}·k(c), ∂K/∂q_i = n·K/(2q_i), and
# |k(c)| ≤ k(1) (Cauchy–Schwarz); erf: K = (2/π)·asin(c·x), x = 2√(q1q2)/√((1 + 2q1)(1 + 2q2)) < 1,
# ∂K/∂q_i = (2/π)·c·∂x/∂q_i/sqrt(1 − c²x²) grows with |c|. A deep network's layers use it to
# bound the map over a ball of variances (``moments.closed_layers``).
Q_SLOPE_AT_ONE = frozenset({"relu", "leaky_relu", "relu2", "erf", "identity"})


class Twin(NamedTuple):
    """φ equals the closed-kernel activation ``kernel`` on a window around 0: φ(x) = ψ(x) for
    ``−reach ≤ x ≤ reach`` (at least)."""

    kernel: str
    reach: Fraction


# Activations that are a closed-kernel activation near 0: relu6 = relu on (−∞, 6], hardtanh =
# identity on [−1, 1]. Where a layer's variance is small against reach², φ's kernel is ψ's
# to within a Gaussian tail (``moments.closed_layers.twin_noise``).
TWINS: dict[str, Twin] = {
    "relu6": Twin("relu", Fraction(6)),
    "hardtanh": Twin("identity", Fraction(1)),
}
