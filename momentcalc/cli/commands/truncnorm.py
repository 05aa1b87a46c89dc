"""``momentcalc truncnorm``."""

from __future__ import annotations

from ...defaults import TRUNCNORM as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import number
from ..runner import computing_command

Low = number("--low", "Lower bound in units of std from the mean (may be -inf).", allow_inf=True)
High = number("--high", "Upper bound in units of std from the mean (may be inf).", allow_inf=True)
Mean = number("--mean", "Mean of the normal before truncation.")
Std = number("--std", "Std of the normal before truncation (the value you pass), > 0.")
TargetStd = number("--target-std", "Wanted actual std: report the std to pass.", optional=True)

EXAMPLES = """
Examples:

  momentcalc truncnorm                      gamma of tf's +-2 sigma (0.7737413...)

  momentcalc truncnorm --std 0.02 --json    BERT: actual std 0.0175925...

  momentcalc truncnorm --target-std 0.02    the std to pass to get 0.02

  momentcalc truncnorm --low 30 --high 31 --digits 40
"""


@computing_command(app, "truncnorm", epilog=EXAMPLES)
def truncnorm(
    low: Low = DEFAULTS["low"],
    high: High = DEFAULTS["high"],
    mean: Mean = DEFAULTS["mean"],
    std: Std = DEFAULTS["std"],
    target_std: TargetStd = None,
    *,
    digits: int,
    derive: bool,
) -> Computation:
    """Truncated normal moments: X ~ N(mean, std^2) kept on [mean + low*std, mean + high*std]."""
    from ...computations.truncnorm import truncnorm

    return truncnorm(
        low=low, high=high, mean=mean, std=std, target_std=target_std, digits=digits, derive=derive
    )
