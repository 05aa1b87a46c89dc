"""``momentcalc identify VALUE...`` and ``momentcalc audit PATH...``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..app import app
from ..options import Format, Json
from ..runner import errors_as, output_format

IDENTIFY_EXAMPLES = """
Examples:

  momentcalc identify 1.7139588594436646      timm's relu gamma: 3 of 17 digits correct

  momentcalc identify 1.7580993408473766 .87962566103423978

  momentcalc identify --list                  the index: every constant identify and audit know
"""

AUDIT_EXAMPLES = """
Examples:

  momentcalc audit src/                       table of every constant found; exit 1 if one is wrong

  momentcalc audit . --format github          GitHub Actions annotations on the pull request

  momentcalc audit . --format sarif > audit.sarif

  momentcalc audit . --exclude 'tests/*' --strict
"""

Values = Annotated[
    Optional[list[str]],
    typer.Argument(
        metavar="VALUE...", help="Numbers as written in code, e.g. 1.7139588594436646.", show_default=False
    ),
]
Paths = Annotated[
    Optional[list[str]],
    typer.Argument(metavar="PATH...", help="Files and directories to scan.", show_default=False),
]
AuditFormat = Annotated[
    Optional[str],
    typer.Option(
        "--format",
        metavar="table|json|csv|sarif|github",
        show_default=False,
        help="Output format.  [default: table]",
    ),
]


def _digits(text: Optional[str]) -> Optional[int]:
    if text is None:
        return None
    from ...errors import InputError

    try:
        value = int(text)
    except ValueError:
        raise InputError(param="digits", allowed="a whole number from 1 to 1000", got=repr(text)) from None
    if not 1 <= value <= 1000:
        raise InputError(param="digits", allowed="a whole number from 1 to 1000", got=repr(text))
    return value


@app.command("identify", epilog=IDENTIFY_EXAMPLES)
def identify(
    values: Values = None,
    list_: Annotated[bool, typer.Option("--list", help="Print the index of constants instead.")] = False,
    digits: Annotated[
        Optional[str],
        typer.Option(
            "--digits",
            metavar="N",
            help="Digits of each exact value (default: 17, or two more than the value has).",
        ),
    ] = None,
    format: Format = None,
    json_: Json = False,
) -> None:
    """Which initialization constant is this number? Candidates from momentcalc's index, with the digits that are correct."""
    import sys

    from ...computations.identify import identify as run
    from ...computations.identify import index_listing
    from ...render import emit

    with errors_as(format, json_, {"value": "VALUE"}):
        form = output_format(format, json_)
        n = _digits(digits)
        listing = index_listing(n) if list_ else run(list(values or []), digits=n)
    emit(listing, form)
    sys.stdout.flush()
    for line in listing.failures:
        sys.stderr.write(line + "\n")
    if listing.failures:  # a value no constant of the index agrees with
        raise typer.Exit(1)


@app.command("audit", epilog=AUDIT_EXAMPLES)
def audit(
    paths: Paths = None,
    include: Annotated[
        Optional[list[str]],
        typer.Option(
            "--include", metavar="GLOB", help="Scan only files matching GLOB (path or file name). Repeatable."
        ),
    ] = None,
    exclude: Annotated[
        Optional[list[str]],
        typer.Option("--exclude", metavar="GLOB", help="Skip files matching GLOB. Repeatable."),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on inexact constants too.")] = False,
    format: AuditFormat = None,
    json_: Json = False,
) -> None:
    """Check the initialization constants written in a codebase against their exact values (exit 1 if one is wrong)."""
    import sys

    from ...computations.audit import audit as scan
    from ...errors import InputError
    from ...render import emit

    with errors_as(format, json_, {"path": "PATH"}):
        if format in ("sarif", "github") and not json_:
            form = format
        elif format in ("sarif", "github"):
            raise InputError(
                f"{{format}} {format} contradicts --json (short for --format json): give one of them",
                param="format",
            )
        else:
            form = output_format(format, json_) if format in (None, "table", "json", "csv") else None
            if form is None:
                raise InputError(
                    param="format", allowed="one of table, json, csv, sarif, github", got=repr(format)
                )
        listing = scan(list(paths or []), include=include or (), exclude=exclude or (), strict=strict)
    emit(listing, form)
    sys.stdout.flush()
    if form in ("table", "text"):
        for line in listing.failures:
            sys.stderr.write(line + "\n")
    if not listing.ok:
        raise typer.Exit(1)
