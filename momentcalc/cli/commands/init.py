"""``momentcalc init``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import typer

from ...defaults import INIT as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import Activation, number
from ..runner import computing_command

FanIn = number("--fan-in", "Inputs of each unit (fan-in), a whole number >= 1; required.", optional=True)
FanOut = number(
    "--fan-out", "Outputs of the layer (fan-out), a whole number >= 1; required by xavier.", optional=True
)
Scheme = Annotated[
    str,
    typer.Option(
        "--scheme",
        metavar="lecun|xavier|he",
        help="lecun: 1/fan_in; xavier: 2/(fan_in + fan_out); he: gain^2/fan_in with the exact gain of --activation.",
    ),
]
Distribution = Annotated[
    str,
    typer.Option(
        "--distribution",
        metavar="normal|uniform|truncnorm",
        help="How the weights are drawn: normal, uniform (reports bound), truncnorm at +-2 sigma (reports std_to_pass, bound).",
    ),
]

Residual = Annotated[
    str | None,
    typer.Option(
        "--residual",
        metavar="gpt2|tfixup-encoder|tfixup-decoder",
        help="Also the residual-branch scaling of GPT-2 (2L)^(-1/2) or T-Fixup (encoder 0.67*N^(-1/4), decoder "
        "(9M)^(-1/4)), with --layers.",
    ),
]
Layers = number(
    "--layers",
    "Blocks L (gpt2) or layers N, M (T-Fixup) for --residual, a whole number from 1 to 1000000.",
    optional=True,
)

EXAMPLES = """
Examples:

  momentcalc init --fan-in 768                           LeCun: variance 1/768

  momentcalc init --fan-in 768 --fan-out 768 --scheme xavier --distribution truncnorm

  momentcalc init --fan-in 512 --scheme he --distribution uniform      relu: 2/512

  momentcalc init --fan-in 1024 --scheme he --activation gelu --digits 30

  momentcalc init --fan-in 64,256,1024 --scheme he --json

  momentcalc init --fan-in 768 --fan-out 768 --scheme xavier --residual gpt2 --layers 12
"""


@computing_command(app, "init", epilog=EXAMPLES)
def init(
    fan_in: FanIn = None,
    fan_out: FanOut = None,
    scheme: Scheme = DEFAULTS["scheme"],
    distribution: Distribution = DEFAULTS["distribution"],
    activation: Activation = None,
    residual: Residual = None,
    layers: Layers = None,
    *,
    params: Mapping[str, object],
    digits: int,
    derive: bool,
) -> Computation:
    """Weight-init parameters of a layer: variance, std, bound, std to pass, and BERT's 0.02 compared.

    --activation (default relu) and its parameters apply to --scheme he only."""
    from ...computations.init import init

    return init(
        fan_in=fan_in,
        fan_out=fan_out,
        scheme=scheme,
        distribution=distribution,
        activation=activation,
        residual=residual,
        layers=layers,
        params=params,
        digits=digits,
        derive=derive,
    )
