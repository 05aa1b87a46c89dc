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
Gauss–Hermite rule in the Cholesky coordinates: 10 nodes along T1, 8 along T2 given T1 and 3
along T3 given (T1, T2), the third cumulant's own direction, on which N_p depends weakly
(``NODES``, 228 nodes). Measured by ``scripts/gau_negative_nodes.py`` over the 119
configurations (10 activations, λ 0.3–2, s 8–512) where the relu removes ≥ 0.1 % of E[O²]:
against 10 nodes in every direction (824) this rule moves E[O²] by ≤ 0.15 % and the removed
part of E[A_ij] by ≤ 1.6 %, and against 24 a direction both differ alike (E[O²] ≤ 4.5 % and
4.4 %, the removed part ≤ 5.8 % and 4.9 %, both at s = 8, within the ± the estimate states
there). Against Monte Carlo of the iid-entries model (4·10⁵ draws) the removed part comes out
within 2.5 % of itself at s = 128 and within 15 % at s = 32 (where the relu removes 1–9 % of
E[A_ij·A_ik]); the Gaussian law for G alone overstates it up to twice.
Double precision in plain Python (no numpy or scipy to import on every gau-scale call): the
result is an approximation whose error is far above rounding.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

# Gauss–Hermite nodes along T1, T2 given T1, and T3 given (T1, T2) (the module docstring).
NODES = (10, 8, 3)
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


@functools.lru_cache(maxsize=8)
def hermite_nodes(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Gauss rule for N(0, 1): the roots of He_n (Newton's method, each kept inside its bracket
    between the interlacing roots of He_(n-1), from n = 1 up) and weights 1/(n·He_(n-1)(x)²),
    normalised."""
    roots: list[float] = []
    for order in range(1, n + 1):
        edges = [-2 * math.sqrt(order) - 2, *roots, 2 * math.sqrt(order) + 2]
        found = []
        for lo, hi in zip(edges, edges[1:]):
            flo = _he(order, lo)[0]
            x = (lo + hi) / 2
            for _ in range(100):
                value, previous = _he(order, x)
                if value == 0:
                    break
                if (value < 0) == (flo < 0):
                    lo = x
                else:
                    hi = x
                step = value / (order * previous)  # He_n' = n·He_(n-1)
                if abs(step) <= 1e-10 * max(1.0, abs(x)):
                    x -= step  # converging quadratically: this step leaves it at rounding level
                    break
                x -= step
                if not lo < x < hi:  # a Newton step out of the bracket: bisect instead
                    x = (lo + hi) / 2
            found.append(x)
        roots = found
    weights = [1.0 / (n * _he(n, x)[1] ** 2) for x in roots]
    total = sum(weights)
    return tuple(roots), tuple(w / total for w in weights)


def kummer_pair(shape: float, c: float) -> tuple[float, float]:
    """Kummer's (M(3, shape + 3, c), M(5, shape + 5, c)) for c ≥ 0 by their series (positive
    terms), in one loop: each ends within a term of its first term below 1e-17 of its sum."""
    b2, b4 = shape + 3.0, shape + 5.0
    t2 = s2 = t4 = s4 = 1.0
    j = 0.0
    while True:  # two terms a pass (a term past the first below 1e-17 of its sum leaves the sum alike)
        r = c / (j + 1.0)
        t2 *= (3.0 + j) / (b2 + j) * r
        t4 *= (5.0 + j) / (b4 + j) * r
        s2 += t2
        s4 += t4
        r = c / (j + 2.0)
        t2 *= (4.0 + j) / (b2 + 1.0 + j) * r
        t4 *= (6.0 + j) / (b4 + 1.0 + j) * r
        s2 += t2
        s4 += t4
        j += 2.0
        if t2 < 1e-17 * s2 or t4 < 1e-17 * s4 or j > MAX_TERMS:
            break
    # one of them has ended: the other goes on alone
    while t2 >= 1e-17 * s2 and j <= MAX_TERMS:
        t2 *= (3.0 + j) / (b2 + j) * c / (j + 1.0)
        s2 += t2
        j += 1.0
    while t4 >= 1e-17 * s4 and j <= MAX_TERMS:
        t4 *= (5.0 + j) / (b4 + j) * c / (j + 1.0)
        s4 += t4
        j += 1.0
    return s2, s4


def negative_parts(m: Sequence[float], s: float, nodes: tuple[int, int, int] = NODES) -> dict[str, float]:
    """E over Z_i of the negative parts, in units of the moments ``m`` (m[p] = E[Y^p], p ≤ 6):

    ``offdiag`` E[N_2], ``P2`` E[N_4], ``P3`` E[T2²·N_2], ``P4`` E[2·g·N_2 − N_2²] with
    g = E[G² | Z_i] = κ1² + κ2 (what E[relu(G_ij)²·relu(G_ik)²] loses against E[g²]).

    Remembered by (m, s, nodes): a sweep over n, d or e asks the same again."""
    return dict(_negative_parts(tuple(m), s, nodes))


@functools.lru_cache(maxsize=256)
def _negative_parts(
    m: tuple[float, ...], s: float, nodes: tuple[int, int, int]
) -> tuple[tuple[str, float], ...]:
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
    log2, log24 = math.log(2), math.log(24)  # log p! for p = 2, 4
    # plain Python doubles, as little interpreter work per node as the formulas above allow
    offdiag = part2 = part3 = part4 = 0.0
    for weight, a1, a2, a3 in _rule(nodes):
        t1 = mean[0] + (L0[0] * a1 + L0[1] * a2 + L0[2] * a3)
        t2 = mean[1] + (L1[0] * a1 + L1[1] * a2 + L1[2] * a3)
        t3 = mean[2] + (L2[0] * a1 + L2[1] * a2 + L2[2] * a3)
        if t2 < floor:
            t2 = floor
        K1, K2, K3 = m[1] * t1, v * t2, k3 * t3
        shape = 4 * K2**3 / K3**2 if K3 > 1e-9 * K2**1.5 else math.inf
        if shape < MAX_SHAPE and K1 > 0:
            theta = K3 / (2 * K2)
            c = shape - K1 / theta
            N2 = N4 = 0.0
            if c > 0:
                log_c = math.log(c)
                base = shape * log_c - c
                log2j = base + 2 * log_c + log2 - math.lgamma(shape + 3)
                log4j = base + 4 * log_c + log24 - math.lgamma(shape + 5)
                if log2j > -700 or log4j > -700:
                    M2, M4 = kummer_pair(shape, c)
                    theta2 = theta * theta
                    if log2j > -700:
                        N2 = theta2 * math.exp(log2j) * M2
                    if log4j > -700:
                        N4 = theta2 * theta2 * math.exp(log4j) * M4
        else:
            sd = math.sqrt(K2)
            al = max(-40.0, min(40.0, -K1 / sd))
            below = 0.5 * math.erfc(-al / math.sqrt(2))
            dens = math.exp(-al * al / 2) / math.sqrt(2 * math.pi)
            tr = [below, -dens, below - al * dens, -(al * al + 2) * dens, 3 * below - (al**3 + 3 * al) * dens]
            N2, N4 = (
                sum(math.comb(p, r) * K1 ** (p - r) * sd**r * tr[r] for r in range(p + 1)) for p in (2, 4)
            )
        g2 = K1 * K1 + K2
        offdiag += weight * N2
        part2 += weight * N4
        part3 += weight * t2**2 * N2
        part4 += weight * (2 * g2 * N2 - N2**2)
    return (("offdiag", offdiag), ("P2", part2), ("P3", part3), ("P4", part4))


@functools.lru_cache(maxsize=4)
def _rule(nodes: tuple[int, int, int]) -> tuple[tuple[float, float, float, float], ...]:
    """The product Gauss–Hermite rule in three dimensions (``nodes[d]`` nodes along dimension d)
    as (weight, x1, x2, x3), without the corners whose weight is below 1e-8 of the largest
    (they move the result by < 1e-7 of itself)."""
    (x1, w1), (x2, w2), (x3, w3) = (hermite_nodes(n) for n in nodes)
    wmax = max(w1) * max(w2) * max(w3)
    rule = []
    for a1, v1 in zip(x1, w1):
        for a2, v2 in zip(x2, w2):
            for a3, v3 in zip(x3, w3):
                weight = v1 * v2 * v3
                if weight >= 1e-8 * wmax:
                    rule.append((weight, a1, a2, a3))
    return tuple(rule)
