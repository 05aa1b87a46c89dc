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


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(generate(), indent=1) + "\n")
