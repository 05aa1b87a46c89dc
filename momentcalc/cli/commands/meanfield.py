"""``momentcalc meanfield ACTIVATION``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..app import app
from ..options import number_option
from ..runner import Numeric, computing_command
from .activation import ActivationArg

SigmaW2 = Annotated[
    Optional[str],
    number_option("--sigma-w2", "Weight variance sigma_w^2 (weights ~ N(0, sigma_w^2/fan_in)), > 0. [default: 1]"),
]
SigmaB2 = Annotated[str, number_option("--sigma-b2", "Bias variance sigma_b^2 (biases ~ N(0, sigma_b^2)), >= 0.")]
Critical = Annotated[
    bool,
    typer.Option("--critical", help="Solve for the critical --sigma-w2 (chi1 = 1, the edge of chaos) at the given --sigma-b2."),
]
Q0 = Annotated[str, number_option("--q0", "Squared length q of the input at layer 0, > 0: q_star is the fixed point reached from it.", sweep=False)]
C0 = Annotated[Optional[str], number_option("--c0", "With --depth: correlation of two inputs at layer 0, in [-1, 1] (adds c_layers).", sweep=False)]
Depth = Annotated[Optional[str], number_option("--depth", "Add the per-layer q (and c, with --c0) for layers 0..L, L from 1 to 1000.", sweep=False)]
Slope = Annotated[Optional[str], number_option("--slope", "leaky_relu only: the negative-side slope. [default: 0.01]")]

EXAMPLES = """
Examples:

  momentcalc meanfield tanh --sigma-b2 0.05 --critical   the edge of chaos: sigma_w2 = 1.7609...

  momentcalc meanfield tanh --sigma-w2 1:3:0.25 --sigma-b2 0.05   a phase diagram

  momentcalc meanfield relu --sigma-w2 2 --derive        He init is critical (arc-cosine kernel)

  momentcalc meanfield erf --sigma-b2 0:0.5:0.1 --critical --derive

  momentcalc meanfield tanh --sigma-w2 1.5 --sigma-b2 0.05 --depth 20 --c0 0.5

  momentcalc meanfield 'x*tanh(log(1+exp(x)))' --sigma-w2 2 --sigma-b2 0.1 --json
"""


@computing_command(
    app, "meanfield",
    numeric={"sigma_w2": Numeric(), "sigma_b2": Numeric(), "q0": Numeric(sweep=False),
             "c0": Numeric(sweep=False), "depth": Numeric(sweep=False), "slope": Numeric()},
    epilog=EXAMPLES,
)
def meanfield(
    activation: ActivationArg,
    sigma_w2: SigmaW2 = None,
    sigma_b2: SigmaB2 = "0",
    critical: Critical = False,
    q0: Q0 = "1",
    c0: C0 = None,
    depth: Depth = None,
    slope: Slope = None,
):
    """Signal propagation through a deep random network (Poole et al. 2016; Schoenholz et al. 2017): q*, chi1, c*, depth scales, the edge of chaos."""
    from ...computations.meanfield import meanfield as compute

    return compute
