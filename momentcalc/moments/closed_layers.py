"""One layer of a plain deep network for an activation with a closed-form kernel, on balls.

For (u, v) centred Gaussian with variance q each and correlation c, K(q, c) = E[φ(u)φ(v)],
K₁(q, c) = E[φ'(u)φ'(v)] and A(q) = K(q, 1) = E[φ(√q·Z)²], from the catalog's closed forms
(``catalog.kernels.BALL_KERNELS``: the arc-cosine kernels of relu, leaky_relu and relu2, erf's
arcsine kernel, identity; Cho & Saul 2009, Williams 1997). A layer maps (q, c) to

    q' = σ_w²·A(q) + σ_b²,   c' = (σ_w²·K(q, c) + σ_b²)/q'.

Over a box [q ± r_q] × [c ± r_c] both are enclosed in the mean-value form, from the values at
the box's exact centre and bounds of the slopes over the box, so that a radius grows by the
map's own slope (below 1 near a stable fixed point) and not by the dependency of a formula's
parts evaluated on balls:

* q' ∈ σ_w²·(A(q) ± r_q·sup|A'|) + σ_b², A' over the ball from forward-mode derivatives
  (``engine.dual_balls``);
* K over the box ∈ K(q, c) ± (r_c·q_hi·sup|K₁| + r_q·sup|∂_q K|), ∂K/∂c = q·K₁ (equal
  variances). Mehler's expansion K₁(q, c) = Σ β_k²·c^k gives |K₁(q, c)| ≤ K₁(q, |c|_hi) over
  c's ball; ∂_q K over the box from forward-mode derivatives where c's ball lies inside (−1, 1),
  and in any case at most sup A' (for these kernels |∂_q K(q, c)| ≤ A'(q) at every |c| ≤ 1:
  ``catalog.kernels.Q_SLOPE_AT_ONE``).

No integrals: a layer is a few dozen ball operations, so 10000 layers take well under a second.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flint import arb

from ..catalog import Activation
from ..catalog.kernels import BALL_KERNELS, Q_SLOPE_AT_ONE
from ..engine.dual_balls import Dual, value_and_slope

Closed = Callable[[Any, Any, Any, Mapping[str, Any]], tuple[Any, Any]]


def closed_kernel_of(act: Activation) -> Closed | None:
    """The closed kernel whose layers ``closed_layer`` proves, or None (an expression, or an
    activation without one)."""
    if act.expression or act.name not in Q_SLOPE_AT_ONE:
        return None
    return BALL_KERNELS.get(act.name)


def _spread(ball: arb) -> arb:
    """[−x, x] for x the ball's upper end (±∞ when it is not finite)."""
    return arb(0, ball.upper())


def closed_layer(closed: Closed, params: Mapping[str, Any], q: arb, c: arb | None, w: arb,
                 b: arb) -> tuple[arb, arb | None]:
    """(q', c') holding the layer's image of every point of the balls q and c (c: None for the
    variance alone), at the current precision (see the module docstring)."""
    one = arb(1)
    centre, r_q = arb(q.mid()), arb(q.rad())
    ball = Dual(q, one)
    value_at_centre = closed(centre, centre, one, params)[0]
    _, a_slope = value_and_slope(closed(ball, ball, one, params)[0])
    a_slope = abs(arb(a_slope))
    q_next = w * (value_at_centre + _spread(r_q * a_slope)) + b
    if c is None:
        return q_next, None
    c_centre, r_c = arb(c.mid()), arb(c.rad())
    k, _ = closed(centre, centre, c_centre, params)
    top = abs(c_centre) + r_c
    top = one if top.upper() >= 1 else arb(top.upper())
    k1_top = abs(closed(q, q, top, params)[1])
    k_slope = a_slope
    if top < 1:  # inside (−1, 1): ∂_q K over the box itself (small where c is: erf's c → 0)
        _, box_slope = value_and_slope(closed(ball, ball, c, params)[0])
        box_slope = abs(arb(box_slope))
        if box_slope.is_finite() and box_slope.upper() < a_slope.upper():
            k_slope = box_slope
    k_box = k + _spread(r_c * arb(q.upper()) * k1_top + r_q * k_slope)
    c_next = (w * k_box + b) / q_next
    # |c'| ≤ 1 (Cauchy–Schwarz): a ball reaching past ±1 is clipped there
    if c_next.upper() > 1:
        c_next = arb(c_next.lower()).union(one)
    if c_next.lower() < -1:
        c_next = arb(-1).union(arb(c_next.upper()))
    return q_next, c_next


__all__ = ["closed_kernel_of", "closed_layer"]
