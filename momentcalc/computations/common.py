"""Shared by the computations: the standard errors of Monte Carlo results and the options of a
simulation. The argument checks (digits, positive and whole numbers, choices) live in the public
tier, ``momentcalc.tier``, and are re-exported here for the computations written before it."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import mpmath

from ..engine.numbers import to_text
from ..errors import InputError
from ..tier.inputs import check_digits, choice, positive, whole

__all__ = [
    "MAX_SEED",
    "check_digits",
    "choice",
    "monte_carlo_errors",
    "positive",
    "simulation_options",
    "whole",
]


def monte_carlo_errors(
    estimate: dict[str, float], names: Iterable[str], trials: int
) -> dict[str, mpmath.mpf]:
    """Standard errors of Monte Carlo results, so that each prints only the digits it justifies.

    An estimate NAME has its error in ``estimate["NAME_stderr"]``; a result that is itself a
    standard error over ``trials`` draws is known to a relative 1/sqrt(2·(trials − 1)).
    """
    errors: dict[str, mpmath.mpf] = {}
    for name in names:
        if f"{name}_stderr" in estimate:
            error = estimate[f"{name}_stderr"]
        elif name.endswith("_stderr") and name in estimate:
            error = estimate[name] / math.sqrt(2 * (trials - 1))
        else:
            continue
        if math.isfinite(error):
            errors[name] = mpmath.mpf(error)
    return errors


MAX_SEED = 2**64


def simulation_options(
    simulating: bool,
    seed: object,
    trials: object,
    *,
    default_seed: int,
    default_trials: int,
    max_trials: int,
    only: str,
    mentions: tuple[str, ...] = ("simulate",),
) -> tuple[int, int] | None:
    """``seed`` and ``trials`` of a Monte Carlo option: (seed, trials) when simulating, else None
    (and then neither may be given; ``only`` says when they apply, naming arguments as
    ``{name}`` placeholders, e.g. ``"with {simulate}"``, and listing them in ``mentions``)."""
    if not simulating:
        for option, value in (("seed", seed), ("trials", trials)):
            if value is not None:
                raise InputError(f"{{{option}}} applies only {only}", param=option, params=mentions)
        return None
    draws = int(whole(default_seed if seed is None else seed, "seed", 0))
    if draws >= MAX_SEED:  # numpy would take any size, but the seed is echoed in notes and JSON
        raise InputError(
            param="seed", allowed="a whole number from 0 to 2^64 - 1", got=to_text(Fraction(draws))
        )
    count = int(whole(default_trials if trials is None else trials, "trials", 2))
    if count > max_trials:
        raise InputError(
            param="trials", allowed=f"a whole number from 2 to {max_trials}", got=to_text(Fraction(count))
        )
    return draws, count
