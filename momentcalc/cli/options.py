"""Every option shared by several commands, declared once as an ``Annotated`` alias.

A numeric option carries its reading rule in the alias (``NumberRule``: may it be swept, may it
be infinite), so the runner learns how to parse each option from the command's signature and
nothing is declared twice. Command-specific options live in the command's module, built with
``number``; catalog parameters (leaky_relu's ``--slope``) are generated from the catalog
(``catalog_parameters``).
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, NamedTuple

import typer

NUMBER_METAVAR = "X|LIST|RANGE"
SWEEP_HELP = " Sweep: a comma list A,B,C or an inclusive range START:STOP:STEP."


class NumberRule(NamedTuple):
    """How the runner reads a numeric option's text: may it be infinite, may it be swept (a
    NamedTuple: a frozen dataclass took about 0.5 ms more to create at every start)."""

    allow_inf: bool = False
    sweep: bool = True
    # Not a number: a name or expression (an activation), swept as a comma list of them.
    text: bool = False


def number(
    flag: str, help: str, *, sweep: bool = True, allow_inf: bool = False, optional: bool = False
) -> Any:
    """An option that takes an exact decimal (as text, parsed by momentcalc, never a float),
    with its rule attached: ``Annotated[str, typer.Option(...), NumberRule(...)]``."""
    option = typer.Option(
        flag,
        help=help + (SWEEP_HELP if sweep else ""),
        metavar=NUMBER_METAVAR if sweep else "X",
        show_default=True,
    )
    kind = str | None if optional else str
    return Annotated[kind, option, NumberRule(allow_inf=allow_inf, sweep=sweep)]


# --- the Gaussian input, the activation and its Monte Carlo (activation-moment, gau-scale, init, ...)

Mean = number("--mean", "Mean of the Gaussian input Z.")
Std = number("--std", "Std of the Gaussian input Z, > 0.")
ActivationArgument = Annotated[
    str,
    typer.Argument(
        metavar="ACTIVATION",
        help="A catalog name (see 'momentcalc activations') or an expression in x, e.g. 'x*tanh(log(1+exp(x)))'. "
        "Sweep: a comma list gelu,swish,mish.",
        show_default=False,
    ),
    NumberRule(text=True),
]
Activation = Annotated[
    str | None,
    typer.Option(
        "--activation",
        metavar="NAME|EXPR",
        help="Activation phi: a catalog name (see 'momentcalc activations') or an expression in x. Sweep: a comma "
        "list gelu,swish,mish.",
    ),
    NumberRule(text=True),
]
Simulate = Annotated[
    bool,
    typer.Option(
        "--simulate",
        help="Also draw the model with numpy (seeded) and report Monte Carlo estimates beside the exact results.",
    ),
]
Seed = number("--seed", "Random seed of the simulation, a whole number >= 0. [default: 0]", optional=True)
Trials = number(
    "--trials",
    "Draws of the simulation, a whole number >= 2 (its maximum depends on the command). "
    "[default: 1000 queries for attention, 3 GAUs for gau-scale]",
    optional=True,
)

# --- the options every computing command takes --------------------------------------------

Digits = Annotated[
    str,
    typer.Option(
        "--digits",
        metavar="N",
        help="Significant digits of every result, 1 to 1000; correctly rounded (half away from zero).",
    ),
]
# None when not given (shown as its default, table): a table the user did not ask for becomes
# plain text on a pipe or a file, one asked for stays boxed.
Format = Annotated[
    str | None,
    typer.Option(
        "--format",
        metavar="table|text|json|csv",
        show_default=False,
        help="Output format. table: boxed (the default on a terminal); text: plain aligned columns (the "
        "default when stdout is a pipe or a file); json; csv.  [default: table on a terminal, else text]",
    ),
]


def stdout_is_terminal() -> bool:

    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def shown_form(fmt: str | None) -> str:
    """``table`` as the user sees it: the boxed table on a terminal or when ``--format table``
    is given, plain aligned ``text`` when the default (``None``: not given) meets a pipe or a
    file (as gh and sqlite-utils print)."""
    if fmt is not None:
        return fmt
    return "table" if stdout_is_terminal() else "text"


Json = Annotated[bool, typer.Option("--json", help="Short for --format json.")]
Derive = Annotated[
    bool,
    typer.Option("--derive", help="Also derive each result symbolically with sympy (closed form and LaTeX)."),
]
Expect = Annotated[
    list[str] | None,
    typer.Option(
        "--expect",
        metavar="NAME=VALUE",
        help="Check result NAME against VALUE, a correctly rounded published value with at least 3 significant "
        "digits (passes within half a unit in its last digit); exit 1 on mismatch. Repeatable.",
    ),
]
Rtol = Annotated[
    str | None,
    typer.Option(
        "--rtol",
        metavar="R",
        help="Relative tolerance for --expect: pass when |result - VALUE| <= A + R*|VALUE|.",
    ),
]
Atol = Annotated[
    str | None,
    typer.Option(
        "--atol",
        metavar="A",
        help="Absolute tolerance for --expect: pass when |result - VALUE| <= A + R*|VALUE|.",
    ),
]
Get = Annotated[
    list[str] | None,
    typer.Option(
        "--get",
        metavar="NAME",
        help="Print only result NAME's decimal (one line per sweep point). Repeatable: tab-separated, in the order given.",
    ),
]

Plot = Annotated[
    str | None,
    typer.Option(
        "--plot",
        metavar="FILE",
        help="Also write a figure of a sweep or list-valued result (.png, .svg, .pdf): the swept option on x "
        "(two swept options: a heat map; a line or a panel per swept activation). Replaces FILE if it "
        "exists. Needs: pip install 'momentcalc[plot]'.",
    ),
]
PlotY = Annotated[
    list[str] | None,
    typer.Option(
        "--plot-y", metavar="NAME", help="A result --plot draws on y (default the first). Repeatable."
    ),
]
Chart = Annotated[
    str | None,
    typer.Option(
        "--chart", metavar="NAME", help="Draw result NAME of a sweep as a bar chart under the table."
    ),
]
Budget = Annotated[
    str | None,
    typer.Option(
        "--budget",
        metavar="SECONDS",
        help="CPU seconds this call may compute for (also MOMENTCALC_BUDGET); lifts or lowers the default limits "
        "on CPU time (4 s, more at high --digits, with --derive and with --depth, 12 s for a sweep) and on sweep size.",
    ),
]
Jobs = Annotated[
    str | None,
    typer.Option(
        "--jobs",
        metavar="N",
        help="Compute a sweep's points in N processes (0: one per core); same output. [default: 1]",
    ),
]

Dask = Annotated[
    str | None,
    typer.Option(
        "--dask",
        metavar="ADDRESS",
        help="Compute a sweep's points on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); "
        "same output. Needs: pip install 'momentcalc[dask]'.",
    ),
]

Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print no results on stdout: with --plot, only the figure is written. Errors, refused points and "
        "failed --expect checks are still reported (stderr, the exit status; with --json an error's object).",
    ),
]

# name -> (alias, default) of the shared options, in the order --help lists them.
SHARED: dict[str, tuple[Any, Any]] = {
    "digits": (Digits, "15"),
    "format": (Format, None),
    "json_": (Json, False),
    "derive": (Derive, False),
    "expect": (Expect, None),
    "rtol": (Rtol, None),
    "atol": (Atol, None),
    "get": (Get, None),
    "plot": (Plot, None),
    "plot_y": (PlotY, None),
    "chart": (Chart, None),
    "quiet": (Quiet, False),
    "budget": (Budget, None),
    "jobs": (Jobs, None),
    "dask": (Dask, None),
}


def catalog_parameters() -> dict[str, Any]:
    """One option per catalog parameter (``--slope`` …), generated from the catalog entries that
    declare it, for every command that takes an activation."""
    from ..catalog.parameters import PARAMETERS

    options: dict[str, Any] = {}
    for param in PARAMETERS:
        default = (
            str(param.default.numerator) if param.default.denominator == 1 else str(float(param.default))
        )
        options[param.name] = number(
            "--" + param.name.replace("_", "-"),
            f"{', '.join(param.owners)} only: the {param.description}. [default: {default}]",
            optional=True,
        )
    return options
