"""``gau-scale --simulate``: the checks of a simulation's size and work, then the drawn GAUs
(``simulation``, numpy, imported only here)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...catalog import resolve
from ...engine.numbers import Number
from ...errors import InputError
from ...progress import delayed_progress
from .inputs import MAX_TRIALS
from .simulation import STEPS, numpy_activation, simulate_gau, simulation_work

# Largest matrix (entries) the simulation builds: 2^24 doubles are 128 MiB.
MAX_MATRIX = 1 << 24
# Work of one --simulate call (multiply-adds over all trials, see simulation_work): a few
# seconds on a 2-core machine. The default sizes allow 12 trials.
MAX_SIMULATION_WORK = 3 * 10**10
# Without --trials, --simulate draws until simulated_rms has this relative standard error (or
# reaches the work bound above).
TARGET_STDERR = 0.01
MIN_ADAPTIVE_TRIALS = 5  # fewer would trust a standard error drawn from too few trials


def simulated(
    activation: str,
    params: Mapping[str, object] | None,
    sizes: dict[str, Number],
    std: Number | None,
    seed: int,
    trials: int,
    adaptive: bool = False,
) -> dict[str, float]:
    """The drawn GAUs' results. ``adaptive`` (no --trials given): draw until simulated_rms has a
    relative standard error of TARGET_STDERR, at least ``trials`` and within the work bound."""
    s, n, d, e = (int(sizes[k]) for k in ("s", "n", "d", "e"))
    shapes = {"X": (n, d), "W_u": (d, e), "W_z": (d, s), "U": (n, e), "A": (n, n)}
    for name, (rows, cols) in shapes.items():
        if rows * cols > MAX_MATRIX:
            raise InputError(
                f"{{n}}, {{d}}, {{e}} and {{s}} are too large to simulate: {name} would have {rows}x{cols} entries, "
                f"at most {MAX_MATRIX}",
                param="n",
                params=("d", "e", "s"),
            )

    target = None
    if adaptive:
        target = TARGET_STDERR
        trials = max(trials, min(MAX_TRIALS, MAX_SIMULATION_WORK // max(1, simulation_work(n, d, e, s))))
    work = simulation_work(n, d, e, s) * trials
    if work > MAX_SIMULATION_WORK:
        raise InputError(
            f"{{simulate}} at s={s}, n={n}, d={d}, e={e} with {{trials}} {trials} is about {work / 1e9:.0f} "
            f"billion multiply-adds; at most {MAX_SIMULATION_WORK // 10**9} billion (a few seconds): use fewer "
            "{trials} or smaller sizes",
            param="trials",
            params=("simulate",),
        )

    lam = 1.0 if std is None else float(std) * math.sqrt(d)

    with delayed_progress(trials * STEPS, "simulating GAU") as step:
        return simulate_gau(
            n,
            d,
            e,
            s,
            numpy_activation(resolve(activation, params)),
            lam,
            trials,
            seed,
            step,
            target_stderr=target,
            min_trials=MIN_ADAPTIVE_TRIALS,
        )
