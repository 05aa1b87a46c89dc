"""E[log Σ_{i=1}^V e^{z_i}] for V independent N(0, S²) logits, as a proven Arb ball: the expected
cross-entropy of a softmax over V classes at initialization, whatever the target.

The route (Gumbel's max trick): for fixed z, max_i (z_i + G_i) with G_i iid standard Gumbel is
Gumbel with location log Σ e^{z_i}, so

    E[log Σ e^{z_i}] = E[max_i Y_i] − γ,   Y_i = S·Z_i + G_i iid, with CDF
    F(y) = P(S·Z + G ≤ y) = E[Λ(y − S·Z)] = E[Φ((y − G)/S)],   Λ(u) = exp(−e^{−u}),

and, the V-fold maximum of Gumbels having CDF Λ(y)^V = Λ(y − ln V) and mean ln V + γ,

    E[log Σ e^{z_i}] = ln V + ∫ (Λ(y)^V − F(y)^V) dy.

The integral is a whole-line trapezoidal rule (Trefethen & Weideman, "The exponentially
convergent trapezoidal rule", SIAM Review 56 (2014), Theorem 5.1: |error| ≤ 2M/(e^{2πb/h} − 1)
for a function analytic in |Im y| < b with ∫|f(y + iβ)| dy ≤ M there). Every error is bounded:

* analyticity: for |β| < π/2, |Λ(x + iβ)| = Λ(x)^{cos β} = Λ(x + δ), δ = −ln cos β, hence
  |F(y + iβ)| ≤ F(y + δ) ≤ 1; and |1 − Λ(w)| ≤ min(2, e^{−Re w}) (|1 − e^{−ζ}| ≤ |ζ| for
  Re ζ ≥ 0), hence |1 − F(y + iβ)| ≤ R(y) = E[min(2, e^{−(y − SZ)})];
* M ≤ 2(y₊ − y₋) (|f| ≤ 2 inside) + E₁(V e^{−y₋−δ}) + |y₋| + δ + E|Y| (left of y₋: |Λ^V| and
  |F^V| ≤ F, ∫_{−∞}^{t} F = E[(t − Y)⁺]) + V e^{−y₊} + V·∫_{y₊}^∞ R (right of y₊: |1 − Λ^V| and
  |1 − F^V| ≤ V·|1 − ·|); E₁(s) < e^{−s} ln(1 + 1/s); E|Y| ≤ S + 3/2;
* the nodes outside [y₋, y₊] (monotone bounds, so a sum is at most an integral): left
  E₁(V e^{−y₋}) + F(y₋)^{V−1}·(|y₋| + S + 3/2), right V·(e^{−y₊} + ∫_{y₊}^∞ R), where
  ∫_t^∞ R = e^{−t+S²/2}Φ(c/S − S) + 2Sφ(c/S) − 2cΦ(−c/S) + Φ(−c/S), c = t + ln 2;
* F at each node, by one of two inner trapezoidal rules with their own strip bounds, whichever
  is cheaper: over z (F = ∫φ(z)Λ(y − Sz)dz, strip |Im z| < π/(2S), ∫|φ(x + ia)|dx = e^{a²/2},
  |Λ| ≤ 1) for small S; over the Gumbel variable u (F = ∫g(u)Φ((y − u)/S)du, g(u) = e^{−u}Λ(u),
  ∫|g(x + ia)|dx = 1/cos a, |Φ(x + iβ)| ≤ Φ(x)e^{β²/2}) on the outer grid itself, so that every
  node's sum is one convolution (``engine.convolution``) of g with Φ at the grid's differences;
  its error ε_F adds V·ε_F to F^V.

For a tiny S the excess over ln V (about S²/2) is proven to full relative precision by
``small_std_excess`` instead: with x = X̄ = (1/V)Σ e^{z_i}, δ = x − 1 and Taylor's remainder
−δ⁴/(4ξ⁴) (ξ between 1 and x), log x lies in [δ − δ²/2 + δ³/3 − δ⁴(1 + x^{−4})/4, δ − δ²/2 + δ³/3];
E[δ], E[δ²], E[δ³] are exact in the moments E[a^k] of a = e^{SZ} − 1, and E[δ⁴] ≤ E[a⁴],
E[δ⁴x^{−4}] ≤ (E[a⁸]·E[e^{−8SZ}])^{1/2} (Jensen, Cauchy–Schwarz): an error of about 3.3·S⁴.

F(y₋) and hence y₋ are bounded from above without the inner rule: P(SZ + G ≤ y) ≤ Φ((y − t)/S)
+ Λ(t) (a union) and 1 − F(y) ≥ Φ(−(y − t)/S)(1 − Λ(t)) (independence), at a few t.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from flint import arb, ctx

from ..errors import PrecisionError
from .balls import exact_ball
from .convolution import FixedWeights

# The outer strip's half-width b (< π/2): δ = −ln cos b ≈ 2.65 shifts the bounds of |F| and |Λ|.
STRIP = 1.5
# Work (roughly microseconds of ball arithmetic) beyond which the call is refused (exit 3): the
# CPU budget ends most calls long before; this keeps the node lists within memory.
MAX_WORK = 1.0e9
# Cost per ball evaluation, in microseconds (measured: erfc ~8, exp ~1.2, a product ~0.5).
ERFC_COST, EXP_COST = 9.0, 2.5


def normal_cdf(x: Any) -> Any:
    return (-x / arb(2).sqrt()).erfc() / 2


def normal_pdf(x: Any) -> Any:
    return (-x * x / 2).exp() / (2 * arb.pi()).sqrt()


def gumbel_cdf(x: Any) -> Any:
    """Λ(x) = exp(−e^{−x})."""
    return (-(-x).exp()).exp()


def e1_bound(s: Any) -> Any:
    """An upper bound of the exponential integral E₁(s) = ∫_s^∞ e^{−t}/t dt, s > 0:
    e^{−s}·ln(1 + 1/s) (Abramowitz & Stegun 5.1.20)."""
    return (-s).exp() * (1 + 1 / s).log()


def right_integral(t: Any, s: Any) -> Any:
    """∫_t^∞ R(y) dy with R(y) = E[min(2, e^{−(y − sZ)})], Z ~ N(0, 1), s > 0 (see the module
    docstring)."""
    c = t + arb(2).log()
    u = c / s
    return (-t + s * s / 2).exp() * normal_cdf(u - s) + 2 * s * normal_pdf(u) - (2 * c - 1) * normal_cdf(-u)


def _upper(x: Any) -> float:
    """A float ≥ the ball (inf when it is not finite)."""
    value = float(x.upper()) if x.is_finite() else math.inf
    return value if value == value else math.inf


class _Problem:
    """V, S and the target absolute error ε = 2^−goal of one evaluation."""

    def __init__(self, vocab: int, std: Any, goal: int) -> None:
        self.V, self.S, self.goal = vocab, std, goal
        self.eps = arb(2) ** -goal
        self.spread = self.S + arb(3) / 2  # ≥ E|S·Z + G|: S·sqrt(2/π) + sqrt(γ² + π²/6)

    def f_upper(self, y: Any) -> Any:
        """An upper bound of F(y) = P(S·Z + G ≤ y), from a union and from independence."""
        S = self.S
        best = arb(1)
        for c in (4, 5, 6, 8):
            bound = normal_cdf((y + c) / S) + gumbel_cdf(arb(-c))
            best = bound if _upper(bound) < _upper(best) else best
        for t in (-1, 0, 1, 2, 3):
            bound = 1 - normal_cdf(-(y - t) / S) * (1 - gumbel_cdf(arb(t)))
            best = bound if _upper(bound) < _upper(best) else best
        return arb(best.upper())

    def left_tail(self, y: Any, f_at: Any | None = None) -> Any:
        """Bound of ∫_{−∞}^{y} (Λ^V + F^V): E₁(V e^{−y}) + F(y)^{V−1}(|y| + E|Y|)."""
        f = self.f_upper(y) if f_at is None else f_at
        if f >= 1:
            return arb("inf")
        power = ((self.V - 1) * f.log()).exp() if f > 0 else arb(0)
        return e1_bound(self.V * (-y).exp()) + power * (abs(y) + self.spread)

    def right_tail(self, y: Any) -> Any:
        """Bound of ∫_y^∞ V·(e^{−t} + R(t)) dt."""
        return self.V * ((-y).exp() + right_integral(y, self.S))

    def end(self, tail: Any, start: float, step: float, sign: int) -> float:
        """A point beyond which ``tail`` is at most ε/8, searched from ``start`` in direction
        ``sign`` (double, then bisect)."""
        target = _upper(self.eps / 8)
        ok = lambda y: _upper(tail(arb(y))) <= target
        inner, outer = start, start + sign * step
        while not ok(outer):
            inner, step = outer, 2 * step
            outer = start + sign * step
            if step > 1e9:
                raise PrecisionError("the expected log-sum-exp's tails could not be bounded")
        for _ in range(40):
            middle = (inner + outer) / 2
            if ok(middle):
                outer = middle
            else:
                inner = middle
        return outer


def _raw_moments(S: Any, order: int) -> list[Any]:
    """E[a^k], a = e^{SZ} − 1, k = 0..order, as balls without cancellation: with t = S²/2,
    E[a^k] = Σ_{n ≥ k/2} c_{k,n}·t^n/n!, c_{k,n} = Σ_j C(k,j)(−1)^{k−j} j^{2n} (0 ≤ c_{k,n} ≤ k^{2n}),
    the tail past n = N bounded by (k²t)^{N+1}e^{k²t}/(N + 1)!."""
    t = S * S / 2
    moments = [arb(1)]
    for k in range(1, order + 1):
        total, n, term_bound = arb(0), (k + 1) // 2, arb(0)
        factorial = arb(math.factorial(n))
        while True:
            c = sum(math.comb(k, j) * (-1) ** (k - j) * j ** (2 * n) for j in range(k + 1))
            total += c * t**n / factorial
            n += 1
            factorial *= n
            term_bound = (k * k * t) ** n * (k * k * t).exp() / factorial
            if term_bound < arb(2) ** (-ctx.prec) * abs(total) or n > 4000:
                break
        moments.append(total + arb(0, term_bound.upper()))
    return moments


def small_std_excess(vocab: int, std: Fraction) -> Any:
    """A ball containing E[log Σ e^{S·Z_i}] − ln V for S = ``std`` small (see the module
    docstring; its radius is about 3.3·S⁴ against a value of about S²/2), computed with 40 bits
    beyond the current precision."""
    old = ctx.prec
    ctx.prec = old + 40
    try:
        return _small_std_excess(vocab, std)
    finally:
        ctx.prec = old


def _small_std_excess(vocab: int, std: Fraction) -> Any:
    S = exact_ball(std)
    a = _raw_moments(S, 8)
    V = arb(vocab)
    m1 = a[1]
    m2 = a[2] / V + (1 - 1 / V) * m1 * m1
    m3 = a[3] / (V * V) + 3 * (1 - 1 / V) / V * a[2] * m1 + (1 - 1 / V) * (1 - 2 / V) * m1**3
    cubic = m1 - m2 / 2 + m3 / 3
    remainder = (a[4] + (a[8] * (32 * S * S).exp()).sqrt()) / 4
    return cubic - remainder / 2 + arb(0, (remainder / 2).upper())


def _strip_step(log_factor: Any, a: float, eps_log: float) -> float:
    """The largest step h with 2πa/h ≥ ln(1 + X), X = e^{log_factor}/ε (floats, rounded down: the
    bound is verified in balls afterwards)."""
    log_x = log_factor - eps_log
    total = log_x + (math.log1p(math.exp(-log_x)) if log_x < 700 else 0.0)
    return 2 * math.pi * a / total * (1 - 1e-9)


def _trapezoid_error(log_factor: Any, a: Any, h: Any) -> Any:
    """2·e^{log_factor}/(e^{2πa/h} − 1) as a ball (Trefethen & Weideman, Theorem 5.1, with
    e^{log_factor} bounding the line integrals)."""
    return 2 * log_factor.exp() / ((2 * arb.pi() * a / h).exp() - 1)


def expected_logsumexp(vocab: int, std: Fraction, goal: int) -> Any:
    """A ball containing E[log Σ_{i=1}^V e^{S·Z_i}] (Z_i iid N(0, 1), S = ``std`` > 0, V =
    ``vocab`` ≥ 2), of radius about 2^−``goal``, computed at the current Arb precision plus guard
    bits (PrecisionError where the rule would need more than MAX_WORK)."""
    guard = 24 + vocab.bit_length() + 2 * max(1, goal).bit_length()
    old = ctx.prec
    ctx.prec = max(old, goal + guard)
    try:
        return _expected(vocab, exact_ball(std), goal)
    finally:
        ctx.prec = old


def expected_logsumexp_variance(vocab: int, variance: Any, goal: int) -> Any:
    """``expected_logsumexp`` for logits of variance ``variance`` (a Fraction, or a ball whose
    every value is a variance), S = its square root taken at the working precision."""
    guard = 24 + vocab.bit_length() + 2 * max(1, goal).bit_length()
    old = ctx.prec
    ctx.prec = max(old, goal + guard)
    try:
        ball = exact_ball(variance) if isinstance(variance, Fraction) else arb(variance)
        return _expected(vocab, ball.sqrt(), goal)
    finally:
        ctx.prec = old


def _expected(V: int, S: Any, goal: int) -> Any:
    problem = _Problem(V, S, goal)
    s = float(S.mid())
    log_v = math.log(V)
    step = max(1.0, s)
    precision = ctx.prec
    ctx.prec = 64  # the search only places the ends; their bounds are proven below at full precision
    try:
        y_lo = problem.end(problem.left_tail, log_v, step, -1)
        y_hi = problem.end(problem.right_tail, log_v, step, +1)
    finally:
        ctx.prec = precision

    eps_log = -goal * math.log(2)
    b = arb(STRIP)
    delta = -(b.cos().log())
    y_lo_ball, y_hi_ball = arb(y_lo), arb(y_hi)
    M = (
        2 * (y_hi_ball - y_lo_ball)
        + e1_bound(V * (-y_lo_ball - delta).exp())
        + abs(y_lo_ball)
        + delta
        + problem.spread
        + problem.right_tail(y_hi_ball)
    )
    h_outer = _strip_step(math.log(_upper(M)) + math.log(8), STRIP, eps_log)
    # The inner rules' error at each node, so that V·ε_F summed over [y₋, y₊] is at most ε/4.
    eps_f_log = eps_log - math.log(4 * V * (y_hi - y_lo + 2 * h_outer))

    # (a logit std below 2^-60 is as good as 0 for choosing the rules; the balls keep it exact)
    s = max(s, 2.0**-60)
    gumbel = _gumbel_plan(s, h_outer, eps_f_log)
    normal = _normal_plan(s, eps_f_log)
    n_outer = (y_hi - y_lo) / h_outer + 3
    cost_u = (
        ((y_hi - y_lo) / gumbel["h"] + 3) * (ERFC_COST + 2 * EXP_COST) + gumbel["count"] * ERFC_COST
        if gumbel["h"] > 0
        else math.inf
    )
    cost_z = n_outer * (normal["count"] * EXP_COST + 2 * EXP_COST)
    if min(cost_u, cost_z) > MAX_WORK:
        raise PrecisionError(
            f"the expected log-sum-exp at these sizes needs about {min(cost_u, cost_z) / 1e6:.0f} s of ball "
            "arithmetic; ask fewer digits or a smaller logit std"
        )
    h_float = gumbel["h"] if cost_u <= cost_z else h_outer
    h = arb(h_float)
    k_lo, k_hi = math.floor(y_lo / h_float), math.ceil(y_hi / h_float)
    ys = [k * h for k in range(k_lo, k_hi + 1)]
    if cost_u <= cost_z:
        fs = _nodes_gumbel(S, h, k_lo, k_hi, gumbel, eps_f_log)
    else:
        fs = _nodes_normal(S, ys, normal)

    total = arb(0)
    for y, f in zip(ys, fs):
        total += (-V * (-y).exp()).exp() - f**V
    total *= h
    y_first, y_last = ys[0], ys[-1]
    f_first = arb(min(_upper(fs[0]), _upper(problem.f_upper(y_first))))
    error = _trapezoid_error(M.log(), b, h) + problem.left_tail(y_first, f_first) + problem.right_tail(y_last)
    return arb(V).log() + total + arb(0, error.upper())


def _gumbel_plan(s: float, h_outer: float, eps_f_log: float) -> dict[str, Any]:
    """The inner rule over the Gumbel variable: its strip a, its step (≤ the outer step: they
    share one grid) and its range of nodes."""
    best = (0.0, 0.0)
    for i in range(1, 60):
        a = i * 1.55 / 60
        if a * a / (2 * s * s) > 1e6:
            break
        log_factor = a * a / (2 * s * s) - math.log(math.cos(a)) + math.log(8)
        h = _strip_step(log_factor, a, eps_f_log)
        if h > best[0]:
            best = (h, a)
    h, a = min(best[0], h_outer), best[1]
    if h <= 0:
        return {"h": 0.0, "a": 0.0, "count": math.inf}
    # Tails of g: Λ(u₋) and e^{−u₊}, each at most ε_F/8.
    log_tail = math.log(8) - eps_f_log
    u_lo, u_hi = -math.log(log_tail), log_tail
    return {"h": h, "a": a, "u_lo": u_lo, "u_hi": u_hi, "count": (u_hi - u_lo) / h + 3}


def _normal_plan(s: float, eps_f_log: float) -> dict[str, Any]:
    """The inner rule over z: its strip a ≤ π/(2S)·(1 − 2^−20), step and half-range J."""
    log_tail = math.log(8) - eps_f_log
    a = min(math.pi / (2 * s) * (1 - 2.0**-20), math.sqrt(2 * log_tail))
    h = _strip_step(a * a / 2 + math.log(8), a, eps_f_log)
    z_max = math.sqrt(2 * log_tail)
    while math.erfc(z_max / math.sqrt(2)) > math.exp(-log_tail) and z_max < 1e4:
        z_max *= 1.05
    count = 2 * math.ceil(z_max / h) + 1
    return {"h": h, "a": a, "J": math.ceil(z_max / h), "count": count}


def _nodes_normal(S: Any, ys: list[Any], plan: dict[str, Any]) -> list[Any]:
    """F(y) = E[Λ(y − S·Z)] at each node by the trapezoidal rule over z, each ball widened by its
    proven error."""
    h, a, J = arb(plan["h"]), arb(plan["a"]), plan["J"]
    zs = [j * h for j in range(-J, J + 1)]
    weights = [h * normal_pdf(z) for z in zs]
    growth = [(S * z).exp() for z in zs]
    error = _trapezoid_error(a * a / 2, a, h) + 2 * normal_cdf(-J * h)
    radius = arb(0, error.upper())
    out = []
    for y in ys:
        scale = (-y).exp()
        total = arb(0)
        for w, g in zip(weights, growth):
            total += w * (-(scale * g)).exp()
        out.append(total + radius)
    return out


def _nodes_gumbel(S: Any, h: Any, k_lo: int, k_hi: int, plan: dict[str, Any], eps_f_log: float) -> list[Any]:
    """F(y_k) = E[Φ((y_k − G)/S)] at y_k = k·h by the trapezoidal rule over u = j·h: one
    convolution of h·g(u_j) with Φ(m·h/S), each ball widened by the rule's proven error."""
    h_float = float(h.mid())
    j_lo = min(0, math.floor(plan["u_lo"] / h_float))
    j_hi = max(0, math.ceil(plan["u_hi"] / h_float))
    weights = []
    for j in range(j_lo, j_hi + 1):
        u = j * h
        weights.append(h * (-u).exp() * gumbel_cdf(u))
    m_lo, m_hi = k_lo - j_hi, k_hi - j_lo
    values = [normal_cdf(m * h / S) for m in range(m_lo, m_hi + 1)]
    bits = ctx.prec + 8
    sums = FixedWeights(weights, bits).convolve(values, [k - j_lo - m_lo for k in range(k_lo, k_hi + 1)])
    a = arb(plan["a"])
    log_factor = a * a / (2 * S * S) - a.cos().log()
    error = _trapezoid_error(log_factor, a, h) + (-(j_hi * h)).exp() + gumbel_cdf(j_lo * h)
    radius = arb(0, error.upper())
    return [f + radius for f in sums]
