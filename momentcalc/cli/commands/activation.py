"""``momentcalc activation-moment ACTIVATION`` and ``momentcalc activations``."""

from __future__ import annotations

from collections.abc import Mapping

from ...defaults import ACTIVATION_MOMENT as DEFAULTS
from ...result import Computation, replace
from ..app import app
from ..options import ActivationArgument, Format, Json, Mean, Std
from ..runner import computing_command, errors_as, output_format
from ...render import emit

EXAMPLES = """
Examples:

  momentcalc activation-moment sigmoid             Su 2021: 0.2933790...

  momentcalc activation-moment swish --json        Su 2022: 0.2066, 0.3557

  momentcalc activation-moment relu --derive       gain sqrt(2), He init

  momentcalc activation-moment 'x*tanh(log(1+exp(x)))' --digits 40

  momentcalc activation-moment leaky_relu --slope 0.1,0.2,0.3

  momentcalc activation-moment gelu --std 0.5:2:0.5 --format csv
"""

LIST_EXAMPLES = """
Examples:

  momentcalc activations

  momentcalc activations --json

  momentcalc activations --format csv
"""


@computing_command(app, "activation-moment", epilog=EXAMPLES)
def activation_moment(
    activation: ActivationArgument,
    mean: Mean = DEFAULTS["mean"],
    std: Std = DEFAULTS["std"],
    *,
    params: Mapping[str, object],
    digits: int,
    derive: bool,
) -> Computation:
    """Moments and exact gains of phi(Z), Z ~ N(mean, std^2), for a catalog activation or an expression in x."""
    from ...computations.activation import activation_moment

    return activation_moment(activation, mean=mean, std=std, params=params, digits=digits, derive=derive)


@app.command("activations", epilog=LIST_EXAMPLES)
def activations(format: Format = None, json_: Json = False) -> None:
    """List the activation catalog: names, aliases, formulas, which moments have a closed form."""
    from ...computations.activation import catalog_listing

    with errors_as(format, json_):
        listing = replace(
            catalog_listing(),
            title="activation catalog: momentcalc activation-moment NAME (or any expression in x)",
        )
        emit(listing, output_format(format, json_))
