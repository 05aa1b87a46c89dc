"""``momentcalc init``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..app import app
from ..options import number_option
from ..runner import Numeric, computing_command

FanIn = Annotated[Optional[str], number_option("--fan-in", "Inputs of each unit (fan-in), a whole number >= 1; required.")]
FanOut = Annotated[
    Optional[str], number_option("--fan-out", "Outputs of the layer (fan-out), a whole number >= 1; required by xavier.")
]
Scheme = Annotated[
    str,
    typer.Option(
        "--scheme", metavar="lecun|xavier|he",
        help="lecun: 1/fan_in; xavier: 2/(fan_in + fan_out); he: gain^2/fan_in with the exact gain of --activation.",
    ),
]
Distribution = Annotated[
    str,
    typer.Option(
        "--distribution", metavar="normal|uniform|truncnorm",
        help="How the weights are drawn: normal, uniform (reports bound), truncnorm at +-2 sigma (reports std_to_pass, bound).",
    ),
]
Activation = Annotated[
    Optional[str],
    typer.Option(
        "--activation", metavar="ACTIVATION",
        help="With --scheme he: a catalog name (see 'momentcalc activations') or an expression in x. [default: relu]",
    ),
]
Slope = Annotated[Optional[str], number_option("--slope", "With --scheme he --activation leaky_relu: the negative slope.")]

EXAMPLES = """
Examples:

  momentcalc init --fan-in 768                           LeCun: variance 1/768

  momentcalc init --fan-in 768 --fan-out 768 --scheme xavier --distribution truncnorm

  momentcalc init --fan-in 512 --scheme he --distribution uniform      relu: 2/512

  momentcalc init --fan-in 1024 --scheme he --activation gelu --digits 30

  momentcalc init --fan-in 64,256,1024 --scheme he --json
"""


@computing_command(
    app, "init",
    numeric={"fan_in": Numeric(), "fan_out": Numeric(), "slope": Numeric()},
    epilog=EXAMPLES,
)
def init(
    fan_in: FanIn = None,
    fan_out: FanOut = None,
    scheme: Scheme = "lecun",
    distribution: Distribution = "normal",
    activation: Activation = None,
    slope: Slope = None,
):
    """Weight-init parameters of a layer: variance, std, bound, std to pass, and BERT's 0.02 compared."""
    from ...computations.init import init as compute

    return compute
