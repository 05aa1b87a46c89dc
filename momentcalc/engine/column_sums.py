"""Moments of products of column sums, by truncated power series (used by ``computations.gau.full``).

Columns a = 1 … s are independent and identically distributed; a *column sum* is
S_v = Σ_a f_v(a) with f_v a monomial in per-token values of column a (⟨Z_i, Z_j⟩ = Σ_a z_ia·z_ja,
‖Z_i‖² = Σ_a z_ia²). With M(t) = E[exp(Σ_v t_v f_v)] the joint moment generating function of
one column, the s independent columns give

    E[Π_v S_v^P_v] = Π_v P_v! · [t^P] exp(s · log M(t)) = Π_v P_v! · [t^P] M(t)^s,

the set-partition (moment–cumulant) expansion of the powers of the sums, done by series
arithmetic instead of enumerating partitions: for a whole s as the binomial series of
(M/M(0))^s, for a symbol s through the logarithm. One more series variable ε carries a small
perturbation of the columns' Gaussian law (``computations.gau.full``); every coefficient is a
product of per-token moments, so the result is a polynomial in those moments and s.

A series is a dense list of coefficients (float, mpf or sympy expressions) over the exponents
up to ``cap`` (one bound per variable), in row-major order.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Series = list[Any]


@functools.lru_cache(maxsize=64)
def _layout(
    cap: tuple[int, ...],
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[tuple[int, int], ...], ...]]:
    """(exponents in order, for each index the (other index, product index) pairs within cap).

    Row-major order makes an index linear in the exponents (Σ_d e_d·stride_d), so the product
    of ea and eb, when within cap, sits at index(ea) + index(eb): each row runs over the eb that
    fit beside ea, in increasing index (the order multiply() adds them in)."""
    exponents = tuple(itertools.product(*(range(c + 1) for c in cap)))
    strides = [math.prod(c + 1 for c in cap[d + 1 :]) for d in range(len(cap))]
    pairs = []
    for ka, ea in enumerate(exponents):
        row = []
        for eb in itertools.product(*(range(c - x + 1) for c, x in zip(cap, ea))):
            kb = sum(x * stride for x, stride in zip(eb, strides))
            row.append((kb, ka + kb))
        pairs.append(tuple(row))
    return exponents, tuple(pairs)


def multiply(a: Series, b: Series, cap: tuple[int, ...]) -> Series:
    """a·b, dropping every term beyond ``cap``."""
    _, pairs = _layout(cap)
    out: Series = [0] * len(a)
    for ka, ca in enumerate(a):
        if ca == 0:
            continue
        for kb, k in pairs[ka]:
            cb = b[kb]
            if cb != 0:
                out[k] = out[k] + ca * cb
    return out


def log1p(x: Series, cap: tuple[int, ...]) -> Series:
    """log(1 + x) for x without constant term: Σ_k (−1)^(k+1) x^k / k."""
    out: Series = [0] * len(x)
    power: Series = [1] + [0] * (len(x) - 1)
    for k in range(1, sum(cap) + 1):
        power = multiply(power, x, cap)
        for i, c in enumerate(power):
            if c != 0:
                out[i] = out[i] + (c / k if k % 2 else -c / k)
    return out


def exp(x: Series, cap: tuple[int, ...]) -> Series:
    """exp(x) for x without constant term: Σ_k x^k / k!."""
    out: Series = [1] + [0] * (len(x) - 1)
    power: Series = list(out)
    for k in range(1, sum(cap) + 1):
        power = [c / k for c in multiply(power, x, cap)]
        for i, c in enumerate(power):
            if c != 0:
                out[i] = out[i] + c
    return out


def binomial_power(x: Series, s: int, cap: tuple[int, ...]) -> Series:
    """(1 + x)^s = Σ_k C(s, k)·x^k for x without constant term and a whole s ≥ 0 (the same series
    as exp(s·log(1 + x)), from half the multiplications: x^k vanishes within cap past
    k = Σ cap)."""
    out: Series = [1] + [0] * (len(x) - 1)
    power: Series = list(out)
    for k in range(1, min(s, sum(cap)) + 1):
        power = multiply(power, x, cap)
        coefficient = math.comb(s, k)
        for i, c in enumerate(power):
            if c != 0:
                out[i] = out[i] + coefficient * c
    return out


@functools.lru_cache(maxsize=64)
def _plan(
    sums: tuple[tuple[tuple[str, int], ...], ...], cap: tuple[int, ...]
) -> tuple[tuple[tuple[dict[str, int], int, int], ...], dict[tuple[int, ...], int]]:
    """For each exponent (p, r) of ``cap``: the tokens' powers b in Π_v f_v^p_v, r, and Π p_v!;
    and the index of each exponent (what ``column_sum_moment`` needs, made once per shape)."""
    sums_ = [dict(f) for f in sums]
    tokens = sorted({t for f in sums_ for t in f})
    exponents, _ = _layout(cap)
    plan = []
    for e in exponents:
        p, r = e[:-1], e[-1]
        b = {t: sum(pv * f.get(t, 0) for pv, f in zip(p, sums_)) for t in tokens}
        plan.append((b, r, math.prod(math.factorial(pv) for pv in p)))
    return tuple(plan), {e: k for k, e in enumerate(exponents)}


def column_sum_moment(
    sums: Sequence[Mapping[str, int]],
    powers: Sequence[int],
    column_moment: Callable[[dict[str, int], int], Any],
    s: Any,
    order: int,
) -> list[Any]:
    """E[Π_v S_v^powers[v]] as a series in ε up to ε^order (list of coefficients).

    ``sums[v]`` gives the power of each token's value in f_v (``{"i": 1, "j": 1}`` for
    ⟨Z_i, Z_j⟩); ``column_moment(b, r)`` is the coefficient of ε^r in E[Π_t z_t^b[t]] for one
    column (tokens independent at ε = 0, so a product of per-token moments); it must not change
    ``b`` (one dict per shape, shared by every call)."""
    cap = (*powers, order)
    plan, index = _plan(tuple(tuple(sorted(f.items())) for f in sums), cap)
    generating: Series = [column_moment(b, r) / denominator for b, r, denominator in plan]
    constant = generating[0]
    x = [0] + [c / constant for c in generating[1:]]
    if isinstance(s, int) and not isinstance(s, bool) and s >= 0:
        total = binomial_power(x, s, cap)
    else:  # a symbol (sympy's s): through the logarithm
        total = exp([s * c for c in log1p(x, cap)], cap)
    scale = math.prod(math.factorial(P) for P in powers)
    return [scale * total[index[(*powers, r)]] * constant**s for r in range(order + 1)]


def times(series: Sequence[Sequence[Any]], order: int) -> list[Any]:
    """Product of series in ε (lists of coefficients), truncated at ε^order."""
    out: list[Any] = [0] * (order + 1)
    for combo in itertools.product(*(range(len(f)) for f in series)):
        r = sum(combo)
        if r <= order:
            out[r] = out[r] + math.prod(f[c] for f, c in zip(series, combo))
    return out
