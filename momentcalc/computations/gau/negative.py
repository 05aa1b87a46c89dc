"""The relu in A = relu²(Z Zᵀ)/(n·s): the part of ⟨Z_i, Z_j⟩² it removes (used by ``gau_full``).

For i ≠ j, G = ⟨Z_i, Z_j⟩ = Σ_a z_ia·Y_a. Given the row Z_i, G is a sum of s independent
terms with cumulants

    κ1 = m1·T1,   κ2 = (m2 − m1²)·T2,   κ3 = k3·T3,     T_p = Σ_a z_ia^p,  k3 = E[(Y − m1)³]

(negative with probability about 8 % for swish at s = 128). Its negative part
N_p = E[G^p·1{G < 0} | Z_i] is taken from the shifted gamma law with these three cumulants
(a Gaussian where κ3 ≤ 0): G = κ1 − k·θ + θ·Γ(k), k = 4κ2³/κ3², θ = κ3/(2κ2), so that with
c = k − κ1/θ > 0

    N_p = (−θ)^p · E[(c − Γ)^p; Γ < c] = (−θ)^p · c^(k+p)·e^(−c)·p!/Γ(k+p+1) · M(p+1, k+p+1, c)

(Kummer's M, all terms positive). The outer expectation over the row Z_i takes (T1, T2, T3) as
Gaussian with their exact means and covariances (s·(m_{p+q} − m_p·m_q)), by a product
Gauss–Hermite rule (10 nodes a dimension; 16 move the result by < 0.3 %). Against Monte Carlo of the iid-entries model (4·10⁵ draws) the removed
part comes out within 2.5 % of itself at s = 128 and within 15 % at s = 32 (where the relu
removes 1–9 % of E[A_ij·A_ik]); the Gaussian law for G alone overstates it up to twice.
Double precision in plain Python (no numpy or scipy to import on every gau-scale call): the
result is an approximation whose error is far above rounding.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

NODES = 10  # Gauss–Hermite nodes per dimension
# The gamma law where G given Z_i is skewed (shape below this) and its mean positive; a Gaussian
# otherwise (there the skewness 2/sqrt(shape) is small, and Kummer's series would be long).
MAX_SHAPE = 2000
MAX_TERMS = 200000


def _he(n: int, x: float) -> tuple[float, float]:
    """(He_n(x), He_{n-1}(x)) by the three-term recurrence."""
    a, b = 1.0, x
    if n == 0:
        return 1.0, 0.0
    for k in range(1, n):
        a, b = b, x * b - k * a
    return b, a


@functools.lru_cache(maxsize=4)
def hermite_nodes(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Gauss rule for N(0, 1): the roots of He_n (found by bisection between the interlacing
    roots of He_(n-1), from n = 1 up) and weights 1/(n·He_(n-1)(x)²), normalised."""
    roots = []
    for order in range(1, n + 1):
        edges = [-2 * math.sqrt(order) - 2, *roots, 2 * math.sqrt(order) + 2]
        found = []
        for lo, hi in zip(edges, edges[1:]):
            flo = _he(order, lo)[0]
            for _ in range(200):
                mid = (lo + hi) / 2
                fmid = _he(order, mid)[0]
                if (fmid < 0) == (flo < 0):
                    lo, flo = mid, fmid
                else:
                    hi = mid
                if hi - lo < 1e-15 * max(1.0, abs(mid)):
                    break
            found.append((lo + hi) / 2)
        roots = found
    weights = [1.0 / (n * _he(n, x)[1] ** 2) for x in roots]
    total = sum(weights)
    return tuple(roots), tuple(w / total for w in weights)


def kummer(a: float, b: float, c: float) -> float:
    """Kummer's M(a, b, c) for c ≥ 0 by its series (positive terms)."""
    term = total = 1.0
    k = 0
    while True:
        term *= (a + k) / (b + k) * c / (k + 1)
        total += term
        k += 1
        if term < 1e-17 * total or k > MAX_TERMS:
            return total

def negative_parts(m: Sequence[float], s: float, nodes: int = NODES) -> dict[str, float]:
    """E over Z_i of the negative parts, in units of the moments ``m`` (m[p] = E[Y^p], p ≤ 6):

    ``offdiag`` E[N_2], ``P2`` E[N_4], ``P3`` E[T2²·N_2], ``P4`` E[2·g·N_2 − N_2²] with
    g = E[G² | Z_i] = κ1² + κ2 (what E[relu(G_ij)²·relu(G_ik)²] loses against E[g²]).

    Remembered by (m, s, nodes): a sweep over n, d or e asks the same again."""
    return dict(_negative_parts(tuple(m), s, nodes))


@functools.lru_cache(maxsize=256)
def _negative_parts(m: tuple[float, ...], s: float, nodes: int) -> tuple[tuple[str, float], ...]:
    v = m[2] - m[1] ** 2
    k3 = m[3] - 3 * m[1] * m[2] + 2 * m[1] ** 3
    mean = [s * m[1], s * m[2], s * m[3]]
    cov = [[s * (m[a + b] - m[a] * m[b]) for b in (1, 2, 3)] for a in (1, 2, 3)]
    # Cholesky factor (a zero pivot, as for a two-valued φ, leaves that direction out)
    L = [[0.0] * 3 for _ in range(3)]
    for i in range(3):
        for j in range(i + 1):
            acc = cov[i][j] - sum(L[i][k] * L[j][k] for k in range(j))
            if i == j:
                L[i][j] = math.sqrt(max(acc, 0.0))
            else:
                L[i][j] = acc / L[j][j] if L[j][j] > 0 else 0.0
    L0, L1, L2 = L
    floor = 1e-9 * mean[1]
    log_factorial = {p: math.lgamma(p + 1) for p in (2, 4)}
    # plain Python, the same operations in the same order as the formulas above (the caller's
    # floats are part of gau-scale's output), with as little interpreter work per node as that allows
    offdiag = part2 = part3 = part4 = 0.0
    for weight, a1, a2, a3 in _rule(nodes):
        t1 = mean[0] + sum([L0[0] * a1, L0[1] * a2, L0[2] * a3])
        t2 = mean[1] + sum([L1[0] * a1, L1[1] * a2, L1[2] * a3])
        t3 = mean[2] + sum([L2[0] * a1, L2[1] * a2, L2[2] * a3])
        t2 = max(t2, floor)
        K1, K2, K3 = m[1] * t1, v * t2, k3 * t3
        shape = 4 * K2 ** 3 / K3 ** 2 if K3 > 1e-9 * K2 ** 1.5 else math.inf
        if shape < MAX_SHAPE and K1 > 0:
            theta = K3 / (2 * K2)
            c = shape - K1 / theta
            N2 = N4 = 0.0
            if c > 0:
                log_c = math.log(c)
                logj = (shape + 2) * log_c - c + log_factorial[2] - math.lgamma(shape + 2 + 1)
                if logj > -700:
                    N2 = (-theta) ** 2 * math.exp(logj) * kummer(2 + 1, shape + 2 + 1, c)
                logj = (shape + 4) * log_c - c + log_factorial[4] - math.lgamma(shape + 4 + 1)
                if logj > -700:
                    N4 = (-theta) ** 4 * math.exp(logj) * kummer(4 + 1, shape + 4 + 1, c)
        else:
            sd = math.sqrt(K2)
            al = max(-40.0, min(40.0, -K1 / sd))
            below = 0.5 * math.erfc(-al / math.sqrt(2))
            dens = math.exp(-al * al / 2) / math.sqrt(2 * math.pi)
            tr = [below, -dens, below - al * dens, -(al * al + 2) * dens, 3 * below - (al ** 3 + 3 * al) * dens]
            N2, N4 = (sum(math.comb(p, r) * K1 ** (p - r) * sd ** r * tr[r] for r in range(p + 1)) for p in (2, 4))
        g2 = K1 * K1 + K2
        offdiag += weight * N2
        part2 += weight * N4
        part3 += weight * t2 ** 2 * N2
        part4 += weight * (2 * g2 * N2 - N2 ** 2)
    return (("offdiag", offdiag), ("P2", part2), ("P3", part3), ("P4", part4))


@functools.lru_cache(maxsize=4)
def _rule(nodes: int) -> tuple[tuple[float, float, float, float], ...]:
    """The product Gauss–Hermite rule in three dimensions as (weight, x1, x2, x3), without the
    corners whose weight is below 1e-8 of the largest (they move the result by < 1e-7 of itself)."""
    x, w = hermite_nodes(nodes)
    wmax = max(w) ** 3
    rule = []
    for i1, a1 in enumerate(x):
        for i2, a2 in enumerate(x):
            for i3, a3 in enumerate(x):
                weight = w[i1] * w[i2] * w[i3]
                if weight >= 1e-8 * wmax:
                    rule.append((weight, a1, a2, a3))
    return tuple(rule)
