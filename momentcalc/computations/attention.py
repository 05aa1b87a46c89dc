"""``attention``: why the logits q·k are divided by sqrt(d).

Garg, where 1/sqrt(d) comes from (last section) and Su 2021, Transformer initialization ("q·k second moment d"): with q and k of d independent
zero-mean components of std q_std and k_std,

    E[(q·k)²] = Σ_i E[q_i²]·E[k_i²] = d·q_std²·k_std²

so the logits' std grows like sqrt(d), ±3 stds spans 6·sqrt(d)·q_std·k_std, and softmax
saturates on the largest logit. Multiplying by 1/sqrt(d) brings the std back to
q_std·k_std whatever d is.

With ``seq_len`` (a number of keys) the command also simulates it (numpy, seeded): one query
against ``seq_len`` keys per trial, and reports the mean largest softmax weight with and
without the 1/sqrt(d) scaling — Monte Carlo estimates with their standard errors.

The closed forms are proven: rational where they are (the second moment, q_std·k_std, 1/seq_len,
and everything when d is a perfect square), Arb balls of sqrt(d) otherwise. The simulated
results are estimates and say so (``certified`` false).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from ..defaults import ATTENTION as DEFAULTS
from ..engine.numbers import Number, rational_sqrt
from ..tier import Computation, InputError, Quantity, check_digits, exact_ball, positive, prove, whole
from .common import monte_carlo_errors, simulation_options

# CLI command -> the function of this module that computes it (the table ``momentcalc.command_table`` reads).
COMMANDS = {"attention": "attention"}

MAX_TRIALS = 10**7
# The simulation runs in double precision: the logits' std must stay well inside its range.
SIMULATED_LOGIT_STD = (Fraction(1, 10**100), Fraction(10**100))

DESCRIPTIONS = {
    "logit_second_moment": "E[(q.k)^2] = d*q_std^2*k_std^2 (also the variance: the mean is 0)",
    "logit_std": "sqrt(logit_second_moment) = sqrt(d)*q_std*k_std",
    "logit_range": "3*logit_std: the +-3 sigma band of the unscaled logits",
    "scale": "1/sqrt(d), the factor applied to q.k before softmax",
    "scaled_logit_std": "scale*logit_std = q_std*k_std, whatever d is",
    "uniform_weight": "1/seq_len: every softmax weight when all logits are equal",
}
SIMULATED = {
    "simulated_logit_std": "RMS of the drawn unscaled logits q.k (Monte Carlo check of logit_std)",
    "max_weight_unscaled": "mean largest weight of softmax(q.k) over the keys, Monte Carlo",
    "max_weight_unscaled_stderr": "standard error of max_weight_unscaled",
    "max_weight_scaled": "mean largest weight of softmax(q.k/sqrt(d)) over the keys, Monte Carlo",
    "max_weight_scaled_stderr": "standard error of max_weight_scaled",
}


def attention(
    *,
    d: object = DEFAULTS["d"],
    q_std: object = DEFAULTS["q_std"],
    k_std: object = DEFAULTS["k_std"],
    seq_len: object = None,
    simulate: bool = False,
    seed: object = None,
    trials: object = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """Logit statistics of dot-product attention, exact to ``digits`` digits.

    ``seq_len`` switches the simulation on (``simulate=True`` alone is refused: it needs a
    number of keys); ``seed`` (default 0) and ``trials`` (default 1000) apply to it only.

    >>> attention().value("logit_std")
    mpf('8.0')
    """
    digits = check_digits(digits)
    dim = whole(d, "d")
    q = positive(q_std, "q_std")
    k = positive(k_std, "k_std")
    if simulate and seq_len is None:
        raise InputError(
            "{simulate} needs {seq_len} N, the number of keys each query attends to",
            param="simulate",
            params=("seq_len",),
        )
    keys = None if seq_len is None else whole(seq_len, "seq_len")
    monte_carlo = simulation_options(
        keys is not None,
        seed,
        trials,
        default_seed=DEFAULTS["seed"],
        default_trials=DEFAULTS["trials"],
        max_trials=MAX_TRIALS,
        only="to the simulation; add {seq_len} N (and {simulate})",
        mentions=("seq_len", "simulate"),
    )

    second = dim * q * q * k * k
    root_d = rational_sqrt(dim)
    exact: dict[str, Fraction] = {"logit_second_moment": second, "scaled_logit_std": q * k}
    if root_d is not None:  # d a perfect square: every result is rational
        exact.update(logit_std=root_d * q * k, logit_range=3 * root_d * q * k, scale=1 / root_d)
    if keys is not None:
        exact["uniform_weight"] = 1 / keys
    names = [*DESCRIPTIONS][: 5 if keys is None else 6]

    def evaluate(bits: int) -> dict[str, Any]:
        root = exact_ball(dim).sqrt()
        std = root * exact_ball(q * k)
        return {"logit_std": std, "logit_range": 3 * std, "scale": 1 / root}

    proven = prove(evaluate if root_d is None else None, digits, exact=exact)
    values = {name: proven[name] for name in names}

    inputs: dict[str, Number | str] = {"d": dim, "q_std": q, "k_std": k}
    notes: tuple[str, ...] = ()
    descriptions = dict(DESCRIPTIONS)
    if monte_carlo is not None:
        draws, count = monte_carlo
        assert keys is not None  # simulation_options gives (seed, trials) only with seq_len
        low, high = SIMULATED_LOGIT_STD
        if not low**2 <= dim * q**2 * k**2 <= high**2:
            raise InputError(
                f"{{q_std}} and {{k_std}}: the simulation works in double precision and needs "
                f"sqrt(d)*q_std*k_std from 1e-100 to 1e100, got {mpmath.nstr(values['logit_std']['value'], 3)}",
                param="q_std",
                params=("k_std",),
            )
        from .attention_simulation import simulate_softmax

        estimate = simulate_softmax(int(dim), float(q * k), int(keys), int(count), int(draws))
        values.update(
            {name: {"value": mpmath.mpf(estimate[name])} for name in SIMULATED}
        )  # estimates: not certified
        descriptions.update(SIMULATED)
        inputs.update(seq_len=keys, seed=draws, trials=count)
        notes = (
            f"Monte Carlo in double precision: {int(count)} trials of one query against {int(keys)} keys, "
            f"seed {int(draws)}; the max weights are estimates, printed to the digits their standard error justifies "
            f"(unscaled ±{estimate['max_weight_unscaled_stderr']:.2g}, "
            f"scaled ±{estimate['max_weight_scaled_stderr']:.2g}).",
        )
    closed: dict[str, tuple[str, str]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ..symbolic.attention import derive as derive_forms

        closed, derivation = derive_forms(dim, q, k, keys)
    stderr = {} if keys is None else monte_carlo_errors(estimate, SIMULATED, int(count))
    results = tuple(
        Quantity(
            name,
            description=descriptions[name],
            **dict(zip(("closed_form", "latex"), closed.get(name, (None, None)))),
            stderr=stderr.get(name),
            **value,
        )
        for name, value in values.items()
    )
    return Computation("attention", inputs, digits, results, notes=notes, derivation=derivation)
