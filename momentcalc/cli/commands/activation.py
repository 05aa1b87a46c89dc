"""``momentcalc activation-moment ACTIVATION`` and ``momentcalc activations``."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ..app import app
from ..options import number_option
from ..runner import Numeric, computing_command

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

  momentcalc activation-moment sigmoid             seed 000: 0.2933790...

  momentcalc activation-moment swish --json        seed 003: 0.2066, 0.3557

  momentcalc activation-moment relu --derive       gain sqrt(2), He init

  momentcalc activation-moment 'x*tanh(log(1+exp(x)))' --digits 40

  momentcalc activation-moment leaky_relu --slope 0.1,0.2,0.3

  momentcalc activation-moment gelu --std 0.5:2:0.5 --format csv
"""

LIST_EXAMPLES = """
Examples:

  momentcalc activations

  momentcalc activations --json
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


def _catalog_rows() -> list[dict[str, object]]:
    from ...catalog import CATALOG

    return [
        {
            "name": entry.name,
            "aliases": list(entry.aliases),
            "formula": entry.formula,
            "parameters": {p.name: float(p.default) for p in entry.params},
            "kinks": [float(k) for k in entry.kinks(entry.param_values())],
            "parity": entry.parity,
            "closed_form": {name: form.text for name, form in entry.closed_forms.items()},
        }
        for entry in CATALOG
    ]


def render_catalog(as_json: bool) -> str | None:
    """The catalog as one JSON document (returned), or as a rich table printed to stdout."""
    from mpmath import mp

    with mp.workdps(20):
        rows = _catalog_rows()
    if as_json:
        import json

        return json.dumps({"activations": rows}, indent=2)
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="activation catalog: momentcalc activation-moment NAME", title_justify="left")
    table.add_column("name (aliases)", style="bold")
    table.add_column("formula")
    table.add_column("closed form under N(0,1)")
    short = {"mean": "E", "second_moment": "E2", "derivative_second_moment": "E'2"}
    for row in rows:
        name = row["name"] + (f" ({', '.join(row['aliases'])})" if row["aliases"] else "")
        formula = row["formula"] + "".join(f"; {k} default {v:g}" for k, v in row["parameters"].items())
        closed = row["closed_form"]
        known = "\n".join(f"{short[k]} = {v}" for k, v in closed.items()) if closed else "no (quadrature)"
        table.add_row(escape(name), escape(formula), escape(known))
    table.caption = "E = mean, E2 = second_moment, E'2 = derivative_second_moment; any expression in x works too"
    Console().print(table)
    return None


@app.command("activations", epilog=LIST_EXAMPLES)
def activations(
    json_: Annotated[bool, typer.Option("--json", help="One JSON document instead of the table.")] = False,
    fmt: Annotated[str, typer.Option("--format", metavar="table|json", help="Output format.")] = "table",
) -> None:
    """List the activation catalog: names, aliases, formulas, which moments have a closed form."""
    from ...errors import InputError

    if fmt not in ("table", "json"):
        raise InputError(f"--format must be table or json for 'activations', got {fmt!r}")
    text = render_catalog(json_ or fmt == "json")
    if text is not None:
        sys.stdout.write(text + "\n")
