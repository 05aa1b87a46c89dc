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

An activation that equals such a kernel's activation ψ near 0 (``catalog.kernels.TWINS``: relu6
is relu on (−∞, 6]) has ψ's layer to within a Gaussian tail (``twin_noise``) once the variance
is small against the window: the layers of relu6 at σ_w² = 1 (q halves every layer) are relu's
after a few, with that bound added to A and K.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, NamedTuple

from flint import arb, ctx

from ..catalog import Activation
from ..catalog.ball_functions import BALL_FUNCTIONS
from ..catalog.kernels import BALL_KERNELS, Q_SLOPE_AT_ONE, TWINS
from ..engine.dual_balls import Dual, value_and_slope
from ..engine.gaussian_balls import Term, as_arb, tail_bound
from .kernel_maps import clip

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


def closed_layer(
    closed: Closed, params: Mapping[str, Any], q: arb, c: arb | None, w: arb, b: arb, noise: arb | None = None
) -> tuple[arb, arb | None]:
    """(q', c') holding the layer's image of every point of the balls q and c (c: None for the
    variance alone), at the current precision (see the module docstring). ``noise``: a bound
    of |A_φ − A| and |K_φ − K| over the box for an activation φ that is this kernel's
    activation to within it (``twin_noise``)."""
    one = arb(1)
    extra = arb(0) if noise is None else _spread(noise)
    centre, r_q = arb(q.mid()), arb(q.rad())
    ball = Dual(q, one)
    value_at_centre = closed(centre, centre, one, params)[0]
    _, a_slope = value_and_slope(closed(ball, ball, one, params)[0])
    a_slope = abs(arb(a_slope))
    q_next = w * (value_at_centre + _spread(r_q * a_slope) + extra) + b
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
    k_box = k + _spread(r_c * arb(q.upper()) * k1_top + r_q * k_slope) + extra
    return q_next, clip((w * k_box + b) / q_next)


def _length(closed: Closed, params: Mapping[str, Any], q: arb, w: arb, b: arb, noise: arb) -> arb:
    """q' = σ_w²·A + σ_b² over the ball q in the mean-value form."""
    one = arb(1)
    centre, r_q = arb(q.mid()), arb(q.rad())
    ball = Dual(q, one)
    _, slope = value_and_slope(closed(ball, ball, one, params)[0])
    return w * (closed(centre, centre, one, params)[0] + _spread(r_q * abs(arb(slope))) + noise) + b


def split_closed_layer(
    closed: Closed, params: Mapping[str, Any], q1: arb, q2: arb, c: arb, w: arb, b: arb
) -> tuple[arb, arb, arb]:
    """(q1', q2', c') over the balls q1, q2, c at unequal variances: q_i' = σ_w²·A(q_i) + σ_b²,
    c' = (σ_w²·K(q1, q2, c) + σ_b²)/sqrt(q1'·q2'), K over the box in the mean-value form:

        K(centre) ± (r_c·sqrt(q1·q2)_hi·sup|K₁| + r_1·sup|∂K/∂q1| + r_2·sup|∂K/∂q2|),

    |K₁| over the box from its closed form where c's ball lies inside (−1, 1), in any case at most
    sqrt(E[φ'(u)²]·E[φ'(v)²]) (Cauchy–Schwarz), and |∂K/∂q_i| from forward-mode
    duals over the box where c's ball lies inside (−1, 1) (small where c is), in any case at most
    its value at c = 1 for these kernels (``catalog.kernels.Q_SLOPE_AT_ONE``)."""
    one = arb(1)
    lengths = [_length(closed, params, q, w, b, arb(0)) for q in (q1, q2)]
    m1, m2, mc = arb(q1.mid()), arb(q2.mid()), arb(c.mid())
    k, _ = closed(m1, m2, mc, params)
    slopes = []
    for at in (one, c) if abs(c).upper() < 1 else (one,):  # c's ball inside (−1, 1): over it too
        found = [
            abs(arb(value_and_slope(closed(Dual(q1, one), q2, at, params)[0])[1])),
            abs(arb(value_and_slope(closed(q1, Dual(q2, one), at, params)[0])[1])),
        ]
        slopes.append(found)
    slope_1, slope_2 = (
        min(
            (found[i] for found in slopes if found[i].is_finite()),
            key=lambda x: x.upper(),
            default=slopes[0][i],
        )
        for i in (0, 1)
    )
    derivative = abs((closed(q1, q1, one, params)[1] * closed(q2, q2, one, params)[1]).sqrt())
    if abs(c).upper() < 1:  # K₁ over the box itself where its closed form is defined there
        over = abs(closed(q1, q2, c, params)[1])
        if over.is_finite() and over.upper() < derivative.upper():
            derivative = over
    spread = (
        arb(c.rad()) * arb((q1 * q2).sqrt().upper()) * abs(derivative)
        + arb(q1.rad()) * slope_1
        + arb(q2.rad()) * slope_2
    )
    c_next = (w * (k + _spread(spread)) + b) / (lengths[0] * lengths[1]).sqrt()
    return lengths[0], lengths[1], clip(c_next)


class TwinRoute(NamedTuple):
    """ψ's closed kernel and parameters for an activation φ = ψ on [−reach, reach], growth
    terms bounding |φ − ψ| on the real line, and ψ's own (polynomial: c·|x|^k)."""

    closed: Closed
    params: Mapping[str, Any]
    reach: Fraction
    difference: tuple[Term, ...]
    twin: tuple[Term, ...]


def twin_of(act: Activation, params: Mapping[str, Any]) -> TwinRoute | None:
    """The closed-kernel twin of ``act`` (``catalog.kernels.TWINS``), or None. |φ − ψ| ≤ |φ| + |ψ|
    ≤ the sum of the catalog's growth bounds (``catalog.ball_functions``)."""
    twin = None if act.expression else TWINS.get(act.name)
    if twin is None or twin.kernel not in Q_SLOPE_AT_ONE:
        return None
    own = tuple(BALL_FUNCTIONS[twin.kernel].growth({}))
    if any(as_arb(t.a) != 0 or as_arb(t.b) != 0 for t in own):
        return None
    difference = (*BALL_FUNCTIONS[act.name].growth(params), *own)
    return TwinRoute(BALL_KERNELS[twin.kernel], {}, twin.reach, difference, own)


def _times_power(terms: tuple[Term, ...], j: int) -> tuple[Term, ...]:
    return tuple(Term(t.c, t.k + j, t.a, t.b) for t in terms)


def twin_noise(route: TwinRoute, q_high: arb) -> arb | None:
    """ε with |A_φ(q) − A_ψ(q)| ≤ ε and |K_φ(q, c) − K_ψ(q, c)| ≤ ε for every q ≤ q_high, |c| ≤ 1.
    δ = φ − ψ vanishes on [−reach, reach] and

        K_φ − K_ψ = E[δ(u)ψ(v)] + E[ψ(u)δ(v)] + E[δ(u)δ(v)]

    (c = 1 gives A). |E[δ(u)δ(v)]| ≤ E[δ(u)²] (Cauchy–Schwarz). For the cross terms, v = c·u + s·W
    with W ~ N(0, 1) independent of u and s ≤ √q, so |v| ≤ |u| + √q·|W| and with ψ's growth
    |ψ(x)| ≤ Σ g·|x|^k:

        |E[δ(u)ψ(v)]| ≤ Σ g·Σ_j C(k, j)·q^{(k−j)/2}·E|W|^{k−j}·E[|δ(u)|·|u|^j],

    each E[|δ(u)|·|u|^j] and E[δ(u)²] at most the Gaussian tail beyond ±reach of a growth bound
    (``engine.gaussian_balls.tail_bound``): of the order of e^{−reach²/(2q)}, where Cauchy–Schwarz
    on the cross terms would give only its square root. Every bound grows with q (nondecreasing
    in |x|, integrated over a region that widens). None: reach is within a standard deviation
    of q_high."""
    with ctx.workprec(64):
        high = arb(q_high.upper())
        std = arb(high.sqrt().upper())
        reach = arb(route.reach.numerator) / route.reach.denominator
        L = arb((reach / std).lower())
        if not L > 1:
            return None
        zero = arb(0)
        squared = tuple(
            Term(as_arb(s.c) * as_arb(t.c), s.k + t.k, as_arb(s.a) + as_arb(t.a), as_arb(s.b) + as_arb(t.b))
            for s in route.difference
            for t in route.difference
        )
        total = tail_bound(squared, L, zero, std)
        if total is None:
            return None
        for term in route.twin:
            k = term.k
            for j in range(k + 1):
                tail = tail_bound(_times_power(route.difference, j), L, zero, std)
                if tail is None:
                    return None
                m = k - j  # E|W|^m = 2^{m/2}·Γ((m + 1)/2)/√π
                moment = arb(2) ** (arb(m) / 2) * arb((m + 1) / 2).gamma() / arb.pi().sqrt()
                total += 2 * as_arb(term.c) * math.comb(k, j) * std**m * moment * tail
        return arb(total.upper()) if total.is_finite() else None


def twin_slope_noise(route: TwinRoute, q_high: arb) -> arb:
    """ε₁ with |E[φ'(u)φ'(v)] − E[ψ'(u)ψ'(v)]| ≤ ε₁ for every q ≤ q_high and |c| ≤ 1, for the
    catalog's twins, whose slopes lie in [0, 1] and agree on [−reach, reach] (relu6 and relu,
    hardtanh and identity: ``catalog.kernels.TWINS``): the products φ'(u)φ'(v) and ψ'(u)ψ'(v) lie
    in [0, 1] and differ only where |u| or |v| passes reach, so ε₁ = 2·P(|√q·Z| > reach) =
    2·erfc(reach/sqrt(2·q_high)) (upper end)."""
    with ctx.workprec(64):
        reach = arb(route.reach.numerator) / route.reach.denominator
        return arb((2 * (reach / (2 * arb(q_high.upper())).sqrt()).erfc()).upper())


__all__ = [
    "TwinRoute",
    "closed_kernel_of",
    "closed_layer",
    "split_closed_layer",
    "twin_noise",
    "twin_of",
    "twin_slope_noise",
]
