"""Moments of products of column sums, by truncated power series (used by ``computations.gau_full``).

Columns a = 1 … s are independent and identically distributed; a *column sum* is
S_v = Σ_a f_v(a) with f_v a monomial in per-token values of column a (⟨Z_i, Z_j⟩ = Σ_a z_ia·z_ja,
‖Z_i‖² = Σ_a z_ia²). With M(t) = E[exp(Σ_v t_v f_v)] the joint moment generating function of
one column, the s independent columns give

    E[Π_v S_v^P_v] = Π_v P_v! · [t^P] exp(s · log M(t)),

the set-partition (moment–cumulant) expansion of the powers of the sums, done by series
arithmetic instead of enumerating partitions. One more series variable ε carries a small
perturbation of the columns' Gaussian law (``computations.gau_full``); every coefficient is a product of
per-token moments, so the result is a polynomial in those moments and s.

Series are dicts from exponent tuples to coefficients (float, mpf or sympy expressions),
truncated by a cap per variable.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Series = dict[tuple[int, ...], Any]


def multiply(a: Series, b: Series, cap: tuple[int, ...]) -> Series:
    """a·b, dropping every term beyond ``cap``."""
    out: Series = {}
    for ea, ca in a.items():
        for eb, cb in b.items():
            e = tuple(x + y for x, y in zip(ea, eb))
            if all(x <= c for x, c in zip(e, cap)):
                out[e] = out[e] + ca * cb if e in out else ca * cb
    return out


def _order(cap: tuple[int, ...]) -> int:
    return sum(cap)


def log1p(x: Series, cap: tuple[int, ...]) -> Series:
    """log(1 + x) for x without constant term: Σ_k (−1)^(k+1) x^k / k."""
    out: Series = {}
    power: Series = {tuple(0 for _ in cap): 1}
    for k in range(1, _order(cap) + 1):
        power = multiply(power, x, cap)
        if not power:
            break
        for e, c in power.items():
            term = c / k if k % 2 else -c / k
            out[e] = out[e] + term if e in out else term
    return out


def exp(x: Series, cap: tuple[int, ...]) -> Series:
    """exp(x) for x without constant term: Σ_k x^k / k!."""
    zero = tuple(0 for _ in cap)
    out: Series = {zero: 1}
    power: Series = {zero: 1}
    for k in range(1, _order(cap) + 1):
        power = {e: c / k for e, c in multiply(power, x, cap).items()}
        if not power:
            break
        for e, c in power.items():
            out[e] = out[e] + c if e in out else c
    return out


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
    column (tokens independent at ε = 0, so a product of per-token moments)."""
    tokens = sorted({t for f in sums for t in f})
    cap = (*powers, order)
    generating: Series = {}
    for p in itertools.product(*(range(P + 1) for P in powers)):
        b = {t: sum(pv * f.get(t, 0) for pv, f in zip(p, sums)) for t in tokens}
        weight = math.prod(math.factorial(pv) for pv in p)
        for r in range(order + 1):
            generating[(*p, r)] = column_moment(b, r) / weight
    zero = tuple(0 for _ in cap)
    constant = generating.pop(zero)
    logarithm = log1p({e: c / constant for e, c in generating.items()}, cap)
    total = exp({e: s * c for e, c in logarithm.items()}, cap)
    scale = math.prod(math.factorial(P) for P in powers)
    return [scale * total.get((*powers, r), 0) * constant**s for r in range(order + 1)]


def times(series: Sequence[Sequence[Any]], order: int) -> list[Any]:
    """Product of series in ε (lists of coefficients), truncated at ε^order."""
    out: list[Any] = [0] * (order + 1)
    for combo in itertools.product(*(range(len(f)) for f in series)):
        r = sum(combo)
        if r <= order:
            out[r] = out[r] + math.prod(f[c] for f, c in zip(series, combo))
    return out
