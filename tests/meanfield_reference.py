"""An independent route to meanfield's results for the tests: mpmath.quad of the Gaussian
integrals (tanh-sinh on (-inf, 0] and [0, inf)) at 50+ digits and mpmath.findroot, with none
of momentcalc's moments, proofs or Newton stages. For smooth φ given with φ' and φ''."""

from __future__ import annotations

from functools import lru_cache

import mpmath
from mpmath import mp

DPS = 60


def _gauss(f, q):  # E[f(√q·Z)]
    s = mpmath.sqrt(q)
    g = lambda z: f(s * z) * mpmath.exp(-z * z / 2)  # noqa: E731
    return (mpmath.quad(g, [-mpmath.inf, -4, 0]) + mpmath.quad(g, [0, 4, mpmath.inf])) / mpmath.sqrt(2 * mpmath.pi)


ACTIVATIONS = {
    "tanh": (mpmath.tanh, lambda x: mpmath.sech(x) ** 2, lambda x: -2 * mpmath.tanh(x) * mpmath.sech(x) ** 2),
    "erf": (mpmath.erf, lambda x: 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x * x),
            lambda x: -4 * x / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x * x)),
    "swish": (lambda x: x / (1 + mpmath.exp(-x)),
              lambda x: (1 + mpmath.exp(-x) + x * mpmath.exp(-x)) / (1 + mpmath.exp(-x)) ** 2,
              lambda x: mpmath.diff(lambda t: (1 + mpmath.exp(-t) + t * mpmath.exp(-t)) / (1 + mpmath.exp(-t)) ** 2, x)),
}


@lru_cache(maxsize=None)
def ordered(name: str, w: str, b: str, q0: str = "1", dps: int = DPS) -> dict[str, mpmath.mpf]:
    """q*, chi1, depth_scale_q and (ordered phase) depth_scale_c for φ = ``name`` at exact w, b:
    the fixed point by findroot from q0's fixed-point iteration, then the integrals at it."""
    phi, d1, _ = ACTIVATIONS[name]
    with mp.workdps(dps):
        W, B = mpmath.mpf(w), mpmath.mpf(b)
        q = mpmath.mpf(q0)
        for _ in range(60):  # plain iteration toward the attracting fixed point
            q = W * _gauss(lambda x: phi(x) ** 2, q) + B
        q = mpmath.findroot(lambda t: W * _gauss(lambda x: phi(x) ** 2, t) + B - t, q, tol=mpmath.mpf(10) ** (-dps + 8))
        chi = W * _gauss(lambda x: d1(x) ** 2, q)
        slope = W * _gauss(lambda x: x * phi(x) * d1(x), q) / q  # V'(q*) (Stein)
        out = {"q_star": q, "chi1": chi, "depth_scale_q": -1 / mpmath.log(abs(slope))}
        if chi < 1:
            out["depth_scale_c"] = -1 / mpmath.log(chi)
        return out
