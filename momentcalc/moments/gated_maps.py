"""Proven infinite-width maps of a gated unit φ(a, b) = a·g(b) (glu, geglu, swiglu:
``catalog.gated``), from the certified routes of its gate g.

Two inputs x, x' give the two halves (a, b) and (a', b') of the layer's projection: a independent
of b and a' of b', corr(a, a') = corr(b, b') = ρ, Var a = Var b = q1 and Var a' = Var b' = q2
(independent weights for the two halves, the same inputs). With the gate's kernels
K_g(ρ) = E[g(b)g(b')] and K_g'(ρ) = E[g'(b)g'(b')] (``kernel_maps.kernel_pair``):

    nngp            = E[φ(x)φ(x')] = E[aa']·E[g(b)g(b')] = ρ·√(q1q2)·K_g
    ntk_derivative  = E[∇φ(x)·∇φ(x')], ∇φ = (g(b), a·g'(b)):  K_g + ρ·√(q1q2)·K_g'
                      (at ρ = 1, q = 1: E[g²] + E[a²]E[g'²], activation-moment's
                      derivative_second_moment; each half's NTK is multiplied by its factor)
    E[φ(x)²]        = q1·A(q1),  A(q) = E[g(√q·Z)²]
    correlation_out = nngp/√(E[φ(x)²]E[φ(x')²]) = ρ·K_g/√(A(q1)A(q2))

At q1 = q2 = q the C map is C(c) = c·K_g(c)/A (ρ = c), and by Price's theorem
dK_g/dc = q·K_g', d²K_g/dc² = q²·E[g''(b)g''(b')], so the local quantities of deep kernel
shaping (Martens et al., 2021, "Rapid training of deep neural networks without skip connections
or normalization layers", with ∇φ for φ') are

    C(0)  = 0                                          (E[φ] = E[a]·E[g] = 0)
    C'(1) = (K_g + q·K_g')(1)/A = 1 + q·E[g'²]/E[g²]   (= q·E[|∇φ|²]/E[φ²])
    C''(1) = (2K_g' ·q + q²·E[g''²])(1)/A = (2q·E[g'²] + q²·E[g''²])/E[g²]
    Q'(q) = d/dq (q·A(q)) = E[g²] + E[u·g(u)·g'(u)],  u ~ N(0, q)

(A'(q) = E[u·g·g']/q, as for one input). A plain network of gated units (weights
N(0, σ_w²/fan_in) and biases N(0, σ_b²) for both halves) maps q ← σ_w²·q·A(q) + σ_b² and
c ← (σ_w²·c·q·K_g(c) + σ_b²)/q' (``gated_layer_balls``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from flint import arb, ctx

from ..catalog import Activation
from ..engine.gaussian_balls import as_arb
from ..engine.precision import Precision
from .kernel_maps import (
    LENGTH_LIMIT_DIGITS,
    FourthMoments,
    NotProven,
    clip,
    curvature_ball,
    gaussian_balls,
    kernel_pair,
    layer_boxes,
    local_balls,
    nngp_over,
)


def _bits(digits: int) -> int:
    return Precision(digits).ball_bits


def _scale(rho: Fraction | arb, q1: Fraction | arb, q2: Fraction | arb) -> arb:
    """E[aa'] = ρ·√(q1q2) (at the current precision)."""
    return as_arb(rho) * (as_arb(q1) * as_arb(q2)).sqrt()


def gated_kernel_balls(
    gate: Activation, rho: Fraction, q1: Fraction, q2: Fraction, local: bool, digits: int
) -> dict[str, Any]:
    """nngp, ntk_derivative, correlation_out and (``local``, q1 = q2) C'(1), C''(1), Q'(q) of
    a·gate(b) as balls, each to about ``digits`` digits (the module docstring's formulas; C(0)
    is exactly 0, the caller's)."""
    k, k1 = kernel_pair(gate, rho, q1, q2, digits)
    first = local_balls(gate, q1, digits)
    second = first if q1 == q2 else local_balls(gate, q2, digits)
    curvature = curvature_ball(gate, q1, digits) if local else None
    if local and curvature is None:  # the catalog's gates are smooth
        raise NotProven(f"c_map_curvature_at_1: {gate.name}' jumps", param="activation")
    out: dict[str, Any] = {}
    with ctx.workprec(_bits(digits)):
        scale = _scale(rho, q1, q2)
        out["nngp"] = scale * k
        out["ntk_derivative"] = k + scale * k1
        out["correlation_out"] = as_arb(rho) * k / (first["second_moment"] * second["second_moment"]).sqrt()
        if local:
            assert curvature is not None  # raised above when local and None
            q, a, slope = as_arb(q1), first["second_moment"], first["slope"]
            out["c_map_slope_at_1"] = 1 + q * slope / a
            out["c_map_curvature_at_1"] = (2 * q * slope + q * q * curvature) / a
            out["q_map_slope_at_1"] = a + first["cross"]
    return out


def gated_nngp_over(
    gate: Activation,
    rho: Fraction | arb,
    q1: Fraction | arb,
    q2: Fraction | arb,
    digits: int,
    same: bool = False,
) -> arb:
    """E[φ(x)φ(x')] = ρ·√(q1q2)·K_g for every ρ, q1, q2 in the given balls (``kernel_maps.nngp_over``
    encloses K_g over them)."""
    k = nngp_over(gate, rho, q1, q2, digits, same=same)
    with ctx.workprec(_bits(digits)):
        return _scale(rho, q1, q1 if same else q2) * k


def gated_second_moment(gate: Activation, q: Fraction | arb, digits: int) -> arb:
    """E[φ(x)²] = q·E[g(√q·Z)²] for every q in the variance (or ball of variances) ``q``."""
    found = gaussian_balls(gate, [(0, 2, 0)], q, digits)[0]
    with ctx.workprec(_bits(digits)):
        return as_arb(q) * found


def gated_layer_balls(*args: Any, **kwargs: Any) -> tuple[arb, arb | None]:
    """(q', c') of ``gated_layer_boxes``."""
    return gated_layer_boxes(*args, **kwargs)[:2]


def gated_layer_boxes(
    gate: Activation,
    q: Fraction,
    r_q: Fraction,
    c: Fraction | None,
    r_c: Fraction,
    w: Fraction,
    b: Fraction,
    digits: int,
    bounds: FourthMoments | None = None,
) -> tuple[arb, arb | None, arb | None]:
    """One layer of a plain network of gated units a·gate(b) at equal variances, as
    ``kernel_maps.layer_balls`` (the same arguments, the same box q ∈ [q ± r_q], c ∈ [c ± r_c]):

        q' = σ_w²·Q + σ_b²,  Q = q·A(q);    c' = f(Q, m) = (σ_w²·Q·m + σ_b²)/(σ_w²·Q + σ_b²),  m = c·C_g(c)

    with A(q) = E[g(√q·Z)²] and the gate's C map C_g = K_g/A over the box from the gate's own
    ``layer_balls`` at σ_w² = 1, σ_b² = 0 (its radii grow by the map's slopes). |m| ≤ 1
    (Cauchy–Schwarz), f increases in m and, as ∂f/∂Q = σ_w²σ_b²(m − 1)/(σ_w²Q + σ_b²)² ≤ 0,
    decreases in Q: c' lies in [f(Q_hi, m_lo), f(Q_lo, m_hi)] (at σ_b² = 0, c' = m). The third
    item: the NTK recursion's factor E[∇φ(x)·∇φ(x′)] = K_g + c·q·K_g′ over the box (None for the
    length alone), from the gate's K_g and K_g′ over it."""
    found = layer_boxes(gate, q, r_q, c, r_c, Fraction(1), Fraction(0), digits, bounds)
    a, gate_c = found.q, found.c
    with ctx.workprec(_bits(digits)):
        big_q = (as_arb(q) + arb(0, as_arb(r_q).upper())) * a
        if not big_q > 0:
            raise NotProven("a layer's variance cannot be proven positive at these digits", param="depth")
        ww, bb = as_arb(w), as_arb(b)
        q_next = ww * big_q + bb
        if c is None:
            return q_next, None, None
        # layer_boxes gives c', K and K1 whenever c is given
        assert gate_c is not None and found.k is not None and found.k1 is not None
        c_ball, q_ball = as_arb(c) + arb(0, as_arb(r_c).upper()), as_arb(q) + arb(0, as_arb(r_q).upper())
        dot = found.k + c_ball * q_ball * found.k1
        m = c_ball * gate_c
        m = arb(m.lower()).max(arb(-1)).union(arb(m.upper()).min(arb(1)))
        if b == 0:
            return q_next, m, dot
        q_lo, q_hi, m_lo, m_hi = arb(big_q.lower()), arb(big_q.upper()), arb(m.lower()), arb(m.upper())
        low = (ww * q_hi * m_lo + bb) / (ww * q_hi + bb)
        high = (ww * q_lo * m_hi + bb) / (ww * q_lo + bb)
        c_next = clip(arb(low.lower()).union(arb(high.upper())))
    return q_next, c_next, dot


def constant_gate_tail(centre: tuple[Fraction, Fraction]) -> Any:
    """The fading tail of a deep network of a·g(b) at σ_b² = 0 for a gate with g(0) = γ ≠ 0,
    g − γ odd and |g'| ≤ L (glu: γ = 1/2, L = 1/4): a function of (q ball, σ_w², digits, c
    ball) giving ``fading_tail.Tail`` (every later layer at once) or None. For every q ≤ q_L,
    with ε = L²q/γ² (E[g − γ] = 0 by oddness, |g − γ| ≤ L|x|, Cauchy–Schwarz):

        A(q) = E[g²] = γ² + E[(g − γ)²] ∈ γ²·[1, 1 + ε],   |K_g − γ²| = |E[(g(b) − γ)(g(b') − γ)]| ≤ γ²ε,

    so q' = σ_w²·q·A ∈ σ_w²γ²·q·[1, 1 + ε] and c' = c·K_g/A with K_g/A ∈ [(1 − ε)/(1 + ε), 1 + ε],
    |c' − c| ≤ 2ε. With λ = σ_w²γ²(1 + ε_L) < 1 the variances fall at least geometrically,
    Σ_{l ≥ L} ε_l ≤ S = ε_L/(1 − λ), and for every k ≥ 0

        q_{L+k} ∈ q_L·(σ_w²γ²)^k·[1, e^S],   |c_{L+k} − c_L| ≤ 2S.

    None while S is not below 10^−digits (relative to c)."""
    from .fading_tail import Tail

    gamma, lipschitz = centre

    def tail(q: arb, w: Fraction, digits: int, c: arb | None) -> Any:
        if not q > 0:
            return None
        gamma2 = as_arb(gamma) ** 2
        eps = as_arb(lipschitz) ** 2 * arb(q.upper()) / gamma2
        lam = as_arb(w) * gamma2 * (1 + eps)
        if not lam < 1:
            return None
        total = arb((eps / (1 - lam)).upper())
        small = arb(10) ** (-digits)
        if not total < small or (c is not None and not 2 * total < small * abs(c)):
            return None
        return Tail(as_arb(w) * gamma2, (arb(0, 1) * total).exp(), arb((2 * total).upper()))

    return tail


def runaway_layer(
    gate: Activation, quadratic: tuple[Fraction, Fraction], q0: Fraction, w: Fraction, collapse: bool
) -> int:
    """A layer by which the variance of a deep network of a·g(b) at σ_b² = 0, starting at ``q0``,
    is proven below (``collapse``) or above 10^∓LENGTH_LIMIT_DIGITS (``propagation.check_length``'s
    ends of a trajectory), for a gate with l·q ≤ A(q) = E[g(√q·Z)²] ≤ h·q (``quadratic``):
    q' = σ_w²·q·A(q) lies in σ_w²·[l, h]·q². With u_1 ≥ q_1 (≤, for the explosion) from layer 1's
    proven A(q0) (q_1 = σ_w²·q0·A(q0): the layer's own σ_w² too) and t = σ_w²h·u_1 < 1
    (σ_w²l·u_1 > 1), p_k = σ_w²h·q_k obeys p_{k+1} ≤ p_k², so q_{1+k} ≤ t^(2^k)/(σ_w²h) (≥ with l).
    0 when no runaway is proven this way."""
    found = gaussian_balls(gate, [(0, 2, 0)], q0, 5)[0]
    with ctx.workprec(128):
        scale = as_arb(w) * as_arb(quadratic[1] if collapse else quadratic[0])
        first = as_arb(w) * as_arb(q0) * arb(found.upper() if collapse else found.lower())  # u_1
        t = scale * first
        if not (t < 1 if collapse else t > 1):
            return 0
        ten = arb(10).log()
        exponent, shift = t.log() / ten, scale.log() / ten
        k = 0
        if collapse:
            while not (exponent * 2**k - shift).upper() < -LENGTH_LIMIT_DIGITS:
                k += 1
        else:
            while not (exponent * 2**k - shift).lower() > LENGTH_LIMIT_DIGITS:
                k += 1
    return 1 + k


def gated_coefficient_balls(gate: Activation, terms: int, digits: int) -> list[arb]:
    """The orthonormal bivariate Hermite expansion of a·g(b), a, b independent N(0, 1):
    a = h_1(a) and g(b) = Σ_k β_k·h_k(b) (h_k = He_k/√(k!), β_k the gate's coefficients), so
    a·g(b) = Σ_k β_k·h_1(a)h_k(b), one term of each total degree n = k + 1. The coefficient of
    total degree n is c_n = β_{n−1} (n ≥ 1) and c_0 = 0, n < ``terms``; Mehler's formula in
    both variables gives E[φ(x)φ(x')] = Σ_n c_n²·ρ^n = ρ·K_g(ρ) (kernel's nngp at q = 1)."""
    from .hermite_coefficients import coefficient_balls

    return [arb(0)] + (coefficient_balls(gate, terms - 1, digits) if terms > 1 else [])


__all__ = [
    "constant_gate_tail",
    "gated_coefficient_balls",
    "gated_kernel_balls",
    "gated_layer_balls",
    "gated_layer_boxes",
    "gated_nngp_over",
    "gated_second_moment",
    "runaway_layer",
]
