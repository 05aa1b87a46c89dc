"""Certified bivariate Gaussian expectations E[g(u)·g(v)] in polar coordinates, for g analytic
on each side of a single kink at 0 (softsign = x/(1 + |x|) and φ' = 1/(1 + |x|)², expressions
such as x/(1 + abs(x))) or without kinks: a route whose cost does not grow as the correlation
ρ → ±1, where the shared-part rule (``engine.bivariate_balls``) needs ~1/sqrt(1 − |ρ|) nodes,
each an integral of its own for a kinked g.

For (u, v) centred Gaussian with Var u = q1, Var v = q2 and correlation ρ = cos β (β ∈ [0, π],
sin β = sqrt(1 − ρ²)), write u = σ1·X, v = σ2·(ρX + sin β·Y) with X, Y independent standard
normals and (X, Y) = R·(cos α, sin α): R has density R·e^{−R²/2} and α is uniform, and
v = σ2·R·cos(α − β). So

    E[g(u)g(v)] = (1/2π) ∫_{−π/2}^{3π/2} dα ∫_0^∞ R·e^{−R²/2}·g(σ1R·cos α)·g(σ2R·cos(α − β)) dR.

The kink lines u = 0 and v = 0 are the fixed rays cos α = 0 and cos(α − β) = 0: the α-circle
falls into four arcs, [−π/2, β − π/2] (u ≥ 0 ≥ v), [β − π/2, π/2] (both ≥ 0), [π/2, β + π/2]
and [β + π/2, 3π/2], on each of which the integrand is one analytic function of (R, α) — the
two branches of g that hold there. As ρ → 1 two arcs shrink (width β ~ sqrt(2(1 − ρ))) and the
other two tend to the diagonal's; nothing sharpens, so the rule's cost stays bounded. For g odd
or even, g(−x)g(−y) = g(x)g(y): the second half-circle equals the first.

Each arc's double integral is a tensor Gauss–Legendre rule with proven error
(``engine.legendre_balls``): first panels in R on [0, R_T] for the error at every real α of the
arc (F analytic in R on an ellipse, bounded there for α in the arc as a ball), then panels in α
for H(α) = Σ_i w_i·F(R_i, α), bounded on α-ellipses by Σ over R-panels of the panel's length
times |F| on the panel (a ball) — so

    |∫∫F − Σ_j W_j Σ_i w_i F(R_i, α_j)| ≤ |arc|·Σ(R-panel errors) + Σ(α-panel errors).

Beyond R_T the tail is bounded from |g(x)| ≤ P(|x|) on the real line (the catalog's or the
expression's growth bounds): ∫_{R_T}^∞ R^{k+1}e^{−R²/2} dR = J_{k+1}, J_0 = sqrt(π/2)·erfc(R_T/√2),
J_1 = e^{−R_T²/2}, J_m = R_T^{m−1}e^{−R_T²/2} + (m − 1)·J_{m−2}.

Every step is ball arithmetic; None where a rule cannot be proven (the caller's other route).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import acb, arb, ctx

from ..catalog import Activation
from ..engine.balls import bits_short
from ..engine.gaussian_balls import BITS_PER_DIGIT, as_arb
from ..engine.legendre_balls import nodes_of, plan, sup_abs
from .activation_balls import model_of

# Goals lowered (cancellation) at most this often.
ATTEMPTS = 3
# From this |ρ| on the polar route is tried first for a kinked g (below it the shared-part
# rule, node by node, is faster).
NEAR_ONE = Fraction(9, 10)
# Real sub-balls of an arc (bounds of F over α real) and of an R-panel (bounds of H).
ARC_PARTS = 4
PANEL_PARTS = 1


def _up(x: arb) -> arb:
    return arb(x.upper())


def _branches(act: Activation, reach: arb, which: int):  # noqa: ANN202
    """(negative-side branch, positive-side branch) of g = φ (``which`` 0) or φ' (1) on
    [−reach, reach], the same branch twice without kinks; None unless every kink is exactly 0."""
    model = model_of(act, Fraction(0))
    found = model.branches(-reach, reach)
    kinks = list(found.kinks)
    chosen = found.values if which == 0 else found.derivatives
    if not kinks:
        return chosen[0], chosen[0]
    if len(kinks) != 1:
        return None
    k = kinks[0]
    if not (k == 0 if isinstance(k, (Fraction, int)) else (k.rad() == 0 and k.mid() == 0)):
        return None
    return chosen[0], chosen[1]


def applies(act: Activation) -> bool:
    """Whether every kink of φ and φ' is exactly 0 (or there is none)."""
    try:
        with ctx.workprec(64):
            return _branches(act, arb(64), 0) is not None
    except Exception:  # noqa: BLE001  (an expression whose kinks cannot be told)
        return False


def _tail(poly1: Sequence[arb], poly2: Sequence[arb], s1: arb, s2: arb, L: arb) -> arb:
    """∫_L^∞ R·e^{−R²/2}·P1(σ1R)·P2(σ2R) dR (module docstring)."""
    coefficients: dict[int, arb] = {}
    for i, a in enumerate(poly1):
        for j, b in enumerate(poly2):
            coefficients[i + j] = coefficients.get(i + j, arb(0)) + a * b * s1**i * s2**j
    top = max(coefficients, default=0) + 1
    density = (-L * L / 2).exp()
    J = [(arb.pi() / 2).sqrt() * (L / arb(2).sqrt()).erfc(), density]
    for m in range(2, top + 1):
        J.append(L ** (m - 1) * density + (m - 1) * J[m - 2])
    return _up(sum((c * J[k + 1] for k, c in coefficients.items()), arb(0)))


def _reach(poly1, poly2, s1: arb, s2: arb, goal: arb) -> tuple[arb, arb] | None:  # noqa: ANN001
    """(R_T, tail bound ≤ goal): R_T the first of 2, 2.25, … whose tail is small enough."""
    L = 2.0
    while L < 200:
        R = arb(L)
        tail = _tail(poly1, poly2, s1, s2, R)
        if tail <= goal:
            return R, tail
        L += 0.25
    return None


def _real_parts(low: arb, high: arb, count: int) -> list[arb]:
    """Real balls covering [low, high] in ``count`` pieces."""
    out = []
    for k in range(count):
        a = low + (high - low) * k / count
        b = low + (high - low) * (k + 1) / count
        out.append(a.union(b))
    return out


def polar_integral(branches_u, branches_v, parity: bool, poly1: Sequence[arb], poly2: Sequence[arb],  # noqa: ANN001
                   q1: arb, q2: arb, rho: arb, one_minus_square: arb, goal: arb) -> arb | None:
    """E[g(u)·g(v)] within about ``goal`` (plus the working precision's radius), g's branches
    (x < 0, x > 0) for u and for v (module docstring); ``parity``: g odd or even."""
    s1, s2 = q1.sqrt(), q2.sqrt()
    sine = one_minus_square.sqrt()
    if not sine > 0:
        return None
    beta = arb.atan2(sine, rho)
    reach = _reach(poly1, poly2, s1, s2, goal / 4)
    if reach is None:
        return None
    R_T, tail = reach
    half_pi = arb.pi() / 2
    neg_u, pos_u = branches_u
    neg_v, pos_v = branches_v
    arcs = [(-half_pi, beta - half_pi, pos_u, neg_v), (beta - half_pi, half_pi, pos_u, pos_v)]
    if not parity:
        arcs += [(half_pi, beta + half_pi, neg_u, pos_v), (beta + half_pi, 3 * half_pi, neg_u, neg_v)]
    copies = 2 if parity else 1
    # the error shares: each arc's R-rules and α-rules get goal/(4·arcs) of the total
    share = goal / (4 * len(arcs)) * 2 * arb.pi() / copies
    total = arb(0)
    error = arb(0)
    zero = arb(0)
    for low, high, gu, gv in arcs:
        width = high - low
        if not width > 0:
            if width.contains(0) and abs(width) <= goal:  # an arc of width 0 at this precision
                # |F| ≤ R·e^{−R²/2}·P1·P2 ≤ its integral bound; the arc contributes at most width times it
                bound = _tail(poly1, poly2, s1, s2, zero)
                error += _up(abs(width).upper() * bound * copies / (2 * arb.pi()))
                continue
            return None

        arc_parts = _real_parts(low, high, ARC_PARTS)

        def size(R, alpha, gu=gu, gv=gv) -> arb | None:  # noqa: ANN001
            """An upper bound of |F| over the balls R × α: each factor apart, each branch bounded
            on the box its argument fills (split there where ball arithmetic is too coarse)."""
            Rc, ac = acb(R), acb(alpha)
            first = sup_abs(lambda z: gu(z, True), [acb(s1) * Rc * ac.cos()])
            if first is None:
                return None
            second = sup_abs(lambda z: gv(z, True), [acb(s2) * Rc * (ac - acb(beta)).cos()])
            if second is None:
                return None
            radial = Rc * (-Rc * Rc / 2).exp()
            if not radial.is_finite():
                return None
            return _up(abs(radial) * first * second)

        def bound_R(box: acb, arc_parts=arc_parts, size=size) -> arb | None:
            top = arb(0)
            for alpha in arc_parts:
                value = size(box, alpha)
                if value is None:
                    return None
                top = _up(top.max(value))
            return top

        tol_R = share / _up(width)
        panels_R = plan(arb(0), R_T, bound_R, tol_R)
        if panels_R is None:
            return None
        error += _up(sum((p.error for p in panels_R), arb(0)) * _up(width))
        R_nodes = nodes_of(panels_R)
        R_parts = [(p.high - p.low, _real_parts(p.low, p.high, PANEL_PARTS)) for p in panels_R]

        def bound_alpha(box: acb, R_parts=R_parts, size=size) -> arb | None:
            top = arb(0)
            for length, parts in R_parts:
                biggest = arb(0)
                for R in parts:
                    value = size(R, box)
                    if value is None:
                        return None
                    biggest = _up(biggest.max(value))
                top += length * biggest
            return _up(top)

        panels_alpha = plan(low, high, bound_alpha, share)
        if panels_alpha is None:
            return None
        error += sum((p.error for p in panels_alpha), arb(0))
        # the rule: Σ_j W_j Σ_i w_i F(R_i, α_j)
        prepared = []
        for R, w in R_nodes:
            Rc = acb(R)
            prepared.append((acb(s1) * Rc, acb(s2) * Rc, acb(w) * Rc * (-Rc * Rc / 2).exp()))
        part = acb(0)
        for alpha, W in nodes_of(panels_alpha):
            cu, cv = acb(alpha.cos()), acb((alpha - beta).cos())
            inner = acb(0)
            for a, b, weight in prepared:
                inner += weight * gu(a * cu, False) * gv(b * cv, False)
            part += W * inner
        if not part.is_finite():
            return None
        total += part.real
    value = total * copies / (2 * arb.pi())
    radius = _up(tail + error * copies / (2 * arb.pi()))
    return value + arb(0, radius)


def polar_cross(act: Activation, polys: Sequence[Sequence[arb]], q1: arb | Fraction, q2: arb | Fraction,
                rho: arb | Fraction, digits: int, which: Sequence[int], size_log2: float,
                least_log2: float) -> list[arb] | None:
    """[E[g_i(u)·g_i(v)] for i in ``which``] (0: φ, 1: φ') as balls with radius ≤ 10^−(digits+3)
    of their values (``bivariate_certified``'s contract), for |ρ| < 1; None where this route
    does not prove them."""
    wanted = (digits + 3) * BITS_PER_DIGIT
    parity = act.parity in ("odd", "even")
    loss = 0.0
    balls: list[arb] | None = None
    for _ in range(ATTEMPTS):
        goal_log2 = least_log2 - wanted - 6 - loss
        prec = int(size_log2 - goal_log2) + 40
        with ctx.workprec(prec):
            r = as_arb(rho)
            one_minus_square = as_arb(1 - rho * rho) if isinstance(rho, Fraction) else (1 - r) * (1 + r)
            a, b = as_arb(q1), as_arb(q2)
            goal = arb(2) ** int(math.floor(goal_log2))
            reach = _up((a.max(b)).sqrt() * 200)
            balls = []
            for i in which:
                found = _branches(act, reach, i)
                if found is None:
                    return None
                value = polar_integral(found, found, parity, polys[i], polys[i], a, b, r, one_minus_square, goal)
                if value is None:
                    return None
                balls.append(value)
        short = bits_short(balls, wanted)
        if short <= 0:
            return balls
        loss += short + 8
    return balls


__all__ = ["NEAR_ONE", "applies", "polar_cross", "polar_integral"]
