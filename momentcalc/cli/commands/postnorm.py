"""``momentcalc postnorm-decay``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..app import app
from ..options import number_option
from ..runner import Numeric, computing_command

Layers = Annotated[str, number_option("--layers", "Number of residual layers L, a whole number from 1 to 1000000.")]
Sigma = Annotated[str, number_option("--sigma", "Std of each branch F_t relative to its input (Var[F_t] = sigma^2 Var[x_t]), >= 0.")]
Threshold = Annotated[str, number_option("--threshold", "Identity weight that counts as faded, in (0, 1].")]
Scheme = Annotated[
    str,
    typer.Option("--scheme", metavar="post|pre|deepnorm",
                 help="post: Norm(x + F(x)); pre: x + F(Norm(x)); deepnorm: Norm(alpha*x + F(x))."),
]
Alpha = Annotated[
    Optional[str],
    number_option("--alpha", "DeepNorm residual multiplier, > 0 (only with --scheme deepnorm). [default: (2L)^(1/4)]"),
]

EXAMPLES = """
Examples:

  momentcalc postnorm-decay                        x_0 weighs 2^-6 after 12 layers

  momentcalc postnorm-decay --sigma 0.02           BERT's small init keeps weights near 1

  momentcalc postnorm-decay --layers 1000 --scheme deepnorm

  momentcalc postnorm-decay --layers 1000000 --json > weights.json

  momentcalc postnorm-decay --sigma 0.1,0.5,1 --threshold 0.5
"""


@computing_command(
    app, "postnorm-decay",
    numeric={"layers": Numeric(), "sigma": Numeric(), "threshold": Numeric(), "alpha": Numeric()},
    epilog=EXAMPLES,
)
def postnorm_decay(
    layers: Layers = "12",
    sigma: Sigma = "1",
    threshold: Threshold = "0.01",
    scheme: Scheme = "post",
    alpha: Alpha = None,
):
    """How residual paths fade with depth: weights of x_0 and of each F_k in x_L under Post-Norm."""
    from ...computations.postnorm import postnorm_decay as compute

    return compute
