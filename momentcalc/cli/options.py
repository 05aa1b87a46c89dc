"""Option aliases, defined once (``Annotated``) and shared by every command."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

NUMBER_METAVAR = "X|LIST|RANGE"
SWEEP_HELP = " Sweep: a comma list 0.5,1,2 or START:STOP:STEP."


def number_option(flag: str, help: str, *, sweep: bool = True) -> object:
    """An option that takes an exact decimal (as text, parsed by momentcalc, never a float)."""
    return typer.Option(
        flag, help=help + (SWEEP_HELP if sweep else ""), metavar=NUMBER_METAVAR if sweep else "X",
        show_default=True,
    )


Digits = Annotated[
    str,
    typer.Option("--digits", metavar="N", help="Significant digits of every result, 1 to 1000; correctly rounded (half away from zero)."),
]
Format = Annotated[str, typer.Option("--format", metavar="table|json|csv", help="Output format.")]
Json = Annotated[bool, typer.Option("--json", help="Short for --format json.")]
Derive = Annotated[bool, typer.Option("--derive", help="Also derive each result symbolically with sympy (closed form and LaTeX).")]
Expect = Annotated[
    Optional[list[str]],
    typer.Option(
        "--expect", metavar="NAME=VALUE",
        help="Check result NAME against VALUE, a correctly rounded published value with at least 3 significant "
             "digits (passes within half a unit in its last digit); exit 1 on mismatch. Repeatable.",
    ),
]
Rtol = Annotated[
    Optional[str],
    typer.Option("--rtol", metavar="R", help="Relative tolerance for --expect: pass when |result - VALUE| <= A + R*|VALUE|."),
]
Atol = Annotated[
    Optional[str],
    typer.Option("--atol", metavar="A", help="Absolute tolerance for --expect: pass when |result - VALUE| <= A + R*|VALUE|."),
]
Get = Annotated[
    Optional[list[str]],
    typer.Option(
        "--get", metavar="NAME",
        help="Print only result NAME's decimal (one line per sweep point). Repeatable: tab-separated, in the order given.",
    ),
]
