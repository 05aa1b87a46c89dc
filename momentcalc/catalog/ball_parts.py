"""The building blocks of the activations on Arb balls (``ball_functions`` and
``ball_functions_framework`` both build their entries from them): the entry types
(``BallActivation``, ``StripFunctions``), meromorphic branches (``_m``), growth bounds
(``_const``, ``_linear``), and the elementary balls both need (sigmoid, softplus, their strip
bounds)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import NamedTuple

from flint import acb, arb

from ..engine.gaussian_balls import Term

BallFn = Callable[[acb, Mapping[str, arb], bool], acb]  # (z, parameters, analytic) -> acb


GrowthFn = Callable[[Mapping[str, arb]], tuple[Term, ...]]


class BallActivation(NamedTuple):
    """φ and φ' of one catalog entry on balls: ``branches[i]`` = (φ, φ') on the i-th interval
    between ``kinks`` (ascending x-values), and growth bounds of |φ| and |φ'|."""

    kinks: tuple[Fraction, ...]
    branches: tuple[tuple[BallFn, BallFn], ...]
    growth: GrowthFn
    derivative_growth: GrowthFn


def _m(f: Callable[[acb, Mapping[str, arb]], acb]) -> BallFn:
    """A meromorphic branch: poles make non-finite balls by themselves, so the analytic flag
    needs no check."""
    return lambda z, p, analytic: f(z, p)


def _const(value: int | Fraction) -> GrowthFn:
    return lambda p: (Term(value),)


def _linear(c0: int | Fraction, c1: int | Fraction) -> GrowthFn:
    return lambda p: (Term(c0), Term(c1, 1))


def _sigmoid(z: acb) -> acb:
    return (1 + (z / 2).tanh()) / 2


def _sigmoid_slope(z: acb) -> acb:
    return (z / 2).sech() ** 2 / 4


def touches_log1p_cut(w: acb) -> bool:
    """May the box w reach log1p's branch cut, the real half-line w ≤ −1?"""
    return w.imag.contains(0) and not w.real.lower() > -1


def softplus_ball(z: acb, analytic: bool) -> acb:
    """log(1 + e^z) = z + log1p(e^−z) where Re z > 0 (there |e^−z| < 1, far from log1p's
    cut at −1, so wide boxes are not refused), log1p(e^z) elsewhere."""
    if z.real > 0:
        return z + (-z).exp().log1p()
    w = z.exp()
    if analytic and touches_log1p_cut(w):
        return acb(arb.nan())
    return w.log1p()


def _up(value: arb) -> arb:
    return arb(value.upper())


class StripFunctions(NamedTuple):
    width: Callable[[], arb]
    value_bound: Callable[[arb], tuple[arb, ...]]  # w -> coefficients of P
    slope_bound: Callable[[arb], tuple[arb, ...]]  # w -> coefficients of Q
    at: Callable[[arb, arb], tuple[arb, arb]]  # (x, e^{P(x)}) -> (φ(x), φ'(x))
    exponent: Callable[[], tuple[arb | int, ...]] = lambda: (0, 1)  # coefficients of P (e^x by default)
    # (x, e^{P(x)}) -> φ(x) alone and -> φ'(x) alone, each the very arithmetic of ``at`` (the same
    # balls) without the other's operations: a lattice rule that wants one of them (K to every digit
    # beside ψ' from the cardinal series, a rough Newton stage's K or K₁) evaluates that one only
    alone: tuple[Callable[[arb, arb], arb], Callable[[arb, arb], arb]] | None = None


def _sec(y: arb) -> arb:
    return arb((1 / y.cos()).upper())


def _sigmoid_bounds(w: arb) -> tuple[arb, arb]:
    return arb(((1 + _sec(w / 2)) / 2).upper()), arb((_sec(w / 2) ** 2 / 4).upper())


def _softplus_value_bound(w: arb) -> tuple[arb, ...]:
    return (arb((arb(2).log() + abs(w.sin().log()) + arb.pi()).upper()), arb(1))
