"""The kernels of a polynomial (or exp-polynomial) activation in closed form on balls
(Isserlis' theorem; for e^{αu + βv} factors, the exponential tilt of the Gaussian).

For φ(x) = Σ f_i·x^i and (u, v) centred Gaussian with Var u = q1, Var v = q2, correlation ρ:
with X, W independent standard normals, u = √q1·X, v = √q2·(ρX + √(1 − ρ²)·W),

    E[X^i·Y^j] = Σ_{r ≤ j, j − r even} C(j, r)·ρ^r·(1 − ρ²)^{(j−r)/2}·m_{i+r}·m_{j−r},
    m_n = E[Z^n] = (n − 1)!! for even n, 0 for odd n,

so E[φ(u)φ(v)] = Σ_{i,j} f_i·f_j·q1^{i/2}·q2^{j/2}·E[X^i·Y^j] (i + j even), and E[φ'(u)φ'(v)]
the same with φ' = Σ i·f_i·x^{i−1}. Every term is a ball; the working precision rises until
the sums (which may cancel) hold the digits asked. A layer's q of a deep network (relu2's
q' ≈ 3σ_w²q², x³'s ≈ 15σ_w²q³) costs the same at any size.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from flint import arb, ctx

from ..catalog import Activation
from ..catalog.expression_ball import polynomial_terms
from ..catalog.expression_calculus import derivative
from ..catalog.expression_pieces import exp_poly_pieces
from ..engine.gaussian_balls import as_arb
from ..engine.precision import Precision

# Extra bits tried for cancellation, in turn.
EXTRA_BITS = (64, 256, 1024, 4096)


def _double_factorial(n: int) -> int:
    out = 1
    for k in range(n - 1, 0, -2):
        out *= k
    return out


def _moment(n: int) -> int:
    return 0 if n % 2 else _double_factorial(n)


def _cross(i: int, j: int, rho: arb) -> arb:
    """E[X^i·Y^j] for standard (X, Y) of correlation ρ."""
    total = arb(0)
    rest = 1 - rho * rho
    for r in range(j % 2, j + 1, 2):
        m = _moment(i + r)
        if m:
            total += comb(j, r) * m * _moment(j - r) * rho**r * rest ** ((j - r) // 2)
    return total


def _kernel(f: dict, rho: arb, s1: arb, s2: arb) -> arb:
    total = arb(0)
    for i, a in f.items():
        for j, b in f.items():
            if (i + j) % 2 == 0:
                total += as_arb(a) * as_arb(b) * s1**i * s2**j * _cross(i, j, rho)
    return total


def _tilted(i: int, alpha: arb, j: int, beta: arb, rho: arb, s1: arb, s2: arb) -> arb:
    """E[u^i·e^{αu}·v^j·e^{βv}]: the exponential tilts the Gaussian, e^{tᵀΣt/2}·E[(w + Σt)^(i, j)],
    t = (α, β), so u, v gain the means m1 = α·q1 + β·ρ·s1·s2, m2 = β·q2 + α·ρ·s1·s2."""
    cov = rho * s1 * s2
    m1, m2 = alpha * s1 * s1 + beta * cov, beta * s2 * s2 + alpha * cov
    total = arb(0)
    for a in range(i + 1):
        for b in range(j + 1):
            if (a + b) % 2 == 0:
                total += (
                    comb(i, a)
                    * comb(j, b)
                    * m1 ** (i - a)
                    * m2 ** (j - b)
                    * s1**a
                    * s2**b
                    * _cross(a, b, rho)
                )
    return total * ((alpha * alpha * s1 * s1 + 2 * alpha * beta * cov + beta * beta * s2 * s2) / 2).exp()


def _exp_kernel(terms: tuple, rho: arb, s1: arb, s2: arb) -> arb:
    total = arb(0)
    for f in terms:
        for g in terms:
            total += (
                as_arb(f.c)
                * as_arb(g.c)
                * _tilted(f.power, as_arb(f.rate), g.power, as_arb(g.rate), rho, s1, s2)
            )
    return total


def exp_poly_kernel(
    act: Activation, rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb, digits: int
) -> tuple[arb, arb] | None:
    """The kernels of an expression that is one exp-polynomial Σ c·x^k·e^{λx} on the whole line
    (exp(x), x*exp(-x/2); ``catalog.expression_pieces``), in closed form; else None."""

    found = exp_poly_pieces(act.tree)
    if found is None or found[0]:
        return None
    (value,), (slope,) = found[1]
    base = Precision(digits).ball_bits
    goal = arb(10) ** -(digits + 2)
    for extra in EXTRA_BITS:
        with ctx.workprec(base + extra):
            r, s1, s2 = as_arb(rho), as_arb(q1).sqrt(), as_arb(q2).sqrt()
            out = (_exp_kernel(value, r, s1, s2), _exp_kernel(slope, r, s1, s2))
            if all(x.rad() <= goal * abs(x) or x.rad() == 0 for x in out):
                return out
    return out


def closed_kernel(
    act: Activation, rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb, digits: int
) -> tuple[arb, arb] | None:
    """A polynomial's or an exp-polynomial's kernels in closed form, else None."""
    if not act.expression:
        return None
    return polynomial_kernel(act, rho, q1, q2, digits) or exp_poly_kernel(act, rho, q1, q2, digits)


def polynomial_kernel(
    act: Activation, rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb, digits: int
) -> tuple[arb, arb] | None:
    """(E[φ(u)φ(v)], E[φ'(u)φ'(v)]) for an expression that is a polynomial, else None."""
    base = Precision(digits).ball_bits
    goal = arb(10) ** -(digits + 2)
    for extra in EXTRA_BITS:
        with ctx.workprec(base + extra):
            f = polynomial_terms(act.tree)
            if f is None:
                return None
            d = polynomial_terms(derivative(act.tree))
            if d is None:
                return None
            r, s1, s2 = as_arb(rho), as_arb(q1).sqrt(), as_arb(q2).sqrt()
            out = (_kernel(f, r, s1, s2), _kernel(d, r, s1, s2))
            if all(x.rad() <= goal * abs(x) or x.rad() == 0 for x in out):
                return out
    return out


__all__ = ["closed_kernel", "exp_poly_kernel", "polynomial_kernel"]
