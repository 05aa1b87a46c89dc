"""Bivariate Gaussian expectations of an activation: E[φ(u₁)φ(u₂)] and E[φ'(u₁)φ'(u₂)] for
(u₁, u₂) centred Gaussian with variance q each and correlation c (mean-field theory's
correlation map, Poole et al. 2016; Schoenholz et al. 2017).

The quadrature is ``engine.bivariate_smoothing`` (smoothing decomposition; a lattice product trapezoid
rule for analytic φ, the adaptive rule split at the kinks otherwise). Kinks are the catalog's,
and for an expression the zeros of its critical parts (abs, sqrt, … arguments); near-zeros of
denominators, where the one-dimensional rule also splits, are left out, as φ is analytic there.

The certified (Arb) bivariate expectations are ``moments.bivariate_certified``'s; this
quadrature serves where none of its routes applies.

Part of the mpmath route, which no proven digit comes from: what it is for is written once, in
``engine.gaussian_quadrature``'s docstring.
"""

from __future__ import annotations

import mpmath
from mpmath import mp
from flint import ctx

from ..catalog import Activation
from ..engine.bivariate_smoothing import INNER_EXTRA_DIGITS, bivariate_expectations
from ..engine.gaussian_quadrature import gaussian_edge
from ..engine.mpmath_internals import fraction
from ..errors import PrecisionError
from .bivariate_certified import exp_poly_smoothing
from ..engine.gaussian_balls import as_arb
from .expectations import midpoint


def kinks(act: Activation, q: mpmath.mpf) -> tuple[mpmath.mpf, ...]:
    """Points where φ or φ' is not analytic, within the Gaussian bulk of N(0, q)."""
    p = act.param_values()
    points = act.breaks(p, mp.zero, mpmath.sqrt(q), 2 * gaussian_edge(mp.dps))
    if not act.expression:
        return points
    small = mpmath.mpf(10) ** (-(mp.dps // 2))
    fixed = tuple(act.kinks(p))
    return tuple(x for x in points if x in fixed or any(abs(part(x)) <= small for part in act.critical))


def cross_expectations(
    act: Activation, q: mpmath.mpf, c: mpmath.mpf, digits: int
) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(E[φ(u₁)φ(u₂)], E[φ'(u₁)φ'(u₂)]) to ``digits`` digits, at the current precision;
    q > 0, c in [−1, 1]."""
    p = act.param_values()
    if act.pair is not None:
        values = lambda x: act.pair(x, p)
    else:
        values = lambda x: (act.fn(x, p), act.derivative(x, p))
    odd = (act.parity == "odd", act.parity == "even")
    k, kd = bivariate_expectations(
        values,
        2,
        q=q,
        c=c,
        breaks=kinks(act, q),
        odd=odd,
        digits=digits,
        dps=mp.dps,
        smoothing=_closed_form_smoothing(act, digits + INNER_EXTRA_DIGITS),
    )
    return k, kd


def _closed_form_smoothing(act: Activation, digits: int):
    """For a piecewise exp-polynomial catalog φ (relu, elu, selu…): b -> ψ(m) = (E[φ(m + b·V)],
    E[φ'(m + b·V)]) in closed form (the certified route's ``exp_poly_smoothing``, its balls'
    midpoints; m and b enter as the exact values of their binary floats), in place of an
    adaptive quadrature split at the kink that moves with m (which took minutes for selu's
    c*). None for other φ."""
    if act.expression:
        return None

    closed = exp_poly_smoothing(act)
    if closed is None:
        return None
    bits = mp.prec + 32  # ψ is needed to about the working precision, absolutely

    def smoothing(b: mpmath.mpf):
        std = fraction(b)

        def smoothed(m: mpmath.mpf) -> list[mpmath.mpf]:
            # |m|/b adds cancellation: E[φ(m + bV)] at m far out is a tiny difference of terms
            extra = max(0, 2 * int(mpmath.log(abs(m) / b + 1, 2))) if m else 0
            with ctx.workprec(bits + extra):
                (value,), (slope,) = closed([as_arb(fraction(m))], as_arb(std))
            if not (value.is_finite() and slope.is_finite()):
                raise PrecisionError(f"no closed form for E[{act.name}] at mean {mpmath.nstr(m, 8)}")
            return [midpoint(value), midpoint(slope)]

        return smoothed

    return smoothing
