"""``truncnorm``: moments of N(mean, std²) kept on [mean + low·std, mean + high·std].

Seed 000, "Sampling Distributions": tf.random.truncated_normal resamples outside ±2σ, so the
actual variance is gamma·σ² and one passes σ/sqrt(gamma) = 1.1368472…·σ to get σ. Seed 004
writes gamma as a ratio of integrals over [−2, 2]. Seed 001: BERT's 0.02 gives an actual std
of 0.02·sqrt(gamma) ≈ 0.0176.
"""

from __future__ import annotations

import mpmath

from ..defaults import TRUNCNORM as DEFAULTS
from ..engine import normal
from ..engine.numbers import as_number, to_mpf
from ..engine.precision import stable
from ..errors import InputError
from ..result import Computation, Quantity
from .common import check_digits, positive

DESCRIPTIONS = {
    "gamma": "Var[X] / std^2 of the truncated normal",
    "std_ratio": "sqrt(gamma): actual std / std passed",
    "correction": "1 / sqrt(gamma): multiply the wanted std by this before passing it",
    "acceptance": "Phi(high) - Phi(low): probability that one draw is kept",
    "expected_draws": "1 / acceptance: mean number of draws per kept sample",
    "mean_shift": "(E[X] - mean) / std",
    "mean": "E[X]",
    "std": "sqrt(Var[X]), the actual std of the samples",
    "std_to_pass": "std to pass so that the actual std equals --target-std",
}


def truncnorm(
    low: object = DEFAULTS["low"],
    high: object = DEFAULTS["high"],
    mean: object = DEFAULTS["mean"],
    std: object = DEFAULTS["std"],
    target_std: object = None,
    *,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Moments of the truncated normal, every result correct to ``digits`` digits.

    >>> bool(0 < truncnorm().value("gamma") < 1)
    True
    """
    digits = check_digits(digits)
    lo = as_number(low, "low", allow_inf=True)
    hi = as_number(high, "high", allow_inf=True)
    mu = as_number(mean, "mean")
    sigma = positive(std, "std")
    target = None if target_std is None else positive(target_std, "target_std")
    if not lo < hi:
        raise InputError(f"{{low}} must be less than {{high}}, got low={low} and high={high}", param="low", params=("high",))

    def evaluate() -> dict[str, mpmath.mpf]:
        a, b = to_mpf(lo), to_mpf(hi)
        # A tiny interval can collapse (a == b, zero mass) or cancel to gamma <= 0 while the
        # working precision is too low; the nan sentinel cannot agree with the next, more
        # precise, evaluation, so ``stable`` raises the precision.
        if not a < b or normal.mass(a, b) == 0:
            return {"gamma": mpmath.nan}
        z, shift, gamma = normal.truncated_moments(a, b)
        if not gamma > 0:
            return {"gamma": mpmath.nan}
        root = mpmath.sqrt(gamma)
        s = to_mpf(sigma)
        values = {
            "gamma": gamma,
            "std_ratio": root,
            "correction": 1 / root,
            "acceptance": z,
            "expected_draws": 1 / z,
            "mean_shift": shift,
            "mean": to_mpf(mu) + s * shift,
            "std": s * root,
        }
        if target is not None:
            values["std_to_pass"] = to_mpf(target) / root
        return values

    values = stable(evaluate, digits)
    closed = {}
    if derive:
        from ..symbolic.truncnorm import derive as derive_forms

        closed = derive_forms(lo, hi, mu, sigma, target)
    inputs = {"low": lo, "high": hi, "mean": mu, "std": sigma}
    if target is not None:
        inputs["target_std"] = target
    results = tuple(
        Quantity(name, value, DESCRIPTIONS[name], *closed.get(name, (None, None)))
        for name, value in values.items()
    )
    derivation = ()
    if derive:
        from ..symbolic.truncnorm import GAMMA_INTEGRALS, GAMMA_INTEGRALS_LATEX

        derivation = (("gamma", GAMMA_INTEGRALS, GAMMA_INTEGRALS_LATEX),)
    return Computation("truncnorm", inputs, digits, results, derivation=derivation)
