"""Shared by the computations: argument checks (digits, positive and whole numbers, choices)
and the standard errors of Monte Carlo results. Errors name the argument by its Python name
(``std``); the CLI shows it as its option (``--std``)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import mpmath

from ..engine.numbers import Number, as_number, to_text
from ..engine.precision import MAX_DIGITS
from ..errors import InputError


def check_digits(digits: object) -> int:
    """``digits``: a whole number from 1 to MAX_DIGITS."""
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= MAX_DIGITS:
        raise InputError(param="digits", allowed=f"a whole number from 1 to {MAX_DIGITS}", got=repr(digits))
    return digits


def positive(value: object, option: str) -> Number:
    """A finite number > 0 (a std, a size)."""
    number = as_number(value, option)
    if number <= 0:
        raise InputError(param=option, allowed="greater than 0", got=to_text(number))
    return number


def whole(value: object, option: str, minimum: int = 1) -> Fraction:
    """A whole number ≥ ``minimum`` (a fan, a dimension, a count), given exactly."""
    number = as_number(value, option)
    if number.denominator != 1 or number < minimum:
        raise InputError(param=option, allowed=f"a whole number >= {minimum}", got=to_text(number))
    return number


def choice(value: object, option: str, allowed: tuple[str, ...]) -> str:
    """One of ``allowed`` (case-insensitive), else InputError listing them."""
    text = str(value).strip().lower()
    if text not in allowed:
        raise InputError(param=option, allowed=f"one of {', '.join(allowed)}", got=repr(value))
    return text


def monte_carlo_errors(estimate: dict[str, float], names: Iterable[str], trials: int) -> dict[str, mpmath.mpf]:
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


def simulation_options(simulating: bool, seed: object, trials: object, *, default_seed: int,
                       default_trials: int, max_trials: int, only: str,
                       mentions: tuple[str, ...] = ("simulate",)) -> tuple[int, int] | None:
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
        raise InputError(param="seed", allowed="a whole number from 0 to 2^64 - 1", got=to_text(Fraction(draws)))
    count = int(whole(default_trials if trials is None else trials, "trials", 2))
    if count > max_trials:
        raise InputError(param="trials", allowed=f"a whole number from 2 to {max_trials}", got=to_text(Fraction(count)))
    return draws, count
