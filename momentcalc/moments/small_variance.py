"""Gaussian moments and kernels of a half-line Laurent activation at a small variance, from its
Taylor series at the kink: no integral, a cost that falls as the variance does.

A deep network of softsign at σ_b² = 0 has a variance that fades like 1/L² (softsign(x) =
x − x·|x| + …, so q' ≈ q − c·q^{3/2}), and the generic kinked routes (``bivariate_kinked``: a
univariate integral at every node of the outer rule) cost about 0.2 s a layer however small q
gets. Here, for an entry of ``catalog.ball_functions.HALF_LINE_LAURENT`` (softsign = x/(1 + |x|)):
on the half-line σx > 0 (σ = ±1), with t = |x| = σx, every integrand is a Laurent polynomial
Σ_k c_k·(1 + t)^k, and Taylor's theorem with Lagrange's remainder on t ≥ 0 gives, for k < 0,

    (1 + t)^k = Σ_{j<n} C(k, j)·t^j + r,   |r| ≤ |C(k, n)|·t^n

(|d^n/dt^n (1 + t)^k| = |k(k − 1)…(k − n + 1)|·(1 + t)^{k−n} ≤ |k(k − 1)…(k − n + 1)| for
t ≥ 0); for k ≥ 0 the binomial sum is exact. So on each half-line g = P_σ(t) + r_σ with a
polynomial P_σ and |r_σ| ≤ B_σ·t^n on the whole half-line (not only near the kink: the
Gaussian's tails need no separate bound).

Univariate, X ~ N(0, v): E[t^j; σX > 0] = v^{j/2}·h_j with h_j = E[Z^j; Z > 0], h_0 = 1/2,
h_1 = 1/√(2π), h_j = (j − 1)·h_{j−2}; so E[g] = Σ_σ (Σ_j P_σ[j]·v^{j/2}·h_j ± B_σ·v^{n/2}·h_n).
These are increasing in v, so a ball of variances gives a ball holding the value at each of them.

Bivariate, u = s1·X, v = s2·Y with (X, Y) standard of correlation ρ: the orthant moments
M_ρ(j, k) = E[X^j·Y^k; X > 0, Y > 0] follow from Gaussian integration by parts, E[X·f] =
E[∂_x f] + ρ·E[∂_y f] for f = X^{j−1}·Y^k·1{X > 0}·1{Y > 0} (the indicators' derivatives are
deltas on X = 0 and Y = 0, where the other variable is N(0, 1 − ρ²) at density 1/√(2π)):

    M(j, k) = (j − 1)·M(j − 2, k) + [j = 1]·e^k·h_k/√(2π)
              + ρ·(k·M(j − 1, k − 1) + [k = 0]·e^{j−1}·h_{j−1}/√(2π)),   e = sqrt(1 − ρ²),

M(0, k) = M(k, 0) and M(0, 0) = 1/4 + arcsin(ρ)/(2π) (Sheppard's orthant probability; Kamat,
1953, "Incomplete and absolute moments of the multivariate normal distribution"). The orthant
σX > 0, τY > 0 is M at correlation στρ, and |u|^j·|v|^k there has expectation s1^j·s2^k·M. With
f = P_f + r_f, g = P_g + r_g: fg − P_f·P_g = r_f·g + P_f·r_g, and |g| ≤ |P_g| + B_g·|v|^n, so

    |E[f(u)g(v)] − E[P_f(u)P_g(v)]| ≤ Σ_{σ,τ} B_f·s1^n·(Σ_k |b_k|·M(n, k) + B_g·s2^n·M(n, n))
                                           + Σ_j |a_j|·B_g·s2^n·M(j, n)

(a_j = P_f[j]·s1^j, b_k = P_g[k]·s2^k, M of the orthant's correlation). The order n is the
least whose bound falls below 10^−(digits+3) of the integrand's size; where that would take
more than MAX_ORDER terms (the series is asymptotic: the variance is not small) the route
does not apply (None: the caller's integrals).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction

from flint import arb, arb_mat, ctx

from ..catalog import Activation
from ..catalog.ball_functions import HALF_LINE_LAURENT
from ..engine.gaussian_balls import as_arb
from ..engine.precision import Precision
from .laurent import Laurent, laurent_power, laurent_times
from .monomials import Monomial, vanishes

# The most Taylor terms tried; beyond, the variance is too large for the series.
MAX_ORDER = 60
# Guard bits above the digits' ball bits.
GUARD_BITS = 32

# A half-line's integrand in t = |x|: (σ, polynomial coefficients, remainder bound B: |r| ≤ B·t^n)
Series = tuple[int, list[arb], arb]


def applies(act: Activation) -> bool:
    """Whether the route knows ``act``: a catalog entry of HALF_LINE_LAURENT."""
    return not act.expression and act.name in HALF_LINE_LAURENT


def _sides(act: Activation) -> list[tuple[int, Laurent, Laurent]]:
    """(σ, φ, φ') on each half-line as Laurent polynomials in 1 + σx, at the current precision."""
    given = dict(act.values)
    params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}
    return [
        (int(side), {k: as_arb(c) for k, c in f.items()}, {k: as_arb(c) for k, c in d.items()})
        for side, f, d in HALF_LINE_LAURENT[act.name](params)
    ]


def _binomial(k: int, j: int) -> int:
    """C(k, j) = k(k − 1)…(k − j + 1)/j! for any integer k (C(−m, j) = (−1)^j·C(m + j − 1, j))."""
    if k >= 0:
        return math.comb(k, j)
    return (-1) ** j * math.comb(-k + j - 1, j)


def taylor(laurent: Laurent, n: int) -> tuple[list[arb], arb]:
    """Σ_k c_k·(1 + t)^k as a polynomial in t (its coefficients) and B ≥ 0 with the remainder
    at most B·t^n for every t ≥ 0 (module docstring)."""
    degree = max([n - 1, *(k for k in laurent if k >= 0)])
    poly = [arb(0)] * (degree + 1)
    bound = arb(0)
    for k, c in laurent.items():
        for j in range(k + 1 if k >= 0 else n):
            poly[j] += c * _binomial(k, j)
        if k < 0:
            bound += abs(c) * abs(_binomial(k, n))
    return poly, arb(bound.upper())


def half_moments(n: int) -> list[arb]:
    """h_j = E[Z^j; Z > 0] for j = 0..n, Z ~ N(0, 1)."""
    h = [arb(1) / 2, 1 / (2 * arb.pi()).sqrt()]
    for j in range(2, n + 1):
        h.append((j - 1) * h[j - 2])
    return h[: n + 1]


def _order(v: float, digits: int, lowest: int) -> int | None:
    """The least n whose remainder v^{n/2}·E|Z|^n·(n + 2)², against the size v^{lowest/2},
    falls below 10^−(digits + 4) (an estimate in floats: the balls decide), or None past
    MAX_ORDER."""
    if not v > 0:
        return None
    target = -(digits + 4) * math.log(10)
    log_v = math.log(v)
    for n in range(lowest + 1, MAX_ORDER + 1):
        size = (n - lowest) / 2 * log_v + math.lgamma((n + 1) / 2) + n / 2 * math.log(2)
        if size + 2 * math.log(n + 2) - 0.5 * math.log(math.pi) < target:
            return n
    return None


def _upper_float(q: Fraction | arb) -> float:
    if isinstance(q, (Fraction, int)):
        return float(q)
    return float(arb(q.upper()).mid())


def small_variance_moments(
    act: Activation, monomials: Sequence[Monomial], q: Fraction | arb, digits: int
) -> list[arb] | None:
    """E[x^a·φ^b·φ'^c] under N(0, v) for every v in ``q`` (a number or a ball), each with a
    radius at most 10^−(digits+3) of its value (0 where the symmetry makes it 0), or None where
    the route does not apply (module docstring)."""
    if not applies(act) or not monomials:
        return None
    out: list[arb] = []
    for monomial in monomials:
        if vanishes(monomial, act.parity):
            out.append(arb(0))
            continue
        found = _moment(act, monomial, q, digits)
        if found is None:
            return None
        out.append(found)
    return out


def _attempts(n: int, digits: int) -> Iterator[tuple[int, int]]:
    """(series order, working bits) of each try: the estimated order at the digits' ball bits,
    then, where that ball was too wide, half as many terms again at twice the bits (within
    MAX_ORDER)."""
    bits = Precision(digits).ball_bits + GUARD_BITS
    for _ in range(2):
        yield n, bits
        n += max(4, n // 2)
        bits *= 2
        if n > MAX_ORDER:
            return


def _moment(act: Activation, monomial: Monomial, q: Fraction | arb, digits: int) -> arb | None:
    a, b, c = monomial
    order = _order(_upper_float(q), digits, a + b)
    if order is None:
        return None
    for n, bits in _attempts(order, digits):
        with ctx.workprec(bits):
            v = as_arb(q)
            if not v > 0:
                return None
            root = v.sqrt()
            total = arb(0)
            for side, f, d in _sides(act):
                x = {1: arb(side), 0: arb(-side)}  # x = σ(q − 1) in q = 1 + t
                g = laurent_times(
                    laurent_times(laurent_power(x, a), laurent_power(f, b)), laurent_power(d, c)
                )
                poly, bound = taylor(g, n)
                h = half_moments(max(len(poly), n + 1))
                powers = [arb(1)]
                for _ in range(max(len(poly), n + 1)):
                    powers.append(powers[-1] * root)
                for j, p in enumerate(poly):
                    total += p * powers[j] * h[j]
                total += arb(0, (bound * powers[n] * h[n]).upper())
            if total.mid() != 0 and total.rad() <= abs(total.mid()) * arb(10) ** (-(digits + 3)):
                return total
    return None


def orthant_moments(rho: arb, size: int) -> list[list[arb]]:
    """M[j][k] = E[X^j·Y^k; X > 0, Y > 0] for j, k ≤ ``size``, (X, Y) standard normal with
    correlation ``rho`` (|ρ| < 1; the recurrence of the module docstring)."""
    e = (1 - rho * rho).sqrt()
    g = 1 / (2 * arb.pi()).sqrt()
    h = half_moments(size)
    e_pow = [arb(1)]
    for _ in range(size):
        e_pow.append(e_pow[-1] * e)
    edge = [g * e_pow[k] * h[k] for k in range(size + 1)]  # E[δ(X)·Y^k·1{Y > 0}]
    M = [[arb(0)] * (size + 1) for _ in range(size + 1)]
    M[0][0] = arb(1) / 4 + rho.asin() / (2 * arb.pi())
    for total in range(1, 2 * size + 1):
        for j in range(min(total, size), 0, -1):
            k = total - j
            if k > size:
                break
            value = (j - 1) * M[j - 2][k] if j >= 2 else edge[k]
            value += rho * (k * M[j - 1][k - 1] if k >= 1 else edge[j - 1])
            M[j][k] = value
        if total <= size:
            M[0][total] = M[total][0]
    return M


def small_variance_kernel(
    act: Activation, rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb, digits: int
) -> tuple[arb, arb] | None:
    """(E[φ(u)φ(v)], E[φ'(u)φ'(v)]) for Var u = q1, Var v = q2 and correlation |ρ| < 1, each
    within 10^−(digits+3) of its integrand's size, or None where the route does not apply
    (module docstring)."""
    if not applies(act):
        return None
    order = _order(max(_upper_float(q1), _upper_float(q2)), digits, 1)
    if order is None:
        return None
    for n, bits in _attempts(order, digits):
        with ctx.workprec(bits):
            r = as_arb(rho)
            v1, v2 = as_arb(q1), as_arb(q2)
            if not (r.upper() < 1 and r.lower() > -1 and v1 > 0 and v2 > 0):
                return None
            sides = _sides(act)
            degree = max([n, *(len(taylor(laurent, n)[0]) - 1 for _, f, d in sides for laurent in (f, d))])
            tables = {s: arb_mat(orthant_moments(s * r, degree)) for s in (1, -1)}
            s1, s2 = v1.sqrt(), v2.sqrt()
            out = []
            for i in (1, 2):
                series = [(side, *taylor((f, d)[i - 1], n)) for side, f, d in sides]
                value = _cross(series, tables, s1, s2, n, degree, digits)
                if value is None:
                    break
                out.append(value)
            if len(out) == 2:
                return out[0], out[1]
    return None


def _scaled(poly: list[arb], s: arb, degree: int) -> tuple[arb_mat, arb_mat]:
    """(P[j]·s^j, |P[j]|·s^j) for j ≤ ``degree`` as column vectors."""
    values, sizes = [], []
    power = arb(1)
    for j in range(degree + 1):
        p = poly[j] if j < len(poly) else arb(0)
        values.append([p * power])
        sizes.append([abs(p) * power])
        power *= s
    return arb_mat(values), arb_mat(sizes)


def _cross(
    series: list[Series],
    tables: dict[int, arb_mat],
    s1: arb,
    s2: arb,
    n: int,
    degree: int,
    digits: int,
) -> arb | None:
    """E[g(u)g(v)] for the half-line series of g (module docstring), or None when its ball is
    wider than 10^−(digits+3) of the integrand's size."""
    total, size, error = arb(0), arb(0), arb(0)
    s1n, s2n = s1**n, s2**n
    for sigma, p_f, b_f in series:
        a, a_abs = _scaled(p_f, s1, degree)
        for tau, p_g, b_g in series:
            M = tables[sigma * tau]
            b, b_abs = _scaled(p_g, s2, degree)
            total += (a.transpose() * M * b)[0, 0]
            size += (a_abs.transpose() * M * b_abs)[0, 0]
            # row n and column n of M: the remainders against the other factor
            row = sum((M[n, k] * b_abs[k, 0] for k in range(degree + 1)), arb(0))
            column = sum((a_abs[j, 0] * M[j, n] for j in range(degree + 1)), arb(0))
            error += b_f * s1n * (row + b_g * s2n * M[n, n]) + b_g * s2n * column
    ball = total + arb(0, error.upper())
    if not size > 0 or not ball.rad() <= size.lower() * arb(10) ** (-(digits + 3)):
        return None
    return ball


__all__ = ["applies", "orthant_moments", "small_variance_kernel", "small_variance_moments", "taylor"]
