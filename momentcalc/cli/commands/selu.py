"""``momentcalc selu-solve``."""

from __future__ import annotations

from ...defaults import SELU_SOLVE as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import number
from ..runner import computing_command

TargetMean = number("--target-mean", "Wanted mean of selu(Z).")
TargetVar = number("--target-var", "Wanted variance of selu(Z), > 0.")
InputMean = number("--input-mean", "Mean of the Gaussian input Z.")
InputStd = number("--input-std", "Std of the Gaussian input Z, > 0.")

EXAMPLES = """
Examples:

  momentcalc selu-solve                      the standard lambda and alpha (mean 0, variance 1)

  momentcalc selu-solve --digits 32          the SELU paper's 32-digit constants

  momentcalc selu-solve --derive             the two moment equations in erfc and exp

  momentcalc selu-solve --target-mean 0.1 --target-var 2 --input-std 1.5

  momentcalc selu-solve --input-std 0.5,1,2 --json
"""


@computing_command(app, "selu-solve", epilog=EXAMPLES)
def selu_solve(
    target_mean: TargetMean = DEFAULTS["target_mean"],
    target_var: TargetVar = DEFAULTS["target_var"],
    input_mean: InputMean = DEFAULTS["input_mean"],
    input_std: InputStd = DEFAULTS["input_std"],
    *,
    digits: int,
    derive: bool,
) -> Computation:
    """SELU constants: lambda and alpha so that selu(Z), Z ~ N(input-mean, input-std^2), has the target mean and variance."""
    from ...computations.selu import selu_solve

    return selu_solve(
        target_mean=target_mean,
        target_var=target_var,
        input_mean=input_mean,
        input_std=input_std,
        digits=digits,
        derive=derive,
    )
