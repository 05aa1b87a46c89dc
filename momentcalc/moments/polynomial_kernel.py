"""The kernels of a polynomial activation in closed form on balls (Isserlis' theorem).

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
from ..engine.gaussian_balls import BITS_PER_DIGIT, as_arb

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


def polynomial_kernel(act: Activation, rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb,
                      digits: int) -> tuple[arb, arb] | None:
    """(E[φ(u)φ(v)], E[φ'(u)φ'(v)]) for an expression that is a polynomial, else None."""
    base = int((digits + 10) * BITS_PER_DIGIT) + 64
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


__all__ = ["polynomial_kernel"]
