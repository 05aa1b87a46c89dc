"""``momentcalc gau-scale``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..app import app
from ..options import number_option
from ..runner import Numeric, computing_command

S = Annotated[str, number_option("--s", "Attention key size s (columns of Z), a whole number >= 1.")]
N = Annotated[str, number_option("--n", "Sequence length n, a whole number >= 1.")]
D = Annotated[str, number_option("--d", "Model width d, a whole number >= 1.")]
E = Annotated[str, number_option("--e", "Expanded width e of U and V, a whole number >= 1.")]
Activation = Annotated[
    str,
    typer.Option("--activation", metavar="NAME|EXPR",
                 help="Activation phi: a catalog name (see 'momentcalc activations') or an expression in x."),
]
InitStd = Annotated[
    Optional[str],
    number_option("--init-std", "Std of W_u, W_v, W_z (W_o is scaled alike), > 0; "
                                "0.02 as in the GAU paper's code. [default: LeCun 1/sqrt(d)]"),
]
Simulate = Annotated[
    bool,
    typer.Option("--simulate", help="Draw an actual GAU with numpy at these sizes and report the RMS of its output."),
]
Seed = Annotated[Optional[str], number_option("--seed", "Random seed of --simulate, a whole number >= 0. [default: 0]", sweep=False)]
Trials = Annotated[
    Optional[str], number_option("--trials", "GAUs drawn by --simulate (their RMS is averaged), 1 to 1000. [default: 1]", sweep=False)
]

EXAMPLES = """
Examples:

  momentcalc gau-scale                         s*nu^6/n = 0.0113 for swish, s = 128, n = 512

  momentcalc gau-scale --init-std 0.02         the GAU paper's init: lambda^7 shrinks O ~60x

  momentcalc gau-scale --simulate --trials 5   draw actual GAUs and compare

  momentcalc gau-scale --activation relu --derive

  momentcalc gau-scale --activation "x*tanh(log(1+exp(x)))" --n 128,512,2048
"""


@computing_command(
    app, "gau-scale",
    numeric={"s": Numeric(), "n": Numeric(), "d": Numeric(), "e": Numeric(), "init_std": Numeric(),
             "seed": Numeric(sweep=False), "trials": Numeric(sweep=False)},
    epilog=EXAMPLES,
)
def gau_scale(
    s: S = "128",
    n: N = "512",
    d: D = "768",
    e: E = "1536",
    activation: Activation = "swish",
    init_std: InitStd = None,
    simulate: Simulate = False,
    seed: Seed = None,
    trials: Trials = None,
):
    """Magnitude of a Gated Attention Unit at initialization: s*nu^6/n, the lambda^7 law, DeepNorm alpha."""
    from ...computations.gau import gau_scale as compute

    return compute
