"""``initial-loss``: the expected cross-entropy at initialization of a softmax over V classes
whose logits are independent N(0, S²), the target independent of them:

    initial_loss = E[−log softmax(z)_target] = E[log Σ_{i=1}^V e^{z_i}] − E[z_target]
                 = E[log Σ_{i=1}^V e^{z_i}]

(E[z_target] = 0 whichever class the target is, since it is independent of the logits).
For small S it is ln V + (S²/2)(1 − 1/V) + O(S⁴) (the mean of V lognormals concentrates at
e^{S²/2}); once S passes about √(2 ln V) the largest logit dominates and it grows like
S·E[max_i Z_i] ≈ S·√(2 ln V) (Gumbel's extreme-value limit), far below ln V + S²/2.

Proven by ``engine.logsumexp`` (Gumbel's max trick turns it into ln V + ∫(Λ(y)^V − F(y)^V) dy
with F the CDF of S·Z + G, a whole-line trapezoidal rule with every error bounded).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..defaults import INITIAL_LOSS as DEFAULTS
from ..engine.logsumexp import expected_logsumexp, small_std_excess
from ..engine.numbers import Number, to_text
from ..tier import Computation, InputError, check_digits, exact_ball, number, prove, quantities, whole

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"initial-loss": "initial_loss"}

MAX_VOCAB = 10**12
MAX_LOGIT_STD = 10**4
# Below this logit std, the excess over ln V may come from its Taylor expansion in S² (an error of
# about 6.6·S² relative to the excess): where that proves the digits, it is used.
SMALL_STD = Fraction(1, 1000)

DESCRIPTIONS = {
    "initial_loss": "E[log sum_i exp(z_i)], z_i iid N(0, logit_std^2): the expected cross-entropy at init",
    "ln_vocab": "ln(vocab): the loss of uniform predictions (logit_std 0)",
    "excess": "initial_loss - ln(vocab): what the logits' spread costs",
    "small_std_approximation": "ln(vocab) + logit_std^2/2: the small-logit_std approximation (an upper bound)",
}


def initial_loss(
    *,
    vocab: object = DEFAULTS["vocab"],
    logit_std: object = DEFAULTS["logit_std"],
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """The expected initial cross-entropy of ``vocab`` iid N(0, ``logit_std``²) logits, every
    result proven to ``digits`` digits.

    >>> initial_loss(vocab=2, logit_std=1, digits=12).value("initial_loss")  # doctest: +ELLIPSIS
    mpf('0.90266190772002...')
    """
    digits = check_digits(digits)
    v = whole(vocab, "vocab")
    std = number(logit_std, "logit_std")
    if std < 0:
        raise InputError(param="logit_std", allowed="a number >= 0", got=to_text(std))
    if v > MAX_VOCAB:
        raise InputError(param="vocab", allowed=f"a whole number from 1 to {MAX_VOCAB:.0e}", got=to_text(v))
    if std > MAX_LOGIT_STD:
        raise InputError(param="logit_std", allowed=f"a number from 0 to {MAX_LOGIT_STD}", got=to_text(std))
    V, S = int(v), Fraction(std)
    exact: dict[str, Any] = {}
    if V == 1:  # log e^{z} = z, of mean 0
        exact = {"initial_loss": 0, "ln_vocab": 0, "excess": 0, "small_std_approximation": S * S / 2}
    elif S == 0:
        exact = {"excess": 0}

    def evaluate(bits: int) -> dict[str, Any]:
        ln_v = exact_ball(V).log()
        values = {"ln_vocab": ln_v, "small_std_approximation": ln_v + exact_ball(S * S / 2)}
        if S == 0:
            values["initial_loss"] = ln_v
        elif S < SMALL_STD and (excess := small_std_excess(V, S)).rad() < excess.mid() * 2.0 ** -(bits + 4):
            values.update(initial_loss=ln_v + excess, excess=excess)
        else:
            loss = expected_logsumexp(V, S, bits + 4)
            values.update(initial_loss=loss, excess=loss - ln_v)
        return {name: values[name] for name in DESCRIPTIONS if name in values}

    fields = prove(evaluate if V > 1 else None, digits, exact=exact)
    results = quantities(DESCRIPTIONS, {name: fields[name] for name in DESCRIPTIONS})
    notes = [
        "the target is independent of the logits, so E[z_target] = 0 and the loss is E[log sum_i exp(z_i)]",
        "proven: Gumbel's max trick gives ln V + the integral of Lambda(y)^V - F(y)^V, F the CDF of "
        "logit_std*Z + Gumbel, by trapezoidal rules with bounded errors",
    ]
    if V > 1 and 2 * _log_floor(V) < S * S:
        notes.append(
            "{logit_std} exceeds sqrt(2 ln vocab): the largest logit dominates and the loss grows like "
            "logit_std*sqrt(2 ln vocab), far below the small-logit_std approximation"
        )
    inputs: dict[str, Number | str] = {"vocab": v, "logit_std": std}
    return Computation(
        "initial_loss",
        inputs,
        digits,
        results,
        notes=tuple(notes),
        derivation=_derivation(V, S) if derive else (),
    )


def _log_floor(v: int) -> Fraction:
    """A rational just below ln v (for the note's regime test only)."""
    return Fraction(math.log(v)) * Fraction(999999, 1000000)


def _derivation(V: int, S: Fraction) -> tuple[tuple[str, str, str], ...]:
    """The integral the loss reduces to and both regimes' asymptotics (text and LaTeX)."""
    return (
        (
            "initial_loss",
            "E[log(Sum(exp(z_i), (i, 1, V)))] = E[max_i(z_i + G_i)] - EulerGamma "
            "= log(V) + Integral(exp(-V*exp(-y)) - F(y)**V, (y, -oo, oo)), "
            "F(y) = E[exp(-exp(-(y - S*Z)))], G_i iid standard Gumbel",
            r"\mathbb{E}\log\sum_{i=1}^{V} e^{z_i} = \log V + \int_{-\infty}^{\infty}"
            r"\left(e^{-V e^{-y}} - F(y)^V\right)dy,\quad F(y) = \mathbb{E}\,e^{-e^{-(y - S Z)}}",
        ),
        (
            "small logit_std",
            "log(V) + S**2/2*(1 - 1/V) + O(S**4)",
            r"\log V + \frac{S^2}{2}\left(1 - \frac{1}{V}\right) + O(S^4)",
        ),
        (
            "large logit_std",
            "S*E[max_i Z_i] + O(1), E[max_i Z_i] = sqrt(2*log(V)) - (log(log(V)) + log(4*pi) - 2*EulerGamma)"
            "/(2*sqrt(2*log(V))) + o(1/sqrt(log(V)))",
            r"S\,\mathbb{E}\max_i Z_i + O(1),\quad \mathbb{E}\max_i Z_i = \sqrt{2\log V} - "
            r"\frac{\log\log V + \log 4\pi - 2\gamma}{2\sqrt{2\log V}} + o\!\left(\frac{1}{\sqrt{\log V}}\right)",
        ),
        (
            "this point",
            f"V = {V}, S = {S}, S**2/(2*log(V)) = {float(S * S) / (2 * math.log(V)) if V > 1 else 0:.4g}",
            rf"V = {V},\ S = {S}",
        ),
    )
