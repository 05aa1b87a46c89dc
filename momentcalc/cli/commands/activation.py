"""``momentcalc activation-moment ACTIVATION`` and ``momentcalc activations``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..app import app
from ..options import Format, Json, number_option
from ..runner import Numeric, computing_command, errors_as, output_format

ActivationArg = Annotated[
    str,
    typer.Argument(
        metavar="ACTIVATION",
        help="A catalog name (see 'momentcalc activations') or an expression in x, e.g. 'x*tanh(log(1+exp(x)))'.",
        show_default=False,
    ),
]
Mean = Annotated[str, number_option("--mean", "Mean of the Gaussian input Z.")]
Std = Annotated[str, number_option("--std", "Std of the Gaussian input Z, > 0.")]
Slope = Annotated[Optional[str], number_option("--slope", "leaky_relu only: the negative-side slope. [default: 0.01]")]

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


@computing_command(
    app, "activation-moment",
    numeric={"mean": Numeric(), "std": Numeric(), "slope": Numeric()},
    epilog=EXAMPLES,
)
def activation_moment(activation: ActivationArg, mean: Mean = "0", std: Std = "1", slope: Slope = None):
    """Moments and exact gains of phi(Z), Z ~ N(mean, std^2), for a catalog activation or an expression in x."""
    from ...computations.activation import activation_moment as compute

    return compute


@app.command("activations", epilog=LIST_EXAMPLES)
def activations(format: Format = "table", json_: Json = False) -> None:
    """List the activation catalog: names, aliases, formulas, which moments have a closed form."""
    from ...computations.activation import catalog_listing
    from ...render import emit

    with errors_as(format, json_):
        emit(catalog_listing(), output_format(format, json_))
