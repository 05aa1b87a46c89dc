"""``momentcalc selu-solve``."""

from __future__ import annotations

from typing import Annotated

from ..app import app
from ..options import number_option
from ..runner import Numeric, computing_command

TargetMean = Annotated[str, number_option("--target-mean", "Wanted mean of selu(Z).")]
TargetVar = Annotated[str, number_option("--target-var", "Wanted variance of selu(Z), > 0.")]
InputMean = Annotated[str, number_option("--input-mean", "Mean of the Gaussian input Z.")]
InputStd = Annotated[str, number_option("--input-std", "Std of the Gaussian input Z, > 0.")]

EXAMPLES = """
Examples:

  momentcalc selu-solve                      the standard lambda and alpha (mean 0, variance 1)

  momentcalc selu-solve --digits 32          the SELU paper's 32-digit constants

  momentcalc selu-solve --derive             the two moment equations in erfc and exp

  momentcalc selu-solve --target-mean 0.1 --target-var 2 --input-std 1.5

  momentcalc selu-solve --input-std 0.5,1,2 --json
"""


@computing_command(
    app, "selu-solve",
    numeric={"target_mean": Numeric(), "target_var": Numeric(), "input_mean": Numeric(), "input_std": Numeric()},
    epilog=EXAMPLES,
)
def selu_solve(
    target_mean: TargetMean = "0", target_var: TargetVar = "1", input_mean: InputMean = "0", input_std: InputStd = "1"
):
    """SELU constants: lambda and alpha so that selu(Z), Z ~ N(input-mean, input-std^2), has the target mean and variance."""
    from ...computations.selu import selu_solve as compute

    return compute
