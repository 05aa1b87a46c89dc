"""``gau-scale``'s inputs, checked once at the boundary: exact sizes, the activation and its
parameters, the init std and the simulation's draws, as one frozen value that the numeric,
proving and simulating modules read."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import NamedTuple

from ...defaults import GAU_SCALE as DEFAULTS
from ...engine.numbers import Number
from ...tier import check_digits, positive, whole
from ..common import simulation_options

MAX_TRIALS = 1000


class GauInputs(NamedTuple):
    """Sizes s (key size), n (sequence length), d (model width), e (expanded width) as exact
    whole numbers; ``std`` the weights' std (None: LeCun, λ = 1); ``monte_carlo`` (seed, trials)
    with --simulate, ``adaptive`` when the trials were not given (drawn to a target error).
    (A NamedTuple, not a frozen dataclass: about 0.5 ms less to create at every call.)"""

    s: Fraction
    n: Fraction
    d: Fraction
    e: Fraction
    activation: str
    params: Mapping[str, object] | None
    std: Fraction | None
    digits: int
    monte_carlo: tuple[int, int] | None = None
    adaptive: bool = False

    @property
    def sizes(self) -> dict[str, Number]:
        return {"s": self.s, "n": self.n, "d": self.d, "e": self.e}


def read_inputs(
    s: object,
    n: object,
    d: object,
    e: object,
    activation: str,
    init_std: object,
    simulate: bool,
    seed: object,
    trials: object,
    params: Mapping[str, object] | None,
    digits: int,
) -> GauInputs:
    """The checked inputs (InputError naming the argument otherwise)."""
    digits = check_digits(digits)
    sizes = {name: whole(value, name) for name, value in (("s", s), ("n", n), ("d", d), ("e", e))}
    std = None if init_std is None else positive(init_std, "init_std")
    monte_carlo = simulation_options(
        simulate,
        seed,
        trials,
        default_seed=DEFAULTS["seed"],
        default_trials=DEFAULTS["trials"],
        max_trials=MAX_TRIALS,
        only="with {simulate}",
    )
    return GauInputs(
        **sizes,
        activation=activation,
        params=params,
        std=std,
        digits=digits,
        monte_carlo=monte_carlo,
        adaptive=trials is None,
    )
