"""Proven Gauss–Legendre quadrature on panels: ∫_a^b F as an Arb ball, for F analytic near
[a, b] and bounded on complex boxes (python-flint).

The bound. Map [a, b] to [−1, 1] (x = c + h·t, c = (a + b)/2, h = (b − a)/2). If F is analytic
in the open Bernstein ellipse E_ρ (foci ±1, semi-axes (ρ ± 1/ρ)/2) and |F| ≤ M there, its
Chebyshev coefficients obey |a_k| ≤ 2M·ρ^{−k}. The m-point Gauss rule integrates T_k exactly
for k ≤ 2m − 1, and odd T_k exactly (0, symmetric nodes); for even k ≥ 2m,
|∫T_k| ≤ 2/(k² − 1) ≤ 2/15 and |Σ w_i T_k(t_i)| ≤ Σ w_i = 2. So

    |∫_{−1}^{1} F − Σ w_i F(t_i)| ≤ Σ_{j ≥ m} 2M·ρ^{−2j}·(2 + 2/15) = (64/15)·M·ρ^{−2m}/(1 − ρ^{−2})

(Trefethen, "Is Gauss quadrature better than Clenshaw–Curtis?", SIAM Review 50 (2008),
Theorem 4.5), times h on [a, b]; used here with ρ^{−2(m−1)} in place of ρ^{−2m} (so it holds
whether a theorem counts m or m − 1 points).

M is proven by evaluating F on boxes that cover the closed ellipse (vertical slices, each as
tall as the ellipse over it): F finite on every box proves it analytic there when F is built
from functions analytic wherever Arb returns a finite ball (the caller's contract; branch cuts
refused with ``analytic=True``). Each panel takes the ellipse, among a few, that needs the
fewest nodes; a panel whose best rule is long is halved when its halves need fewer nodes
between them (``plan``). Nodes and weights are Arb's (``arb.legendre_p_root``), balls holding
the exact ones, so the sum is a ball too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

from flint import acb, arb, ctx

# The ellipse parameters tried on each panel (the best is kept).
RHOS = (1.2, 1.5, 2.0, 3.0, 5.0, 9.0)
# A panel whose best ellipse is at least this wide is not split (no singularity near it).
WIDE = 3.0
# Vertical slices covering an ellipse.
SLICES = 8
# A panel with at most this many nodes is not split further.
SMALL = 10
# Beyond this many nodes on one panel, or this many halvings, no rule.
MAX_NODES = 3000
MAX_DEPTH = 48

# (n, precision) -> [(node, weight)] on [−1, 1]
_RULES: dict[tuple[int, int], list[tuple[arb, arb]]] = {}


def legendre_rule(n: int) -> list[tuple[arb, arb]]:
    """The n-point Gauss–Legendre nodes and weights on [−1, 1] at the working precision."""
    key = (n, ctx.prec)
    rule = _RULES.get(key)
    if rule is None:
        if len(_RULES) > 256:
            _RULES.clear()
        rule = []
        for k in range(n):
            node, weight = arb.legendre_p_root(n, k, weight=True)
            rule.append((node, weight))
        _RULES[key] = rule
    return rule


def _up(x: arb) -> arb:
    return arb(x.upper())


def ellipse_cover(low: arb, high: arb, rho: float, slices: int = SLICES) -> list[acb]:
    """Boxes covering the closed Bernstein ellipse E_ρ of [low, high] (balls: of every interval
    between their points)."""
    c, h = (low + high) / 2, (high - low) / 2
    r = arb(rho)
    major, minor = (r + 1 / r) / 2, (r - 1 / r) / 2
    boxes = []
    for k in range(slices):
        t0, t1 = -1 + 2 * k / slices, -1 + 2 * (k + 1) / slices
        t = arb(
            (t0 + t1) / 2, (t1 - t0) / 2
        )  # [t0, t1] (exact binary ends for slices a power of 2; else wider)
        t = t.union(arb(t0)).union(arb(t1))
        nearest = 0.0 if t0 < 0 < t1 else min(abs(t0), abs(t1))
        height = _up(abs(h) * minor * (1 - arb(nearest) ** 2).sqrt()) if nearest < 1 else arb(0)
        height = _up(height * (1 + arb(2) ** -20))
        re = c + h * major * t
        boxes.append(acb(re, arb(0, height)))
    return boxes


def gauss_error(M: arb, rho: float, n: int, half: arb) -> arb:
    """(64/15)·M·ρ^{−2(n−1)}/(ρ² − 1)·|half| (module docstring)."""
    r = arb(rho)
    return _up(arb(64) / 15 * M * r ** (-2 * (n - 1)) / (r * r - 1) * abs(half))


class Panel(NamedTuple):
    low: arb
    high: arb
    n: int
    error: arb  # the rule's proven error bound on this panel
    rho: float = 0.0  # the ellipse it was proven on


Bound = Callable[[acb], "arb | None"]  # an upper bound of |F| on a complex box, None: not proven finite


def _best(low: arb, high: arb, bound: Bound, tol: arb) -> Panel | None:
    half = (high - low) / 2
    best: Panel | None = None
    log_tol = float(tol.log().lower()) if tol > 0 else -math.inf
    for rho in RHOS:
        sup, bounded = arb(0), True
        for box in ellipse_cover(low, high, rho):
            found = bound(box)
            if found is None or not found.is_finite():
                bounded = False
                break
            sup = _up(sup.max(found))
        if not bounded:
            break  # a wider ellipse holds the same trouble
        if sup == 0:
            return Panel(low, high, 1, arb(0))
        with ctx.workprec(64):
            size = arb(64) / 15 * sup / (arb(rho) ** 2 - 1) * abs(half)
            need = (float(size.log().upper()) - log_tol) / (2 * math.log(rho))
        n = max(2, 1 + math.ceil(max(0.0, need)))
        if n > MAX_NODES:
            continue
        error = gauss_error(sup, rho, n, half)
        while not error <= tol and n <= MAX_NODES:
            n += 1
            error = gauss_error(sup, rho, n, half)
        if n <= MAX_NODES and (best is None or n < best.n):
            best = Panel(low, high, n, error, rho)
        elif best is not None and n > best.n:
            break  # past the best width: wider ellipses come nearer the singularities
    return best


def plan(
    low: arb, high: arb, bound: Bound, tol: arb, depth: int = 0, found: Panel | None = None
) -> list[Panel] | None:
    """Panels covering [low, high] whose rules' errors sum to at most ``tol``; None when no
    rule is proven (F not bounded on any ellipse of a panel halved ``MAX_DEPTH`` times)."""
    parent = found if found is not None else _best(low, high, bound, tol)
    if parent is not None and (parent.n <= SMALL or parent.rho >= WIDE):
        return [parent]
    if depth >= MAX_DEPTH:
        return None if parent is None else [parent]
    mid = arb(((low + high) / 2).mid())
    if not (mid > low and mid < high):
        return None if parent is None else [parent]
    left, right = _best(low, mid, bound, tol / 2), _best(mid, high, bound, tol / 2)
    if parent is not None and (left is None or right is None or left.n + right.n >= parent.n):
        return [parent]
    out_left = plan(low, mid, bound, tol / 2, depth + 1, left)
    out_right = plan(mid, high, bound, tol / 2, depth + 1, right)
    if out_left is None or out_right is None:
        return None if parent is None else [parent]
    return out_left + out_right


def nodes_of(panels: Sequence[Panel]) -> list[tuple[arb, arb]]:
    """(x, weight) of every panel's rule on its own interval."""
    out = []
    for panel in panels:
        c, h = (panel.low + panel.high) / 2, (panel.high - panel.low) / 2
        for t, w in legendre_rule(panel.n):
            out.append((c + h * t, h * w))
    return out


def _halves(ball: arb | acb) -> tuple:
    """A ball split in two along its widest direction (real balls as real, boxes as boxes)."""
    if isinstance(ball, arb):
        mid = arb(ball.mid())
        return arb(ball.lower()).union(mid), mid.union(arb(ball.upper()))
    re, im = ball.real, ball.imag
    if re.rad() >= im.rad():
        return tuple(acb(part, im) for part in _halves(re))
    return tuple(acb(re, part) for part in _halves(im))


def sup_abs(f: Callable[..., acb], args: Sequence, depth: int = 8) -> arb | None:
    """An upper bound of |f(*args)| over the balls ``args``, each finer where a wider one gives
    no finite enclosure (ball arithmetic overestimates on wide boxes: (a + ib)² of a box far
    from 0 may hold 0); None when none is found ``depth`` halvings down."""
    value = f(*args)
    if value.is_finite():
        return _up(abs(value))
    if depth <= 0:
        return None
    index = max(range(len(args)), key=lambda i: _width(args[i]))
    top = arb(0)
    for half in _halves(args[index]):
        found = sup_abs(f, [*args[:index], half, *args[index + 1 :]], depth - 1)
        if found is None:
            return None
        top = _up(top.max(found))
    return top


def _width(ball: arb | acb) -> float:
    if isinstance(ball, arb):
        return float(ball.rad())
    return max(float(ball.real.rad()), float(ball.imag.rad()))


__all__ = ["Panel", "ellipse_cover", "gauss_error", "legendre_rule", "nodes_of", "plan", "sup_abs"]
