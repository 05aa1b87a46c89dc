"""``momentcalc truncnorm``."""

from __future__ import annotations

from typing import Annotated, Optional

from ..app import app
from ..options import number_option
from ..runner import Numeric, computing_command

Low = Annotated[str, number_option("--low", "Lower bound in units of std from the mean (may be -inf).")]
High = Annotated[str, number_option("--high", "Upper bound in units of std from the mean (may be inf).")]
Mean = Annotated[str, number_option("--mean", "Mean of the normal before truncation.")]
Std = Annotated[str, number_option("--std", "Std of the normal before truncation (the value you pass), > 0.")]
TargetStd = Annotated[Optional[str], number_option("--target-std", "Wanted actual std: report the std to pass.")]

EXAMPLES = """
Examples:

  momentcalc truncnorm                      gamma of tf's +-2 sigma (0.7737413...)

  momentcalc truncnorm --std 0.02 --json    BERT: actual std 0.0175926...

  momentcalc truncnorm --target-std 0.02    the std to pass to get 0.02

  momentcalc truncnorm --low 30 --high 31 --digits 40
"""


@computing_command(
    app, "truncnorm",
    numeric={"low": Numeric(allow_inf=True), "high": Numeric(allow_inf=True), "mean": Numeric(),
             "std": Numeric(), "target_std": Numeric()},
    epilog=EXAMPLES,
)
def truncnorm(low: Low = "-2", high: High = "2", mean: Mean = "0", std: Std = "1", target_std: TargetStd = None):
    """Truncated normal moments: X ~ N(mean, std^2) kept on [mean + low*std, mean + high*std]."""
    from ...computations.truncnorm import truncnorm as compute

    return compute
