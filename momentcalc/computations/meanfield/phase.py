"""The words of ``meanfield``'s notes: the phase (ordered, chaotic, critical) in terms a reader
can act on (Schoenholz et al. 2017, "Deep information propagation"), and what is unproven."""

from __future__ import annotations

from typing import Any

import mpmath

# Schoenholz et al. 2017: networks train up to about this many multiples of ξ_c.
TRAINABLE_XI = 6
# χ₁ closer to 1 than this is written as 1 ∓ its distance (nstr to 6 digits would print 1.0).
NEAR_ONE = mpmath.mpf(10) ** -5


def chi_text(chi: mpmath.mpf) -> str:
    """χ₁ for a note: 6 digits, or 1 − d / 1 + d (d to 3 digits) when it is that close to 1."""
    gap = chi - 1
    if gap != 0 and abs(gap) < NEAR_ONE:
        return f"1 {'-' if gap < 0 else '+'} {mpmath.nstr(abs(gap), 3)}"
    return mpmath.nstr(chi, 6)


def preserved(kink: bool) -> list[str]:
    """Notes for the length-preserving case; ``kink``: φ'(0−) ≠ φ'(0+)."""
    notes = [
        "the length is preserved exactly: sigma_w2*E[phi(Z)^2] = 1 with sigma_b2 = 0 makes the length map "
        "q -> q for this positively homogeneous phi, so every q is a fixed point and q* is q0 at every depth; "
        "chi1 = 1 (the edge of chaos; for relu this is He initialization, sigma_w2 = 2)"
    ]
    if kink:
        notes.append(
            "correlations between inputs approach c* = 1 only polynomially with depth: both depth scales "
            "are infinite"
        )
    else:
        notes.append(
            "c_star is undefined (nan): the network is linear and keeps every correlation; both depth "
            "scales are infinite"
        )
    return notes


def zero_critical() -> str:
    return (
        "critical at q* = 0 (chi1 = 1): the signal length decays to 0 only polynomially "
        "with depth (no fixed point above 0; depth_scale_q is infinite)"
    )


def zero_dies(chi: mpmath.mpf, xi: mpmath.mpf) -> str:
    if chi == 0:  # phi'(0) = 0: q' = O(q^2)
        return (
            "q* = 0: phi'(0) = 0, so the signal length falls faster than any exponential (chi1 = 0, "
            "depth_scale_q = 0) and dies out; add bias variance (sigma_b2 > 0) or raise sigma_w2 to keep "
            "a signal"
        )
    return (
        f"q* = 0: the signal length shrinks by chi1 = {mpmath.nstr(chi, 6)} per layer and dies out "
        f"(1/e every {mpmath.nstr(xi, 4)} layers); add bias variance "
        "(sigma_b2 > 0) or raise sigma_w2 to keep a signal"
    )


def zero_correlations(linear: bool) -> str:
    if linear:
        return (
            "c_star is undefined (nan): as q -> 0 the network acts as its linearisation at 0, which "
            "keeps every correlation; depth_scale_c is infinite (correlations are not forgotten at "
            "an exponential rate, the signal itself fades instead)"
        )
    return (
        "as q -> 0 the network acts as its piecewise-linear limit at 0, which drives correlations "
        "to c* = 1 only polynomially: depth_scale_c is infinite"
    )


def homogeneous_zero(label: str, found: Any, c_star: mpmath.mpf, xi: mpmath.mpf) -> str:
    n, second = found.degree, found.second
    where = (
        "c* = 0 exactly (the map is odd and lies below c -> c on (0, 1))"
        if found.odd
        else f"its stable fixed point c* = {mpmath.nstr(c_star, 6)} (c = 1 repels)"
    )
    return (
        f"q* = 0: {label} is positively homogeneous of degree {n}, so with sigma_b2 = 0 the length map "
        f"q -> sigma_w2*{second}*q^{n} takes q to 0 faster than any exponential (chi1 = 0, depth_scale_q = 0), "
        f"and every layer maps correlations by the same c -> k(c)/k(1), k {found.source}: {where} "
        f"is reached from every c0 in (-1, 1), 1/e every {mpmath.nstr(xi, 4)} layers"
    )


def zero_flat() -> str:
    return (
        "c_star and depth_scale_c are not decided (nan): phi'(0) = 0, so as q -> 0 the correlations "
        "follow the map of phi's leading nonlinear term at 0, which is derived for relu2 and c*x**n only, "
        "not the linearisation's identity map"
    )


def repels(q: mpmath.mpf, slope: mpmath.mpf) -> str:
    return (
        f"q* = {mpmath.nstr(q, 6)} repels: the length map's slope there is {mpmath.nstr(slope, 4)} "
        "> 1, so a length slightly off q* moves away from it (depth_scale_q < 0 is the e-folding depth "
        "of that departure); this q* is reached only from q0 = q* exactly"
    )


def critical() -> str:
    return (
        "critical (chi1 = 1, the edge of chaos): correlations between inputs decay only "
        "polynomially with depth, so depth_scale_c is infinite; at initialization signals and "
        "gradients pass through any depth (the initialization Schoenholz et al. 2017 recommend "
        "for very deep networks)"
    )


def ordered(chi: mpmath.mpf, xi: mpmath.mpf) -> str:
    return (
        f"ordered phase (chi1 = {chi_text(chi)} < 1): all inputs converge to the same representation "
        f"(c* = 1), with correlation gaps shrinking 1/e every {mpmath.nstr(xi, 4)} layers; gradients vanish "
        f"by chi1 per layer. Networks train up to about {TRAINABLE_XI}*depth_scale_c = "
        f"{mpmath.nstr(TRAINABLE_XI * xi, 3)} layers (Schoenholz et al. 2017); raise sigma_w2 toward the "
        "critical value ({critical}) to go deeper"
    )


def chaotic(chi: mpmath.mpf, c_star: mpmath.mpf, xi: mpmath.mpf) -> str:
    return (
        f"chaotic phase (chi1 = {chi_text(chi)} > 1): nearby inputs decorrelate toward c* = "
        f"{mpmath.nstr(c_star, 6)}, settling 1/e every {mpmath.nstr(xi, 4)} layers; gradients explode by chi1 "
        f"per layer. Networks train up to about {TRAINABLE_XI}*depth_scale_c = {mpmath.nstr(TRAINABLE_XI * xi, 3)} "
        "layers (Schoenholz et al. 2017); lower sigma_w2 toward the critical value ({critical}) to go deeper"
    )


def unproven(names: list[str], q_star: mpmath.mpf, preserved: bool = False) -> str:
    """The note for results ``names`` that are not proven (``preserved``: the length map is
    q -> q, where only a linear φ's undefined c* is left unproven)."""
    return (
        f"not proven by ball arithmetic (certified: false): {', '.join(names)}; "
        f"they rest on mpmath at raised precision ({_why(names, q_star, preserved)})"
    )


def _why(names: list[str], q_star: mpmath.mpf, preserved: bool) -> str:
    reasons = []
    fixed = [name for name in names if name not in ("q_layers", "c_layers")]
    if q_star == 0 and fixed == ["c_star"]:
        reasons.append("c* is undefined where phi'(0-) = phi'(0+) != 0")
    elif q_star == 0 and fixed:
        reasons.append(
            "the limits at q* = 0 are proven for a catalog activation with a closed-form kernel or "
            "within its tangents at 0 (tanh, erf, softsign, elu, selu, celu, hardtanh, relu6), which "
            "excludes a fixed point above 0; c* is undefined where phi'(0-) = phi'(0+) != 0, not decided "
            "where both are 0 (but for relu2 and c*x**n)"
        )
    elif preserved and "c_star" in names:
        reasons.append("c* is undefined where phi'(0-) = phi'(0+)")
    elif "c_star" in names or "depth_scale_c" in names:
        reasons.append(
            "the chaotic phase's c* needs bivariate expectations E[phi(u1)phi(u2)] and "
            "E[phi'(u1)phi'(u2)], proven for every catalog activation and for expressions whose "
            "|phi| and |phi'| are bounded by polynomials on the real line (kinks included); not "
            "proven here"
        )
    if "c_layers" in names:
        reasons.append(
            "the per-layer correlations are proven where the kernel E[phi(u1)phi(u2)] has a closed "
            "form (relu, leaky_relu, erf, identity), at c0 = 1, and otherwise by the certified "
            "bivariate route, which did not reach here (a correlation too close to 1); they are "
            "computed at two precisions that must agree"
        )
    return "; ".join(reasons)
