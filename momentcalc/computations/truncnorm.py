"""``truncnorm``: moments of N(mean, std²) kept on [mean + low·std, mean + high·std].

Su 2021, Transformer initialization, "Sampling Distributions": tf.random.truncated_normal resamples outside ±2σ, so the
actual variance is gamma·σ² and one passes σ/sqrt(gamma) = 1.1368472…·σ to get σ. Wu 2022, NLP reading notes
writes gamma as a ratio of integrals over [−2, 2]. Su 2021, BERT's 0.02: BERT's 0.02 gives an actual std
of 0.02·sqrt(gamma) ≈ 0.0176.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..defaults import TRUNCNORM as DEFAULTS
from ..engine import normal_balls
from ..engine.numbers import to_text
from ..tier import Computation, InputError, certify, check_digits, exact_ball, number, positive

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"truncnorm": "truncnorm"}

DESCRIPTIONS = {
    "gamma": "Var[X] / std^2 of the truncated normal",
    "std_ratio": "sqrt(gamma): actual std / std passed",
    "correction": "1 / sqrt(gamma): multiply the wanted std by this before passing it",
    "acceptance": "Phi(high) - Phi(low): probability that one draw is kept",
    "expected_draws": "1 / acceptance: mean number of draws per kept sample",
    "mean_shift": "(E[X] - mean) / std",
    "mean": "E[X]",
    "std": "sqrt(Var[X]), the actual std of the samples",
    "std_to_pass": "std to pass so that the actual std equals {target_std}",
}


def truncnorm(
    *,
    low: object = DEFAULTS["low"],
    high: object = DEFAULTS["high"],
    mean: object = DEFAULTS["mean"],
    std: object = DEFAULTS["std"],
    target_std: object = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Moments of the truncated normal, every result correct to ``digits`` digits.

    >>> bool(0 < truncnorm().value("gamma") < 1)
    True
    """
    digits = check_digits(digits)
    lo = number(low, "low", allow_inf=True)
    hi = number(high, "high", allow_inf=True)
    mu = number(mean, "mean")
    sigma = positive(std, "std")
    target = None if target_std is None else positive(target_std, "target_std")
    if not lo < hi:
        raise InputError(
            f"{{low}} must be less than {{high}}, got low={to_text(lo)} and high={to_text(hi)}",
            param="low",
            params=("high",),
        )

    # φ is even: on a symmetric interval the shift is exactly 0 and the mean exactly --mean,
    # which no ball around them could prove (0 ± r has no sign; 0.25 ± r no rounding at 1 digit).
    exact = {"mean_shift": Fraction(0), "mean": mu} if lo == -hi else {}

    def evaluate(bits: int) -> dict[str, Any]:
        z, shift, gamma = normal_balls.truncated_moments(lo, hi, bits)
        root = gamma.sqrt()  # nan while gamma's ball reaches 0: precision rises
        s = exact_ball(sigma)
        values = {
            "gamma": gamma,
            "std_ratio": root,
            "correction": 1 / root,
            "acceptance": z,
            "expected_draws": 1 / z,
            "mean_shift": shift,
            "mean": exact_ball(mu) + s * shift,
            "std": s * root,
        }
        if target is not None:
            values["std_to_pass"] = exact_ball(target) / root
        return values

    closed = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.truncnorm import GAMMA_INTEGRALS, GAMMA_INTEGRALS_LATEX, derive as derive_forms

        closed = derive_forms(lo, hi, mu, sigma, target)
        derivation = (("gamma", GAMMA_INTEGRALS, GAMMA_INTEGRALS_LATEX),)
    inputs = {"low": lo, "high": hi, "mean": mu, "std": sigma}
    if target is not None:
        inputs["target_std"] = target
    return certify(
        "truncnorm",
        inputs=inputs,
        evaluate=evaluate,
        digits=digits,
        describe=DESCRIPTIONS,
        exact=exact,
        closed=closed,
        derivation=derivation,
    )
