"""Certified Gaussian expectations of functions analytic in a strip, several at once, by the
whole-line trapezoidal rule with a proven error bound (Arb balls, python-flint).

For X = mean + std·T, T ~ N(0, 1), and f(t) = g(mean + std·t)·φ(t) (φ the normal density),

    E[g(X)] = ∫ f(t) dt ≈ h·Σ_{|k|≤N} f(k·h),

with two errors, both bounded, never estimated:

* discretisation (Trefethen & Weideman, "The exponentially convergent trapezoidal rule", SIAM
  Review 56 (2014), Theorem 5.1): if f is analytic in the strip |Im t| < a, decays in it, and
  ∫|f(t + ib)| dt ≤ M for |b| < a, then |∫f − h·Σ_{k∈Z} f(kh)| ≤ 2M/(e^{2πa/h} − 1). Here g
  is analytic on |Im x| ≤ w with |g(z)| ≤ P(|z|) (P a polynomial with non-negative
  coefficients, from the catalog), a = min(w/std, A_MAX), |z| ≤ |mean| + std·|t| + w and
  |e^{−(t+ib)²/2}| ≤ e^{a²/2}·e^{−t²/2}, so M ≤ e^{a²/2}·E[P(|mean| + w + std·|T|)], a sum of
  absolute normal moments E|T|^j = (j − 1)·E|T|^{j−2} (E|T|⁰ = 1, E|T| = √(2/π));
* truncation: |g(x)| ≤ Σ growth terms on the real line (``engine.gaussian_balls.Term``); beyond
  L = N·h the terms' bound G(t) decreases (checked), so h·Σ_{k>N} G(kh) ≤ ∫_L^∞ G, which
  ``engine.gaussian_balls.tail_bound`` bounds (both tails).

The nodes are equispaced, so e^{P(x)} (P a polynomial the caller names, e^x by default) and the
Gaussian weights come by recurrence (multiplications only): x_k = mean + std·h·k is linear in k,
so P(x_k) is a polynomial of degree d in k and its d-th forward difference is constant;
E_j(k) = e^{Δ^j P(x_k)} then steps as E_j(k + 1) = E_j(k)·E_{j+1}(k) (e^{x_{k±1}} = e^{x_k}·e^{±std·h}
for P(x) = x), and e^{−(k+1)²h²/2} = e^{−k²h²/2}·r_k with r_{k+1} = r_k·e^{−h²}. The caller
evaluates its functions at (x, e^{P(x)}) with arithmetic only (``values``), sharing them across
every integrand (φ, φ², φ'²).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from flint import arb, ctx

from .gaussian_balls import Term, UnboundedTail, as_arb, exact_key, normalise, tail_bound
from .balls import abs_normal_moments

# The strip half-width in t is capped: e^{a²/2} in M grows faster than e^{2πa/h} helps.
A_MAX = 4
# Beyond this many nodes the caller integrates otherwise (a very large std narrows the strip).
MAX_NODES = 150_000

Values = Callable[[arb, arb], Sequence[arb]]  # (x, e^{P(x)}) -> the integrands at x
EXP_X = (0, 1)  # P(x) = x


def strip_integral_bound(poly: Sequence[arb], a: arb, mean: arb, std: arb, width: arb) -> arb:
    """An upper bound of sup_{|b|<a} ∫|f(t + ib)| dt for |g(z)| ≤ Σ poly[k]·|z|^k on the strip."""
    base = abs(mean) + width
    moments = abs_normal_moments(len(poly))
    total = arb(0)
    for k, c in enumerate(poly):
        if c == 0:
            continue
        part = arb(0)
        for j in range(k + 1):
            part += math.comb(k, j) * base ** (k - j) * std**j * moments[j]
        total += c * part
    return arb((total * (a * a / 2).exp()).upper())


def _decreasing_from(terms: Sequence[Term], L: arb, mean: arb, std: arb) -> bool:
    """Is each term's bound c·y^k·e^{αy + βy²}·e^{−t²/2} (y = |mean| + std·t) decreasing for t ≥ L?
    Its log-derivative is k·std/y + std·(α + 2β|mean|) − t·(1 − 2β·std²), increasing in neither
    k·std/y ≤ k/t nor −t·q: negative at L means negative beyond."""
    for term in terms:
        alpha, beta = as_arb(term.a), as_arb(term.b)
        q = 1 - 2 * beta * std * std
        slope = term.k / L + std * (alpha + 2 * beta * abs(mean)) - L * q
        if not slope < 0:
            return False
    return True


def trapezoid_expectations(
    values: Values,
    strips: Sequence[Sequence[arb]],
    width: arb,
    growth: Sequence[Sequence[Term]],
    mean: Fraction,
    std: Fraction,
    goal_log2: float,
    exponent: Sequence[arb | int] = EXP_X,
    even: bool = False,
) -> list[arb] | None:
    """E[g_j(X)] for every integrand g_j that ``values`` gives, each within 2^goal_log2 (plus
    the arithmetic's own radius), at the current precision; ``strips[j]`` bounds |g_j| on
    |Im z| ≤ ``width`` (polynomial coefficients in |z|), ``growth[j]`` on the real line;
    ``values`` receives (x, e^{P(x)}) with P's coefficients ``exponent``. None when the rule
    would need more than MAX_NODES nodes. ``even``: every g_j is even about ``mean``
    (g_j(mean − y) = g_j(mean + y) exactly), so the nodes left of the mean repeat those right
    of it and are not evaluated."""
    m, s = as_arb(mean), as_arb(std)
    goal = arb(2) ** math.floor(goal_log2)
    a = arb(min(float((width / s).lower()) * (1 - 2.0**-20), A_MAX))
    if not a > 0:
        return None
    bounds = [strip_integral_bound(p, a, m, s, width) for p in strips]
    largest = max(bounds, key=lambda b: float(b.log()) if b > 0 else -math.inf)
    # h from 2M/(e^{2πa/h} − 1) ≤ goal/4, with a margin; checked in balls below.
    logs = float((8 * largest / goal + 1).log())
    h = arb(2 * math.pi * float(a.lower()) / (logs * 1.02 + 1))
    discretisation = 2 * largest / ((2 * arb.pi() * a / h).exp() - 1)
    if not discretisation <= goal / 4:
        return None
    # L: the tails below goal/4 and each growth bound decreasing beyond it.
    L = max(2.0, math.sqrt(max(0.0, -2 * goal_log2 * math.log(2))) * 0.9)
    terms = [normalise(g) for g in growth]
    # Integrands with the same growth bound (x^a·φ^b for a + b alike, when |φ| ≤ |x|) have the
    # same tail bound: each distinct bound is computed once (the same ball) and shared.
    first: dict[tuple, int] = {}
    same = [first.setdefault(_content(t), i) for i, t in enumerate(terms)]
    distinct = sorted(set(same))
    shared: dict = {}  # each term's tail at each L, for every integrand (one mean, std, precision)
    tails: arb | None = None
    while L < 10**6:
        if L / float(h.lower()) > MAX_NODES:  # give up before bounding tails no rule can reach
            return None
        Lb = arb(L)
        try:
            bounded = {i: tail_bound(terms[i], Lb, m, s, shared) for i in distinct}
        except UnboundedTail:
            return None
        parts = [p for i in same if (p := bounded[i]) is not None]
        if len(parts) == len(same) and all(_decreasing_from(terms[i], Lb, m, s) for i in distinct):
            tails = arb(0)
            for p in parts:
                tails = tails.max(p)
            if tails <= goal / 4:
                break
            # The bounds fall about like e^{−L²/2}: jump to where that reaches the goal (a
            # guess; the loop checks it), at least 5 % further.
            excess = float((tails / (goal / 4)).log().upper()) if tails > 0 else 0.0
            L = max(L * 1.05, math.sqrt(L * L + 2 * excess))
            continue
        L *= 1.05
    if tails is None or not tails <= goal / 4:
        return None
    n = math.ceil(L / float(h.lower())) + 1
    if n > MAX_NODES:
        return None
    return [
        total * h / (2 * arb.pi()).sqrt() + arb(0, arb((discretisation + tails).upper()))
        for total in _sums(values, len(strips), m, s, h, n, [as_arb(c) for c in exponent], even)
    ]


def _content(terms: Sequence[Term]) -> tuple:
    """A normalised growth bound's terms exactly (balls by midpoint and radius): equal keys,
    equal bounds."""
    return tuple((exact_key(as_arb(t.c)), t.k, exact_key(as_arb(t.a)), exact_key(as_arb(t.b))) for t in terms)


def _polynomial(coefficients: Sequence[arb], x: arb) -> arb:
    total = arb(0)
    for c in reversed(coefficients):
        total = total * x + c
    return total


def _exp_table(coefficients: Sequence[arb], m: arb, step: arb) -> list[arb]:
    """[e^{Δ^j P(x_k)} at k = 0 for j = 0..d], x_k = m + step·k: the state of the recurrence."""
    degree = len(coefficients) - 1
    row = [_polynomial(coefficients, m + step * k) for k in range(degree + 1)]
    differences = []
    for _ in range(degree + 1):
        differences.append(row[0])
        row = [b - a for a, b in zip(row, row[1:])]
    return [d.exp() for d in differences]


def _advance(table: list[arb]) -> arb:
    """Step the table from k to k + 1 (E_j ← E_j·E_{j+1}, lowest first); e^{P(x_{k+1})}."""
    for j in range(len(table) - 1):
        table[j] *= table[j + 1]
    return table[0]


def _sums(
    values: Values, count: int, m: arb, s: arb, h: arb, n: int, exponent: Sequence[arb], even: bool = False
) -> list[arb]:
    """Σ_{|k|≤n} g_j(x_k)·e^{−k²h²/2} for each j, the exponentials by recurrence (``even``:
    g_j(x_{−k}) = g_j(x_k), each pair of nodes from the right one alone)."""
    if even:
        return _even_sums(values, count, m, s, h, n, exponent)
    step = s * h
    right_table, left_table = _exp_table(exponent, m, step), _exp_table(exponent, m, -step)
    totals = [arb(0)] * count
    for j, v in enumerate(values(m, right_table[0])):
        totals[j] = v
    weight = arb(1)
    ratio = (-h * h / 2).exp()
    square = (-h * h).exp()
    x_right, x_left = m, m
    prec = ctx.prec
    precisions = _node_precisions(prec, float(h.lower()), n)  # (as ``_even_sums``)
    try:
        for k in range(n):
            weight *= ratio
            ratio *= square
            x_right += step
            x_left -= step
            e_right, e_left = _advance(right_table), _advance(left_table)
            ctx.prec = precisions[k]
            right = values(x_right, e_right)
            left = values(x_left, e_left)
            ctx.prec = prec
            for j in range(count):
                totals[j] += (right[j] + left[j]) * weight
    finally:
        ctx.prec = prec
    return totals


def gaussian_sums(values: Values, count: int, mean: arb, std: arb, h: arb, n: int) -> list[arb]:
    """Σ_{|k|≤n} g_j(mean + std·h·k)·e^{−k²h²/2} for the ``count`` integrands that ``values``
    gives at (x, e^x): the trapezoidal sums of E[g_j(mean + std·T)] times √(2π)/h, bare (the
    caller bounds the rule's error), e^x and the weights by recurrence."""
    return _sums(values, count, mean, std, h, n, [arb(0), arb(1)])


def _even_sums(
    values: Values, count: int, m: arb, s: arb, h: arb, n: int, exponent: Sequence[arb]
) -> list[arb]:
    """``_sums`` for integrands even about m: g_j(m) + 2·Σ_{1≤k≤n} g_j(x_k)·e^{−k²h²/2}. From
    FEWER_BITS_FROM bits on, node k's values are taken at (k·h)²/(2 ln 2) bits fewer (the weight
    e^{−k²h²/2} they are multiplied by is that much below 1: each term's rounding stays near
    2^−prec of the integrand's envelope); the recurrences and the sums keep every bit."""
    step = s * h
    table = _exp_table(exponent, m, step)
    centre = list(values(m, table[0]))
    totals = [arb(0)] * count
    weight = arb(1)
    ratio = (-h * h / 2).exp()
    square = (-h * h).exp()
    x = m
    prec = ctx.prec
    precisions = _node_precisions(prec, float(h.lower()), n)
    try:
        for k in range(n):
            weight *= ratio
            ratio *= square
            x += step
            e = _advance(table)
            ctx.prec = precisions[k]
            right = values(x, e)
            ctx.prec = prec
            for j in range(count):
                totals[j] += right[j] * weight
    finally:
        ctx.prec = prec
    return [centre[j] + 2 * totals[j] for j in range(count)]


# From this working precision (bits) on, the values at far nodes are taken at fewer bits.
FEWER_BITS_FROM = 1024


def _node_precisions(prec: int, h: float, n: int) -> list[int]:
    """The precision of the values at nodes 1..n: ``prec`` less (k·h)²/(2 ln 2) bits less a guard
    of 32 + log2(n) bits (the n terms' roundings then stay below the sum's own; in steps of 32,
    at least 64), or ``prec`` throughout below FEWER_BITS_FROM."""
    if prec < FEWER_BITS_FROM:
        return [prec] * n
    scale = h * h / (2 * math.log(2))
    guard = 32 + max(1, n).bit_length()
    return [max(64, prec - max(0, int(scale * k * k) - guard) // 32 * 32) for k in range(1, n + 1)]


def working_bits(size_log2: float, goal_log2: float, nodes_hint: int = MAX_NODES, degree: int = 1) -> int:
    """A precision for an absolute goal of 2^goal_log2 on sums of terms about 2^size_log2:
    the digits, the error the recurrences accumulate over the nodes (relative k^d·2^−prec
    after k steps of an exponent of degree d), and guard bits."""
    return int(size_log2 - goal_log2) + degree * int(math.log2(nodes_hint)) + 40


__all__ = [
    "A_MAX",
    "EXP_X",
    "MAX_NODES",
    "ctx",
    "gaussian_sums",
    "strip_integral_bound",
    "trapezoid_expectations",
    "working_bits",
]
