"""Exact Gaussian moments of a catalog activation that is a polynomial in x, Φ(αx) and the
normal density ϕ(αx) (gelu = x·Φ(x), erf = 2Φ(√2·x) − 1; ``ball_functions.NORMAL_CDF_POLYNOMIALS``),
X ~ N(0, std²):

    E[x^a·φ^b·φ'^c] = Σ c_(i,n,j)·E[X^i·Φ(αX)^n·ϕ(αX)^j] = Σ c_(i,n,j)·α^(−i)·E[U^i·Φ(U)^n·ϕ(U)^j],

U = αX ~ N(0, α²·std²), where x^a·φ^b·φ'^c expands to Σ c_(i,n,j)·x^i·Φ^n·ϕ^j, and each term
comes in closed form from ``engine.normal_cdf_moments`` (Stein's identity down to orthant
probabilities). gelu's and erf's E[φ⁴], which ``gau-scale`` needs, are among them (Φ(Z)⁴ ends
at E[Φ(Z)⁴] = 1/5 under N(0, 1), and at Plackett's one-dimensional integral otherwise);
E[Φ(U)^n] for n ≥ 5 and var(U) ≠ 1 is not, and the caller integrates. E[φ''(X)²] likewise
(``normal_cdf_curvature``, from ``ball_functions.NORMAL_CDF_CURVATURES``): erf's
(16/π)·E[X²·e^(−2X²)] = (16/π)·q·(1 + 4q)^(−3/2) at any variance q, with no quadrature.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, ctx

from ..catalog import Activation
from ..engine.gaussian_balls import as_arb, narrow
from .exact_precision import exact_precision_bits
from .monomials import Monomial
from ..catalog.ball_functions import NORMAL_CDF_CURVATURES, NORMAL_CDF_POLYNOMIALS
from ..engine.bits import bits_for

Polynomial = dict[tuple[int, int, int], arb]
# Precision doublings tried against cancellation (erf² = 4Φ² − 4Φ + 1 loses a few bits).
RAISES = 3


def _times(f: Polynomial, g: Polynomial) -> Polynomial:
    out: Polynomial = {}
    for (i, n, j), a in f.items():
        for (k, m, l), b in g.items():
            key = (i + k, n + m, j + l)
            out[key] = out.get(key, arb(0)) + a * b
    return out


def _power(f: Polynomial, exponent: int) -> Polynomial:
    out: Polynomial = {(0, 0, 0): arb(1)}
    for _ in range(exponent):
        out = _times(out, f)
    return out


def expand(monomial: Monomial, value: Polynomial, slope: Polynomial) -> Polynomial:
    """x^a·φ^b·φ'^c as a polynomial in (x, Φ, ϕ), from φ and φ' as such polynomials."""
    a, b, c = monomial
    x: Polynomial = {(1, 0, 0): arb(1)}
    return _times(_times(_power(x, a), _power(value, b)), _power(slope, c))


def normal_cdf_ball(
    act: Activation, monomial: Monomial, mean: Fraction, std: Fraction, digits: int
) -> arb | None:
    """E[x^a·φ^b·φ'^c] for an entry of NORMAL_CDF_POLYNOMIALS at mean 0, with relative radius
    ≤ 10^−(digits+3), at a precision doubled while it is not; None for other activations, a
    mean ≠ 0, a term without a closed form, or a value whose ball holds 0 (the caller
    integrates, or knows it is 0 by parity)."""
    if act.expression or act.name not in NORMAL_CDF_POLYNOMIALS or mean != 0:
        return None
    from ..engine.normal_cdf_moments import density_moment

    given = dict(act.values)
    bits = exact_precision_bits(digits, mean, std)
    for _ in range(RAISES):
        with ctx.workprec(bits):
            params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}
            scale2, value, slope = NORMAL_CDF_POLYNOMIALS[act.name](params)
            variance = Fraction(scale2) * Fraction(std) ** 2
            inverse_scale = 1 / as_arb(Fraction(scale2)).sqrt()
            exact = {key: as_arb(c) for key, c in value.items()}, {key: as_arb(c) for key, c in slope.items()}
            total = arb(0)
            for (i, n, j), coefficient in expand(monomial, *exact).items():
                if coefficient == 0:
                    continue
                term = density_moment(i, n, j, variance)
                if term is None:
                    return None
                total += coefficient * inverse_scale**i * term
        if total.contains(0):  # exactly 0 or nearly so: not for this route to decide
            return None
        if narrow(total, digits):
            return total
        bits *= 2
    return None


def normal_cdf_curvature(act: Activation, q: Fraction, digits: int) -> arb | None:
    """E[φ''(X)²], X ~ N(0, q), for an entry of NORMAL_CDF_CURVATURES: φ''² expanded in
    (x, Φ(αx), ϕ(αx)) and each term in closed form as in ``normal_cdf_ball``, with relative
    radius ≤ 10^−(digits+3) at a precision doubled while it is not; None for other activations or
    a ball that holds 0."""
    if act.expression or act.name not in NORMAL_CDF_CURVATURES:
        return None
    from ..engine.normal_cdf_moments import density_moment

    given = dict(act.values)
    bits = bits_for(digits + 3) + 64
    for _ in range(RAISES):
        with ctx.workprec(bits):
            params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}
            scale2 = NORMAL_CDF_POLYNOMIALS[act.name](params)[0]
            second = {key: as_arb(c) for key, c in NORMAL_CDF_CURVATURES[act.name](params).items()}
            inverse_scale = 1 / as_arb(Fraction(scale2)).sqrt()
            total = arb(0)
            for (i, n, j), coefficient in _times(second, second).items():
                term = density_moment(i, n, j, Fraction(scale2) * Fraction(q))
                if term is None:
                    return None
                total += coefficient * inverse_scale**i * term
        if total.contains(0):
            return None
        if narrow(total, digits):
            return total
        bits *= 2
    return None
