"""meanfield's q* proven from one Newton step (``locate.ProofFinish``, ``prove.NewtonInterval``):
from 200 working digits the last Newton stage takes the proof's expectations at a point right
to about half the digits and the proof encloses q* by Taylor's theorem from there. The printed
digits are checked against an independent route: the Gaussian expectations by mpmath's plain
trapezoidal rule (tanh is analytic on |Im x| < π/2: the step below errs by far less than
10^-280) and Newton's method on V(q) − q, with none of momentcalc's moments or proofs."""

from __future__ import annotations

import mpmath
import pytest
from mpmath import mp

from momentcalc.computations.meanfield import meanfield, prove
from momentcalc.engine.precision import to_decimal

from .certified_checks import assert_certified

DIGITS = 250
DPS = 290


def _moments(q: mpmath.mpf, dps: int) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(E[φ²], E[X·φ·φ'], E[φ'²], E[φ']) for φ = tanh, X = √q·Z ~ N(0, q), at ``dps`` digits, by the
    trapezoidal rule on the right half of the line (the integrands are even): tanh's poles at
    ±iπ/2 make its error about exp(−π²/(h·√q)), below 10^-(dps + 5) for the step h taken."""
    with mp.workdps(dps + 10):
        s = mpmath.sqrt(q)
        h = mpmath.pi**2 / (s * (dps + 10) * mpmath.log(10))
        sums = [mp.zero, mp.zero, mp.one / 2, mp.one / 2]  # at 0: tanh 0 = 0, tanh' = 1 (halved)
        ratio, step, weight = mpmath.exp(-h * h / 2), mpmath.exp(-h * h), mp.one
        tiny, k = mpmath.mpf(10) ** -(dps + 10), 1
        while weight > tiny:
            weight *= ratio
            ratio *= step
            x = s * k * h
            t = mpmath.tanh(x)
            d = 1 - t * t
            sums[0] += t * t * weight
            sums[1] += x * t * d * weight
            sums[2] += d * d * weight
            sums[3] += d * weight
            k += 1
        scale = 2 * h / mpmath.sqrt(2 * mpmath.pi)
        return sums[0] * scale, sums[1] * scale, sums[2] * scale, sums[3] * scale


def _reference(w: str, b: str) -> dict[str, mpmath.mpf]:
    """q*, χ₁ and ξ_q of tanh: Newton's method on σ_w²·E[tanh²] + σ_b² − q at doubling
    precision (one step a stage, two at the last), from q = 1."""
    with mp.workdps(DPS + 10):
        ww, bb, q = mpmath.mpf(w), mpmath.mpf(b), mpmath.mpf(1)
    stages = [DPS]
    while stages[0] > 20:
        stages.insert(0, stages[0] // 2 + 2)
    for dps in stages[:1] * 6 + stages[1:] + stages[-1:]:
        with mp.workdps(dps + 10):
            a, xs, _, _ = _moments(q, dps)
            q -= (ww * a + bb - q) / (ww * xs / q - 1)
    with mp.workdps(DPS + 10):
        a, xs, d, mean = _moments(q, DPS)
        out = {"q_star": q, "chi1": ww * d, "depth_scale_q": -1 / mpmath.log(abs(ww * xs / q))}
        if ww * d < 1:  # ordered: ξ_c = −1/ln χ₁
            out["depth_scale_c"] = -1 / mpmath.log(ww * d)
        elif bb == 0:  # chaotic, tanh odd without bias: c* = 0, slope σ_w²·E[φ']²
            out["depth_scale_c"] = -1 / mpmath.log(ww * mean * mean)
        return out


@pytest.mark.parametrize("w, b", [("1.0", "0.05"), ("2.5", "0.05"), ("2", "0")])
def test_q_star_from_one_newton_step_against_the_trapezoidal_rule(monkeypatch, w, b):
    """Ordered (ξ_c = −1/ln χ₁), chaotic (c* and ξ_c from the bivariate route) and chaotic
    without bias (c* = 0, ξ_c from E[φ'] enclosed at q* by Taylor's theorem)."""
    proofs = []
    original = prove.NewtonInterval.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        proofs.append(self.proven)

    monkeypatch.setattr(prove.NewtonInterval, "__init__", spy)
    r = meanfield("tanh", sigma_w2=w, sigma_b2=b, digits=DIGITS)
    assert proofs == [True]  # the route was taken, and proved q*
    for name, value in _reference(w, b).items():
        assert assert_certified(r[name], DIGITS) == to_decimal(value, DIGITS), name
