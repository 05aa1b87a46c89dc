"""Bivariate Gaussian expectations of an activation: E[φ(u₁)φ(u₂)] and E[φ'(u₁)φ'(u₂)] for
(u₁, u₂) centred Gaussian with variance q each and correlation c (mean-field theory's
correlation map, Poole et al. 2016; Schoenholz et al. 2017).

The quadrature is ``engine.bivariate`` (smoothing decomposition; a lattice product trapezoid
rule for analytic φ, the adaptive rule split at the kinks otherwise). Kinks are the catalog's,
and for an expression the zeros of its critical parts (abs, sqrt, … arguments); near-zeros of
denominators, where the one-dimensional rule also splits, are left out, as φ is analytic there.

This is the one place the bivariate expectations come from: a certified (Arb) version would
replace the body of ``cross_expectations``.
"""

from __future__ import annotations

import mpmath
from mpmath import mp

from ..catalog import Activation
from ..engine.gaussian import gaussian_edge


def kinks(act: Activation, q: mpmath.mpf) -> tuple[mpmath.mpf, ...]:
    """Points where φ or φ' is not analytic, within the Gaussian bulk of N(0, q)."""
    p = act.param_values()
    points = act.breaks(p, mp.zero, mpmath.sqrt(q), 2 * gaussian_edge(mp.dps))
    if not act.expression:
        return points
    small = mpmath.mpf(10) ** (-(mp.dps // 2))
    fixed = tuple(act.kinks(p))
    return tuple(x for x in points if x in fixed or any(abs(part(x)) <= small for part in act.critical))


def cross_expectations(act: Activation, q: mpmath.mpf, c: mpmath.mpf, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(E[φ(u₁)φ(u₂)], E[φ'(u₁)φ'(u₂)]) to ``digits`` digits, at the current precision;
    q > 0, c in [−1, 1]."""
    from ..engine.bivariate import bivariate_expectations

    p = act.param_values()
    if act.pair is not None:
        values = lambda x: act.pair(x, p)  # noqa: E731
    else:
        values = lambda x: (act.fn(x, p), act.derivative(x, p))  # noqa: E731
    odd = (act.parity == "odd", act.parity == "even")
    k, kd = bivariate_expectations(values, 2, q=q, c=c, breaks=kinks(act, q), odd=odd, digits=digits, dps=mp.dps)
    return k, kd
