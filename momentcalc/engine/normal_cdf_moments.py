"""Gaussian moments of powers of the normal CDF, in closed form on Arb balls (python-flint):

    I(k, n; v) = E[Y^k·Φ(Y)^n],   Y ~ N(0, v),   Φ the standard normal CDF, ϕ its density.

Stein's identity E[Y·g(Y)] = v·E[g'(Y)] with g = Y^(k−1)·Φ^n lowers k:

    I(k, n; v) = v·(k − 1)·I(k − 2, n; v) + v·n·E[Y^(k−1)·Φ(Y)^(n−1)·ϕ(Y)],

and powers of the density fold into the Gaussian weight (complete the square):
ϕ(y)^j·e^(−y²/(2v))/√(2πv) = (2π)^(−j/2)·(1 + j·v)^(−1/2)·e^(−y²/(2w))/√(2πw), w = v/(1 + j·v), so

    E[Y^k·Φ(Y)^n·ϕ(Y)^j] = (2π)^(−j/2)·(1 + j·v)^(−1/2)·I(k, n; v/(1 + j·v)).

The recursion ends at I(k, 0; v) = (k − 1)!!·v^(k/2) (k even; 0 for k odd) and at
I(0, n; v) = P(W_1 ≤ Y, …, W_n ≤ Y) with W_i iid N(0, 1): the orthant probability of n
normals W_i − Y with common correlation ρ = v/(1 + v),

    n = 0: 1,   n = 1: 1/2,   n = 2: 1/4 + asin(ρ)/(2π),   n = 3: 1/8 + 3·asin(ρ)/(4π)

(Sheppard's formula and the trivariate orthant, each pair's asin(ρ)/(2π) over 2^(n−2)), and for
v = 1 any n: Φ(Y) is uniform on (0, 1), so E[Φ(Y)^n] = 1/(n + 1). For n = 4 and v ≠ 1 the orthant
probability has no elementary form; Plackett's identity (∂P/∂ρ_ij is the bivariate density at 0
times the orthant probability of the other two given X_i = X_j = 0, whose correlation is
r/(1 + 2r)) leaves one integral of an elementary function, taken by Arb's integrator:

    P_4(ρ) = 1/16 + 3·asin(ρ)/(4π) + 3/(2π²)·∫_0^asin(ρ) asin(sin θ/(1 + 2·sin θ)) dθ

(r = sin θ; at ρ = 1/2 it gives 1/5). The integrand's singularities are all real, where
sin θ ∈ [−1, −1/3] (branch points and the pole of w = sin θ/(1 + 2 sin θ); w is real only where
sin θ is, and on Re θ = π/2, sin θ = cosh(Im θ) ≥ 1 keeps w in [1/3, 1/2)): it is holomorphic for
−0.33 < Re θ < 3. For n ≥ 5 and v ≠ 1: None. Every term of the recursion is ≥ 0 (Φ^n is
increasing, so E[Y^k·Φ^n] > 0 for odd k too), so the sums lose no digits to cancellation.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from flint import acb, arb, ctx


# The strip -LEFT < Re θ < RIGHT where Plackett's integrand is holomorphic (see above).
LEFT, RIGHT = Fraction(33, 100), 3


def _ball(value: Fraction) -> arb:
    return arb(int(value.numerator)) / int(value.denominator)


def _double_factorial(k: int) -> int:
    out = 1
    while k > 1:
        out *= k
        k -= 2
    return out


def _orthant(n: int, v: Fraction) -> arb | None:
    """E[Φ(Y)^n], Y ~ N(0, v) (see the module docstring); None without a closed form."""
    if v == 1:
        return arb(1) / (n + 1)
    if n == 0:
        return arb(1)
    if n == 1:
        return arb(1) / 2
    if n == 4:
        return _four_orthant(v)
    if n > 3:
        return None
    angle = _ball(v / (1 + v)).asin() / arb.pi()
    return arb(1) / 4 + angle / 2 if n == 2 else arb(1) / 8 + 3 * angle / 4


def _plackett_integrand(z: acb, analytic: bool) -> acb:
    if analytic and not (z.real > -_ball(LEFT) and z.real < RIGHT):
        return acb(arb.nan())
    s = z.sin()
    return (s / (1 + 2 * s)).asin()


def _four_orthant(v: Fraction) -> arb:
    """E[Φ(Y)⁴] = P_4(ρ), ρ = v/(1 + v), by Plackett's identity (module docstring): the
    integral to an exact point near asin(ρ), plus the rest bounded by its width times |integrand|."""
    theta = _ball(v / (1 + v)).asin()
    end = arb(theta.mid())
    goal = arb(2) ** (-ctx.prec - 4)
    integral = acb.integral(_plackett_integrand, 0, end, rel_tol=goal, abs_tol=goal).real
    hull = theta.union(end)
    rest = (theta - end).abs_upper() * _plackett_integrand(acb(hull), False).abs_upper()
    integral += arb(0, rest)
    pi = arb.pi()
    return arb(1) / 16 + 3 * theta / (4 * pi) + 3 * integral / (2 * pi * pi)


@functools.lru_cache(maxsize=1024)
def _cdf_moment(k: int, n: int, v: Fraction, prec: int) -> arb | None:
    if n == 0:
        return arb(0) if k % 2 else _double_factorial(k - 1) * _ball(v ** (k // 2))
    if k == 0:
        return _orthant(n, v)
    lower = _cdf_moment(k - 2, n, v, prec) if k >= 2 else arb(0)
    folded = density_moment(k - 1, n - 1, 1, v)
    if lower is None or folded is None:
        return None
    return _ball(v) * ((k - 1) * lower + n * folded)


def cdf_moment(k: int, n: int, v: Fraction) -> arb | None:
    """I(k, n; v) = E[Y^k·Φ(Y)^n], Y ~ N(0, v), at the current precision; None where the
    recursion meets an orthant probability without a closed form (n ≥ 4, v ≠ 1)."""
    return _cdf_moment(k, n, Fraction(v), ctx.prec)


def density_moment(k: int, n: int, j: int, v: Fraction) -> arb | None:
    """E[Y^k·Φ(Y)^n·ϕ(Y)^j], Y ~ N(0, v), at the current precision (None as ``cdf_moment``)."""
    v = Fraction(v)
    if j == 0:
        return cdf_moment(k, n, v)
    inner = cdf_moment(k, n, v / (1 + j * v))
    if inner is None:
        return None
    return inner / ((2 * arb.pi()) ** j * _ball(1 + j * v)).sqrt()
