"""``momentcalc verify`` and ``momentcalc constants``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..app import app
from ..options import Format, Json
from ..runner import errors_as, output_format
from ...render import emit

Only = Annotated[
    list[str] | None,
    typer.Option("--only", metavar="ID", help="Check only constants whose id contains ID. Repeatable."),
]

VERIFY_EXAMPLES = """
Examples:

  momentcalc verify                     every published constant, exit 1 if any fails

  momentcalc verify --json | jq .ok     for CI scripts

  momentcalc verify --only selu         just the SELU constants
"""

CONSTANTS_EXAMPLES = """
Examples:

  momentcalc constants                  the registry: id, published text, source

  momentcalc constants --format csv
"""


@app.command("verify", epilog=VERIFY_EXAMPLES)
def verify(only: Only = None, format: Format = None, json_: Json = False) -> None:
    """Recompute every published constant (the source articles, the SELU paper, TensorFlow, PyTorch) by two routes."""
    from ...verification.run import verify as run

    with errors_as(format, json_):
        form = output_format(format, json_)
        listing = run(only=only)
    emit(listing, form)
    sys.stdout.flush()
    for line in listing.failures:  # on stderr too, so a CI log shows it when stdout goes to a file
        sys.stderr.write(line + "\n")
    if not listing.ok:
        raise typer.Exit(1)


@app.command("constants", epilog=CONSTANTS_EXAMPLES)
def constants(format: Format = None, json_: Json = False) -> None:
    """List the registry of published constants that `momentcalc verify` checks."""
    from ...verification.run import constants as listing

    with errors_as(format, json_):
        emit(listing(), output_format(format, json_))
