"""q* = 0 for a positively homogeneous activation of degree n > 1 with a closed kernel (relu2,
n = 2), σ_b² = 0: what the network does, proven.

* The length map is q -> σ_w²·A(q) with A(q) = q^n·A(1) (relu2: A(1) = E[relu(Z)⁴] = 3/2): with
  x = (σ_w²·A(1))^(1/(n−1))·q it is x -> x^n, so q -> 0 from q0 exactly when x0 < 1 (x0 = 1 is
  the repelling fixed point above 0; beyond it q grows without bound). χ₁ = σ_w²·E[φ'(√q*·Z)²]
  = 0 at q* = 0 (φ'(0) = 0), and the length map's slope there is 0: depth_scale_q = 0 (q falls
  faster than any exponential).
* The correlation map does not depend on q: E[φ(u)φ(v)] = q^n·k(c) for unit-free k, so with
  σ_b² = 0 every layer maps c -> R(c) = k(c)/k(1), the same map at every depth (not only in the
  limit q -> 0). relu2: k(c) = J₂(θ)/(2π), θ = arccos c, J₂ = 3·sin θ·cos θ + (π − θ)(1 + 2cos²θ)
  (Cho & Saul 2009), R(c) = J₂(θ)/(3π), R'(c) = E[φ'(u)φ'(v)]/k(1) = 4·J₁(θ)/(3π).
* R has a Hermite expansion with nonnegative coefficients (Mehler), so on [0, 1] it is
  increasing and convex, R(1) = 1, and R'(1) = E[φ'²]/E[φ²] (relu2: 2/(3/2) = 4/3 > 1: c = 1
  repels); R(c) ≥ 0 > c on [−1, 0) as φ ≥ 0 (relu2), R(0) = k(0)/k(1) > 0. F(c) = R(c) − c is
  convex with F(0) > 0, F(1) = 0 and F'(1) > 0, so it has exactly one zero c* in (0, 1), where
  R'(c*) < 1: the stable fixed point, reached from every c0 in [−1, 1), at the rate R'(c*)
  (depth_scale_c = −1/ln R'(c*)). The proof brackets c* by two exact points where F changes
  sign.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from flint import arb

from ...catalog.kernels import BALL_KERNELS
from ...tier import Precision, arb_precision

# Degree n of the positively homogeneous catalog entries with a closed kernel and n > 1, and
# A(1) = E[φ(Z)²] (relu2: E[relu(Z)⁴] = 3/2).
DEGREE: dict[str, tuple[int, Fraction]] = {"relu2": (2, Fraction(3, 2))}
# Newton steps at most (quadratic convergence from c = 0: a few dozen cover 1000 digits).
NEWTON_STEPS = 200


def applies(name: str, expression: bool, sigma_b2: Fraction) -> bool:
    return not expression and name in DEGREE and sigma_b2 == 0


def reaches_zero(name: str, sigma_w2: Fraction, q0: Fraction) -> bool:
    """Does q -> σ_w²·A(1)·q^n fall to 0 from q0 (x0 = (σ_w²·A(1))^(1/(n−1))·q0 < 1)?"""
    n, a1 = DEGREE[name]
    return (sigma_w2 * a1) * q0 ** (n - 1) < 1


def correlation_fixed_point(name: str, params: Mapping[str, Any], digits: int) -> tuple[arb, arb]:
    """(c*, R'(c*)) as balls: c* between two exact points where R(c) − c changes sign."""
    kernel = BALL_KERNELS[name]
    bits = Precision(digits + 20, guard=0).bits
    with arb_precision(bits):
        one = arb(1)
        top = kernel(one, one, one, params)[0]

        def f(c: arb) -> arb:
            return kernel(one, one, c, params)[0] / top - c

        def slope(c: arb) -> arb:
            return kernel(one, one, c, params)[1] / top

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
