"""``momentcalc gau-scale``."""

from __future__ import annotations

from collections.abc import Mapping

from ...defaults import GAU_SCALE as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import Activation, Seed, Simulate, Trials, number
from ..runner import computing_command

S = number("--s", "Attention key size s (columns of Z), a whole number >= 1.")
N = number("--n", "Sequence length n, a whole number >= 1.")
D = number("--d", "Model width d, a whole number >= 1.")
E = number("--e", "Expanded width e of U and V, a whole number >= 1.")
InitStd = number(
    "--init-std",
    "Std of W_u, W_v, W_z (W_o is scaled alike), > 0; "
    "0.02 as in the GAU paper's code. [default: LeCun 1/sqrt(d)]",
    optional=True,
)

EXAMPLES = """
Examples:

  momentcalc gau-scale                         s*nu^6/n = 0.0113 for swish, s = 128, n = 512

  momentcalc gau-scale --init-std 0.02         the GAU paper's init: lambda^7 shrinks O ~60x

  momentcalc gau-scale --simulate --trials 5   draw actual GAUs and compare

  momentcalc gau-scale --activation relu --derive

  momentcalc gau-scale --activation "x*tanh(log(1+exp(x)))" --n 128,512,2048
"""


@computing_command(app, "gau-scale", epilog=EXAMPLES)
def gau_scale(
    s: S = DEFAULTS["s"],
    n: N = DEFAULTS["n"],
    d: D = DEFAULTS["d"],
    e: E = DEFAULTS["e"],
    activation: Activation = DEFAULTS["activation"],
    init_std: InitStd = None,
    simulate: Simulate = False,
    seed: Seed = None,
    trials: Trials = None,
    *,
    params: Mapping[str, object],
    digits: int,
    derive: bool,
) -> Computation:
    """Magnitude of a Gated Attention Unit at initialization: s*nu^6/n, the lambda^7 law, DeepNorm alpha.

    The activation defaults to swish."""
    from ...computations.gau import gau_scale

    return gau_scale(
        s=s,
        n=n,
        d=d,
        e=e,
        activation=activation,
        init_std=init_std,
        simulate=simulate,
        seed=seed,
        trials=trials,
        params=params,
        digits=digits,
        derive=derive,
    )
