"""``momentcalc postnorm-decay``."""

from __future__ import annotations

from typing import Annotated

import typer

from ...defaults import POSTNORM_DECAY as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import number
from ..runner import computing_command

Layers = number("--layers", "Number of residual layers L, a whole number from 1 to 1000000.")
Sigma = number("--sigma", "Std of each branch F_t relative to its input (Var[F_t] = sigma^2 Var[x_t]), >= 0.")
Threshold = number("--threshold", "Identity weight that counts as faded, in (0, 1].")
Scheme = Annotated[
    str,
    typer.Option(
        "--scheme",
        metavar="post|pre|deepnorm",
        help="post: Norm(x + F(x)); pre: x + F(Norm(x)); deepnorm: Norm(alpha*x + F(x)).",
    ),
]
Arch = Annotated[
    str | None,
    typer.Option(
        "--arch",
        metavar="encoder|decoder|encdec",
        help="DeepNet configuration (with --scheme deepnorm) whose alpha and beta are reported and whose alpha "
        "is the default: encoder-only, decoder-only (--layers is M), encoder-decoder (--layers N encoder "
        "layers, --decoder-layers M). [default: encoder]",
    ),
]
DecoderLayers = number(
    "--decoder-layers",
    "Decoder layers M of an encoder-decoder (--arch encdec), a whole number from 1 to 1000000.",
    optional=True,
)
Alpha = number(
    "--alpha",
    "DeepNorm residual multiplier, > 0 (only with --scheme deepnorm). [default: (2L)^(1/4)]",
    optional=True,
)

EXAMPLES = """
Examples:

  momentcalc postnorm-decay                        x_0 weighs 2^-6 after 12 layers

  momentcalc postnorm-decay --sigma 0.02           BERT's small init keeps weights near 1

  momentcalc postnorm-decay --layers 1000 --scheme deepnorm

  momentcalc postnorm-decay --layers 100 --scheme deepnorm --arch encdec --decoder-layers 100

  momentcalc postnorm-decay --layers 1000000 --json > weights.json

  momentcalc postnorm-decay --sigma 0.1,0.5,1 --threshold 0.5
"""


@computing_command(app, "postnorm-decay", epilog=EXAMPLES)
def postnorm_decay(
    layers: Layers = DEFAULTS["layers"],
    sigma: Sigma = DEFAULTS["sigma"],
    threshold: Threshold = DEFAULTS["threshold"],
    scheme: Scheme = DEFAULTS["scheme"],
    alpha: Alpha = None,
    arch: Arch = None,
    decoder_layers: DecoderLayers = None,
    *,
    digits: int,
    derive: bool,
) -> Computation:
    """How residual paths fade with depth: weights of x_0 and of each F_k in x_L under Post-Norm."""
    from ...computations.postnorm import postnorm_decay

    return postnorm_decay(
        layers=layers,
        sigma=sigma,
        threshold=threshold,
        scheme=scheme,
        alpha=alpha,
        arch=arch,
        decoder_layers=decoder_layers,
        digits=digits,
        derive=derive,
    )
