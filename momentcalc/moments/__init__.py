"""Gaussian expectations of activations: the building block every moment computation uses.

For an activation φ — a catalog name or alias (``"gelu"``), an expression in x
(``"x*tanh(log(1+exp(x)))"``) or a catalog ``Activation`` — and X ~ N(mean, std²)::

    expectations(φ, [(a, b, c), ...], mean=..., std=..., digits=..., params=...)
        -> [E[X^a · φ(X)^b · φ'(X)^c], ...]        each correct to ``digits`` digits

    gaussian_moments(φ, mean=..., std=..., digits=...)
        -> {"mean": E[φ], "second_moment": E[φ²], "variance", "rms", "gain",
            "centered_gain", "derivative_second_moment": E[φ'²]}

Integrands are monomials in (x, φ(x), φ'(x)), so that one quadrature serves all of them on the
same nodes: E[φ] = (0, 1, 0), E[φ²] = (0, 2, 0), E[φ'²] = (0, 0, 2), E[X·φ·φ'] = (1, 1, 1)
(mean-field theory: E[φ·φ''] = E[X·φ·φ']/q − E[φ'²] under N(0, q), Stein's lemma), E[φ⁴] =
(0, 4, 0) (GAU). ``mean`` and ``std`` may be int, Fraction, decimal string, Decimal, float (its
shortest repr) or mpf, taken exactly — std = sqrt(q) as an mpf inside a fixed-point iteration
works. ``params`` sets catalog parameters by name (``{"slope": "0.2"}`` for leaky_relu).

Values are mpf carrying guard digits beyond ``digits``: closed forms where the catalog has one
(under N(0, 1)), exact zeros by symmetry (of integrals proven to converge absolutely),
otherwise Gaussian quadrature split at the kinks
(``engine.gaussian_quadrature``) with its error checked against the digits; expressions are evaluated at
two precisions that must agree. Errors: InputError with ``param`` (``"std"``,
``"activation"``, …) for bad arguments and divergent integrals, PrecisionError when the digits
cannot be reached. ``exact_moments`` gives the results that are rational as Fractions (a value
on a rounding tie, leaky_relu's 0.545, is rounded from it).

>>> from mpmath import mp, mpf, sqrt
>>> from momentcalc.moments import expectations, gaussian_moments
>>> [mp.nstr(v, 12) for v in expectations("relu", [(0, 1, 0), (0, 2, 0), (0, 0, 2)], digits=12)]
['0.398942280401', '0.5', '0.5']
>>> with mp.workdps(30):
...     q = mpf(2)
...     e_phi2, e_x_phi_dphi = expectations("tanh", [(0, 2, 0), (1, 1, 1)], std=sqrt(q), digits=20)
>>> mp.nstr(e_phi2, 15), mp.nstr(e_x_phi_dphi, 15)
('0.519975745663949', '0.176952769135411')
>>> mp.nstr(gaussian_moments("leaky_relu", params={"slope": "0.2"})["gain"], 15)
'1.38675049056307'
>>> expectations("gelu", [(0, 1, 0)], std=-1)
Traceback (most recent call last):
    ...
momentcalc.errors.InputError: std must be greater than 0, got -1
"""

from __future__ import annotations

from .expectations import (
    SUMMARY,
    exact_moments,
    expectation_balls,
    expectations,
    gaussian_moments,
    midpoint,
    moment_balls,
    moments_by_quadrature,
    radius,
)
from .monomials import DERIVATIVE_SECOND_MOMENT, MEAN, SECOND_MOMENT, Monomial

__all__ = [
    "DERIVATIVE_SECOND_MOMENT",
    "MEAN",
    "SECOND_MOMENT",
    "SUMMARY",
    "Monomial",
    "exact_moments",
    "expectation_balls",
    "expectations",
    "gaussian_moments",
    "midpoint",
    "moment_balls",
    "moments_by_quadrature",
    "radius",
]
