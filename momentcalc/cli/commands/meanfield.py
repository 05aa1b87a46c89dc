"""``momentcalc meanfield ACTIVATION``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import typer

from ...defaults import MEANFIELD as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import ActivationArgument, number
from ..runner import computing_command

SigmaW2 = number(
    "--sigma-w2",
    "Weight variance sigma_w^2 (weights ~ N(0, sigma_w^2/fan_in)), > 0. [default: 1]",
    optional=True,
)
SigmaB2 = number("--sigma-b2", "Bias variance sigma_b^2 (biases ~ N(0, sigma_b^2)), >= 0.")
Critical = Annotated[
    bool,
    typer.Option(
        "--critical",
        help="Solve for the critical --sigma-w2 (chi1 = 1, the edge of chaos) at the given --sigma-b2.",
    ),
]
Q0 = number(
    "--q0",
    "Squared length q of the input at layer 0, > 0: q_star is the fixed point reached from it.",
    sweep=False,
)
C0 = number(
    "--c0",
    "With --depth: correlation of two inputs at layer 0, in [-1, 1] (adds c_layers).",
    sweep=False,
    optional=True,
)
Depth = number(
    "--depth",
    "Add the per-layer q (and c, with --c0) for layers 0..L, L from 1 to 1000.",
    sweep=False,
    optional=True,
)

EXAMPLES = """
Examples:

  momentcalc meanfield tanh --sigma-b2 0.05 --critical   the edge of chaos: sigma_w2 = 1.7609...

  momentcalc meanfield tanh --sigma-w2 1:3:0.25 --sigma-b2 0.05   a phase diagram

  momentcalc meanfield relu --sigma-w2 1.5 --sigma-b2 0.1 --derive   arc-cosine kernel

  momentcalc meanfield erf --sigma-b2 0:0.5:0.1 --critical --derive

  momentcalc meanfield tanh --sigma-w2 1.5 --sigma-b2 0.05 --depth 20 --c0 0.5

  momentcalc meanfield 'x*tanh(log(1+exp(x)))' --sigma-w2 2 --sigma-b2 0.1 --json
"""


@computing_command(app, "meanfield", epilog=EXAMPLES)
def meanfield(
    activation: ActivationArgument,
    sigma_w2: SigmaW2 = None,
    sigma_b2: SigmaB2 = DEFAULTS["sigma_b2"],
    critical: Critical = False,
    q0: Q0 = DEFAULTS["q0"],
    c0: C0 = None,
    depth: Depth = None,
    *,
    params: Mapping[str, object],
    digits: int,
    derive: bool,
) -> Computation:
    """Signal propagation through a deep random network (Poole et al. 2016; Schoenholz et al. 2017): q*, chi1, c*, depth scales, the edge of chaos."""
    from ...computations.meanfield import meanfield

    return meanfield(
        activation,
        sigma_w2=sigma_w2,
        sigma_b2=sigma_b2,
        critical=critical,
        q0=q0,
        c0=c0,
        depth=depth,
        params=params,
        digits=digits,
        derive=derive,
    )
