"""An independent route to meanfield's results for the tests: mpmath.quad of the Gaussian
integrals (tanh-sinh on (-inf, 0] and [0, inf), split at ±4) at 50 digits and mpmath.findroot,
with none of momentcalc's moments, proofs or Newton stages.

``python tests/meanfield_reference.py`` regenerates tests/meanfield_references.json (the
audit's reproduction cases near the edge of chaos and near a fold); a slow test recomputes
one entry and compares."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import mpmath
from mpmath import mp

DPS = 50
FIXTURE = Path(__file__).with_name("meanfield_references.json")


def _gauss(f, q):  # E[f(√q·Z)]
    s = mpmath.sqrt(q)
    g = lambda z: f(s * z) * mpmath.exp(-z * z / 2)
    return (mpmath.quad(g, [-mpmath.inf, -4, 0]) + mpmath.quad(g, [0, 4, mpmath.inf])) / mpmath.sqrt(
        2 * mpmath.pi
    )


def _swish_slope(x):
    e = mpmath.exp(-x)
    return (1 + e + x * e) / (1 + e) ** 2


ACTIVATIONS = {
    "tanh": (mpmath.tanh, lambda x: mpmath.sech(x) ** 2),
    "erf": (mpmath.erf, lambda x: 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x * x)),
    "swish": (lambda x: x / (1 + mpmath.exp(-x)), _swish_slope),
}


@cache
def fixed_point(name: str, w: str, b: str, start: str, dps: int = DPS) -> dict[str, str]:
    """q*, chi1, depth_scale_q and (ordered phase) depth_scale_c, as 40-digit strings, for φ =
    ``name`` at exact w, b: findroot from ``start`` (a rough q*), then the integrals there."""
    phi, d1 = ACTIVATIONS[name]
    with mp.workdps(dps + 10):
        W, B = mpmath.mpf(w), mpmath.mpf(b)
        q = mpmath.findroot(
            lambda t: W * _gauss(lambda x: phi(x) ** 2, t) + B - t,
            mpmath.mpf(start),
            tol=mpmath.mpf(10) ** (-2 * dps),
        )
        chi = W * _gauss(lambda x: d1(x) ** 2, q)
        slope = W * _gauss(lambda x: x * phi(x) * d1(x), q) / q  # V'(q*) (Stein)
        assert 0 < slope < 1, "the root found repels: start nearer the attracting fixed point"
        out = {"q_star": q, "chi1": chi, "depth_scale_q": -1 / mpmath.log(slope)}
        if chi < 1:
            out["depth_scale_c"] = -1 / mpmath.log(chi)
        return {k: mpmath.nstr(v, 45) for k, v in out.items()}


# (activation, sigma_w2, sigma_b2, q0, rough q*): issue 22's cases near the edge of chaos and a fold
CASES = [
    ("tanh", w, "0.05", "1", "0.57")
    for w in (
        "1.76095463960673913",
        "1.7609546396067",
        "1.761",
        "1.760953",
        "1.7609546",
        "1.76095463",
        "1.760954639606",
    )
]
CASES.append(("swish", "2.560282548566569", "0.1", "0.5", "0.69944066318"))


def generate() -> dict[str, dict[str, str]]:
    return {" ".join(case[:4]): fixed_point(case[0], case[1], case[2], case[4]) for case in CASES}


# The chaotic phase's c* and ξ_c (issue 34's sweep points that were refused near a rounding tie),
# stored in tests/meanfield_chaotic_references.json: (activation, sigma_w2, sigma_b2).
CHAOTIC_FIXTURE = Path(__file__).with_name("meanfield_chaotic_references.json")
CHAOTIC_CASES = [
    ("tanh", "1.6", "0.02"),
    ("tanh", "3", "0.2"),
    ("erf", "2", "0.1"),
    ("erf", "2.04", "0.1"),
    ("erf", "2.06", "0.1"),
    ("erf", "3.5", "0.3"),
]
CHAOTIC_DPS = 40
# Gauss-Legendre nodes on [-L, L] (3·2^(DEGREE−1) of them) for the bivariate expectations:
# the Gaussian weight is below 10^-55 past L = 16, and 384 nodes agree with nested tanh-sinh
# (mpmath.quad) to 45 digits for tanh at q* = 0.4, c = 0.89.
SPAN, DEGREE = 16, 8


@cache
def _nodes(degree: int, prec: int) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """(x, weight·density(x)) for E[f(Z)] ≈ Σ weight·f(x), Z ~ N(0, 1), at the current precision."""
    from mpmath.calculus.quadrature import GaussLegendre

    raw = GaussLegendre(mp).calc_nodes(degree, prec)
    root = mpmath.sqrt(2 * mpmath.pi)
    return [(SPAN * x, SPAN * w * mpmath.exp(-((SPAN * x) ** 2) / 2) / root) for x, w in raw]


def _cross(f, q, c, nodes) -> mpmath.mpf:
    """E[f(u₁)f(u₂)], (u₁, u₂) centred Gaussian with variances q and correlation c >= 0:
    u_i = √(qc)·W + √(q(1−c))·V_i with W, V₁, V₂ independent, so the expectation is
    E_W[h(W)²], h(w) = E_V[f(√(qc)·w + √(q(1−c))·V)] (a tensor Gauss-Legendre rule)."""
    a, b = mpmath.sqrt(q * c), mpmath.sqrt(q * (1 - c))
    total = mp.zero
    for w, weight in nodes:
        h = mpmath.fsum(v_weight * f(a * w + b * v) for v, v_weight in nodes)
        total += weight * h * h
    return total


def _erf_kernels(q, c):
    """erf's (K, K₁) in closed form (Williams 1997): (2/π)·arcsin(2qc/(1 + 2q)) and
    (4/π)/sqrt((1 + 2q)² − (2qc)²)."""
    return (
        2 / mpmath.pi * mpmath.asin(2 * q * c / (1 + 2 * q)),
        4 / mpmath.pi / mpmath.sqrt((1 + 2 * q) ** 2 - (2 * q * c) ** 2),
    )


def chaotic(name: str, w: str, b: str, dps: int = CHAOTIC_DPS) -> dict[str, str]:
    """q*, χ₁, ξ_q, c* and ξ_c, as strings of ``dps`` digits, in the chaotic phase (c* in
    (0, 1)): q* by iterating the length map to a start for ``fixed_point``, then Newton on
    F(c) = (σ_w²·K(c) + σ_b²)/q* − c from c = 0 (F convex and decreasing there: it climbs
    monotonically to c*), F'(c) = σ_w²·K₁(c) − 1, K₁ = E[φ'(u₁)φ'(u₂)] (Price's theorem), first
    at 20 digits with fewer nodes, then at ``dps``; K and K₁ by tensor Gauss-Legendre quadrature
    (``_cross``), erf's in closed form."""
    phi, d1 = ACTIVATIONS[name]
    with mp.workdps(15):
        q = mpmath.mpf(1)
        for _ in range(60):
            q = mpmath.mpf(w) * _gauss(lambda x: phi(x) ** 2, q) + mpmath.mpf(b)
    out = fixed_point(name, w, b, mpmath.nstr(q, 10), dps + 10)
    c = mpmath.mpf(0)
    for work, degree, steps in ((20, DEGREE - 1, 12), (dps + 10, DEGREE, 3)):
        with mp.workdps(work):
            if name == "erf":
                kernels = _erf_kernels
            else:
                nodes = _nodes(degree, mp.prec)
                kernels = lambda q, c: (_cross(phi, q, c, nodes), _cross(d1, q, c, nodes))
            W, B, Q = mpmath.mpf(w), mpmath.mpf(b), mpmath.mpf(out["q_star"])
            c = +c
            for _ in range(steps if name != "erf" else 2 * steps):
                k, k1 = kernels(Q, c)
                c -= ((W * k + B) / Q - c) / (W * k1 - 1)
            result = {"c_star": c, "depth_scale_c": -1 / mpmath.log(W * kernels(Q, c)[1])}
    with mp.workdps(dps + 10):
        out.update({k: mpmath.nstr(v, dps) for k, v in result.items()})
    return out


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["chaotic"]:
        CHAOTIC_FIXTURE.write_text(
            json.dumps({" ".join(case): chaotic(*case) for case in CHAOTIC_CASES}, indent=1) + "\n"
        )
    else:
        FIXTURE.write_text(json.dumps(generate(), indent=1) + "\n")
