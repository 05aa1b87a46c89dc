"""q* = 0 for a positively homogeneous activation of degree n > 1 with a closed kernel (relu2,
n = 2; an expression κ·x^n, n ≥ 2), σ_b² = 0: what the network does, proven.

* The length map is q -> σ_w²·A(q) with A(q) = q^n·A(1) (relu2: A(1) = E[relu(Z)⁴] = 3/2): with
  x = (σ_w²·A(1))^(1/(n−1))·q it is x -> x^n, so q -> 0 from q0 exactly when x0 < 1 (x0 = 1 is
  the repelling fixed point above 0; beyond it q grows without bound). χ₁ = σ_w²·E[φ'(√q*·Z)²]
  = 0 at q* = 0 (φ'(0) = 0), and the length map's slope there is 0: depth_scale_q = 0 (q falls
  faster than any exponential).
* The correlation map does not depend on q: E[φ(u)φ(v)] = q^n·k(c) for unit-free k, so with
  σ_b² = 0 every layer maps c -> R(c) = k(c)/k(1), the same map at every depth (not only in the
  limit q -> 0). relu2: k(c) = J₂(θ)/(2π), θ = arccos c, J₂ = 3·sin θ·cos θ + (π − θ)(1 + 2cos²θ)
  (Cho & Saul 2009), R(c) = J₂(θ)/(3π), R'(c) = E[φ'(u)φ'(v)]/k(1) = 4·J₁(θ)/(3π). κ·x^n:
  x^n = Σ_k a_k·He_k(x), a_k = n!/(k!·((n − k)/2)!·2^((n−k)/2)) (k ≡ n mod 2), so by Mehler
  k(c) = κ²·Σ a_k²·k!·c^k and k(1) = κ²·(2n − 1)!!: R is a polynomial with rational
  coefficients. For odd n it is odd, convex on [0, 1] with R(1) = 1, so R(c) ≤ c there: c* = 0
  exactly, R'(0) = a₁²/(2n − 1)!! = (n!!)²/(2n − 1)!!.
* R has a Hermite expansion with nonnegative coefficients (Mehler), so on [0, 1] it is
  increasing and convex, R(1) = 1, and R'(1) = E[φ'²]/E[φ²] (relu2: 2/(3/2) = 4/3 > 1: c = 1
  repels); R(c) ≥ 0 > c on [−1, 0) as φ ≥ 0 (relu2), R(0) = k(0)/k(1) > 0. F(c) = R(c) − c is
  convex with F(0) > 0, F(1) = 0 and F'(1) > 0, so it has exactly one zero c* in (0, 1), where
  R'(c*) < 1: the stable fixed point, reached from every c0 in [−1, 1), at the rate R'(c*)
  (depth_scale_c = −1/ln R'(c*)). The proof brackets c* by two exact points where F changes
  sign.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import factorial
from typing import Any, NamedTuple

from flint import arb

from ...catalog.kernels import BALL_KERNELS
from ...engine.gaussian_balls import as_arb
from ...tier import Precision, arb_precision

# Newton steps at most (quadratic convergence from c = 0: a few dozen cover 1000 digits).
NEWTON_STEPS = 200


class Homogeneous(NamedTuple):
    """φ positively homogeneous of degree n > 1: A(1) = E[φ(Z)²], the unit kernel
    c -> (k(c), k'(c)) = (E[φ(u)φ(v)], E[φ'(u)φ'(v)]) on balls (unit variances, correlation c),
    whether c* = 0 exactly (an odd monomial), and how the kernel is known (for the note)."""

    degree: int
    second: Fraction
    kernel: Callable[[arb], tuple[arb, arb]]
    odd: bool
    source: str


def _double_factorial(n: int) -> int:
    out = 1
    while n > 1:
        out, n = out * n, n - 2
    return out


def homogeneous(act: Any) -> Homogeneous | None:
    """relu2 (catalog), or an expression κ·x^n with rational κ ≠ 0 and n ≥ 2; else None."""
    if not act.expression:
        if act.name != "relu2":
            return None
        relu2 = BALL_KERNELS["relu2"]
        return Homogeneous(
            2,
            Fraction(3, 2),
            lambda c: relu2(arb(1), arb(1), c, {}),
            False,
            "the degree-2 arc-cosine kernel (Cho & Saul 2009)",
        )
    from ...catalog.expression_ball import polynomial_terms, rational_constant

    terms = None if act.tree is None else polynomial_terms(act.tree, rational_constant)
    if terms is None or any(c is None for c in terms.values()):
        return None
    terms = {k: Fraction(c) for k, c in terms.items() if c != 0}
    if len(terms) != 1:
        return None
    ((n, kappa),) = terms.items()
    if n < 2:
        return None
    # κ²·a_k²·k!, the coefficient of c^k in k(c)
    weights = {
        k: kappa
        * kappa
        * Fraction(factorial(n), factorial(k) * factorial((n - k) // 2) * 2 ** ((n - k) // 2)) ** 2
        * factorial(k)
        for k in range(n % 2, n + 1, 2)
    }

    def kernel(c: arb) -> tuple[arb, arb]:
        value = sum((as_arb(w) * c**k for k, w in weights.items()), arb(0))
        slope = sum((as_arb(w * k) * c ** (k - 1) for k, w in weights.items() if k), arb(0))
        return value, slope

    return Homogeneous(
        n,
        kappa * kappa * _double_factorial(2 * n - 1),
        kernel,
        n % 2 == 1,
        f"E[u^{n} v^{n}] by Mehler's expansion",
    )


def applies(act: Any, sigma_b2: Fraction | Any) -> bool:
    return sigma_b2 == 0 and homogeneous(act) is not None


def reaches_zero(act: Any, sigma_w2: Fraction, q0: Fraction) -> bool:
    """Does q -> σ_w²·A(1)·q^n fall to 0 from q0 (x0 = (σ_w²·A(1))^(1/(n−1))·q0 < 1)?"""
    found = homogeneous(act)
    assert found is not None
    return (sigma_w2 * found.second) * q0 ** (found.degree - 1) < 1


def correlation_fixed_point(act: Any, digits: int) -> tuple[arb | Fraction, arb]:
    """(c*, R'(c*)): c* = 0 exactly for an odd monomial, else a ball between two exact points
    where R(c) − c changes sign."""
    found = homogeneous(act)
    assert found is not None
    bits = Precision(digits + 20, guard=0).bits
    with arb_precision(bits):
        top = as_arb(found.second)

        def f(c: arb) -> arb:
            return found.kernel(c)[0] / top - c

        def slope(c: arb) -> arb:
            return found.kernel(c)[1] / top

        if found.odd:
            return Fraction(0), slope(arb(0))
        c = arb(0)
        width = arb(2) ** (-(bits - 16))
        for _ in range(NEWTON_STEPS):
            step = f(c) / (slope(c) - 1)
            c = arb((c - step).mid())
            if abs(step.mid()) < width:
                break
        low, high = arb((c - width).mid()), arb((c + width).mid())
        if not (f(low) > 0 and f(high) < 0):
            raise ArithmeticError("the correlation fixed point was not bracketed")
        c_star = low.union(high)
        return c_star, slope(c_star)
