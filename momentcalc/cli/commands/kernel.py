"""``momentcalc kernel ACTIVATION``, ``momentcalc hermite ACTIVATION`` and ``momentcalc tat ACTIVATION``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import typer

from ...defaults import KERNEL as DEFAULTS
from ...result import Computation
from ..app import app
from ..options import ActivationArgument, number
from ..runner import computing_command
from ...defaults import HERMITE

Rho = number("--rho", "Correlation of the two inputs u, v, from -1 to 1. [default: 0.5]", optional=True)
Q = number("--q", "Variance of both inputs, > 0 (or --q1, --q2). [default: 1]", optional=True)
Q1 = number("--q1", "Variance of u, > 0 (unequal variances: the DKS quantities are left out).", optional=True)
Q2 = number("--q2", "Variance of v, > 0.", optional=True)
Depth = number(
    "--depth",
    "Add correlation_layers (the correlation at layers 0..L of a plain deep network, L from 1 to 10000) "
    "and its NNGP and NTK kernels nngp_depth, ntk_depth.",
    sweep=False,
    optional=True,
)
Layers = Annotated[
    bool,
    typer.Option(
        "--layers", help="With --depth: add nngp_layers and ntk_layers, the kernels at every layer 0..L."
    ),
]
SigmaW2 = number("--sigma-w2", "With --depth: weight variance sigma_w^2, > 0. [default: 1]", optional=True)
SigmaB2 = number("--sigma-b2", "With --depth: bias variance sigma_b^2, >= 0. [default: 0]", optional=True)

EXAMPLES = """
Examples:

  momentcalc kernel relu --rho 0.5            ntk_derivative = 1/3, the arc-cosine kernel

  momentcalc kernel tanh --rho -1:1:0.1 --chart nngp    the NNGP map as a curve

  momentcalc kernel erf --rho 0.9 --derive    the arcsine kernel in closed form

  momentcalc kernel gelu --rho 0.99 --digits 40

  momentcalc kernel tanh --rho 0.2 --depth 10 --sigma-w2 1.5    correlations through 10 layers

  momentcalc kernel relu --rho 0.5 --depth 3 --sigma-w2 2 --layers    NNGP and NTK at each layer

  momentcalc kernel 'x*tanh(softplus(x))' --q1 1 --q2 2 --rho -0.3 --json

  momentcalc kernel swiglu --rho 0.5          a gated unit a*swish(b), halves a, b independent
"""


@computing_command(app, "kernel", epilog=EXAMPLES)
def kernel(
    activation: ActivationArgument,
    rho: Rho = None,
    q: Q = None,
    q1: Q1 = None,
    q2: Q2 = None,
    depth: Depth = None,
    sigma_w2: SigmaW2 = None,
    sigma_b2: SigmaB2 = None,
    layers: Layers = False,
    *,
    params: Mapping[str, object],
    digits: int,
    derive: bool,
) -> Computation:
    """Infinite-width maps: NNGP E[phi(u)phi(v)], NTK factor E[phi'(u)phi'(v)], the C map and deep kernel shaping's C(0), C'(1), C''(1), Q'(1)."""
    from ...computations.kernel import kernel

    return kernel(
        activation,
        rho=DEFAULTS["rho"] if rho is None else rho,
        q=q,
        q1=q1,
        q2=q2,
        depth=depth,
        sigma_w2=sigma_w2,
        sigma_b2=sigma_b2,
        layers=layers,
        params=params,
        digits=digits,
        derive=derive,
    )


Terms = number(
    "--terms",
    "Number N of Hermite coefficients a_0..a_{N-1}, 1 to 200. [default: 8]",
    sweep=False,
    optional=True,
)
DualRho = number(
    "--rho", "Add the dual activation's series sum a_k^2 rho^k at this correlation, -1 to 1.", optional=True
)

HERMITE_EXAMPLES = """
Examples:

  momentcalc hermite relu --terms 6          1/sqrt(2 pi), 1/2, 1/(2 sqrt(pi)), 0, ...

  momentcalc hermite tanh --terms 20 --rho 0.5    the dual activation, with its proven tail

  momentcalc hermite gelu --terms 10 --digits 40 --json

  momentcalc hermite glu --terms 6 --rho 0.5     a*sigmoid(b) by total degree: 0, then sigmoid's a_k
"""


@computing_command(app, "hermite", epilog=HERMITE_EXAMPLES)
def hermite(
    activation: ActivationArgument,
    terms: Terms = None,
    rho: DualRho = None,
    *,
    params: Mapping[str, object],
    digits: int,
    derive: bool,
) -> Computation:
    """Normalized Hermite coefficients a_k = E[phi(Z) He_k(Z)]/sqrt(k!), their energy and proven tail, the dual activation."""
    from ...computations.hermite import hermite

    return hermite(
        activation,
        terms=HERMITE["terms"] if terms is None else terms,
        rho=rho,
        params=params,
        digits=digits,
        derive=derive,
    )


TatDepth = number(
    "--depth", "Layers L of the plain network, 1 to 10000. [default: 1]", sweep=False, optional=True
)
TargetC0 = number(
    "--target-c0",
    "leaky_relu (TAT): the network's C map at 0, eta, from 0 to its reachable top.",
    optional=True,
)
TargetSlope = number(
    "--target-slope",
    "Other activations (DKS): the network's C'(1), zeta > 1 (per layer zeta^(1/L)).",
    optional=True,
)

TAT_EXAMPLES = """
Examples:

  momentcalc tat leaky_relu --depth 50 --target-c0 0.9     TAT's negative slope and output scale

  momentcalc tat tanh --depth 50 --target-slope 1.5        DKS's input/output scales and shifts

  momentcalc tat softplus --depth 100 --target-slope 1.2 --digits 40 --json
"""


@computing_command(app, "tat", epilog=TAT_EXAMPLES)
def tat(
    activation: ActivationArgument,
    depth: TatDepth = None,
    target_c0: TargetC0 = None,
    target_slope: TargetSlope = None,
    *,
    params: Mapping[str, object],
    digits: int,
    derive: bool,
) -> Computation:
    """Activation transforms of DKS and TAT for a plain deep network: leaky_relu's negative slope, or the input/output scales and shifts."""
    from ...computations.tat import tat

    return tat(
        activation,
        depth=1 if depth is None else depth,
        target_c0=target_c0,
        target_slope=target_slope,
        params=params,
        digits=digits,
        derive=derive,
    )
