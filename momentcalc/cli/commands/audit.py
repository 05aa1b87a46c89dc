"""``momentcalc identify VALUE...`` and ``momentcalc audit PATH...``."""

from __future__ import annotations

import os
import sys
from functools import partial
from typing import Annotated, NamedTuple

import typer

from ..app import app
from ..options import Format, Json
from ..runner import errors_as, flag, output_format
from ...errors import InputError, PrecisionError
from ...render import emit

IDENTIFY_EXAMPLES = """
Examples:

  momentcalc identify 1.7580993408473766      PyTorch's alpha-dropout: SELU's lambda*alpha, 1 ulp low

  momentcalc identify 1.7139588594436646 --name relu_gamma
                                              timm's relu gamma: 3 of 17 digits correct, wrong (exit 1)

  momentcalc identify 1.7580993408473766 .87962566103423978

  momentcalc identify --list                  the index: every constant identify and audit know
"""

AUDIT_EXAMPLES = """
Examples:

  momentcalc audit                            the project ([tool.momentcalc.audit] in pyproject.toml); exit 1 if a constant is wrong

  momentcalc audit src/ --all                 every constant found under src/, the ok ones too

  momentcalc audit --format github            GitHub Actions annotations on the pull request

  momentcalc audit --format sarif > audit.sarif

  momentcalc audit --write-baseline audit-baseline.json
                                              accept what is found now (say why in each entry); then --baseline
"""

Values = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="VALUE...", help="Numbers as written in code, e.g. 1.7139588594436646.", show_default=False
    ),
]
Paths = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="PATH...",
        help="Files and directories to scan (default: the paths of [tool.momentcalc.audit] in pyproject.toml, "
        "else the project: the directory holding pyproject.toml, else the working directory).",
        show_default=False,
    ),
]
AuditFormat = Annotated[
    str | None,
    typer.Option(
        "--format",
        metavar="table|text|json|csv|sarif|github",
        show_default=False,
        help="Output format. table: boxed (the default on a terminal); text: plain aligned columns (the "
        "default when stdout is a pipe or a file); json; csv; sarif (SARIF 2.1.0, code scanning); github "
        "(workflow commands: annotations on a pull request).  [default: table on a terminal, else text]",
    ),
]


def _digits(text: str | None) -> int | None:
    if text is None:
        return None

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
        str | None,
        typer.Option(
            "--digits",
            metavar="N",
            help="Digits of each exact value (default: 17, or two more than the value has).",
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            metavar="NAME",
            help="The name the value is written under in code (relu_gamma, gelu_std), judged as audit judges "
            "a key: the constant it names, with its verdict.",
        ),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on an inexact value too.")] = False,
    format: Format = None,
    json_: Json = False,
) -> None:
    """Which initialization constant is this number? Candidates from momentcalc's index, with the digits that are correct.

    Exit codes: 0 every value is a constant of the index (ok or inexact); 1 a value matches nothing ("no match", with
    the reason) or is a wrong copy of its constant (--strict: or inexact); 2 bad arguments; 3 the tool failed.
    """

    from ...computations.identify import identify as run
    from ...computations.identify import index_listing

    with errors_as(format, json_, {"value": "VALUE", "name": "--name"}):
        form = output_format(format, json_)
        n = _digits(digits)
        listing = index_listing(n) if list_ else run(list(values or []), digits=n, strict=strict, name=name)
    if listing.rows or form == "json":
        emit(listing, form)
    sys.stdout.flush()
    if form != "json":  # JSON carries them as no_match
        notes = sys.stdout if form in ("table", "text") else sys.stderr
        for line in listing.failures:
            notes.write(line + "\n")
    if listing.extra.get("ok") is False:  # a value that matches nothing, or a wrong one
        raise typer.Exit(1)


@app.command("audit", epilog=AUDIT_EXAMPLES)
def audit(
    paths: Paths = None,
    include: Annotated[
        list[str] | None,
        typer.Option(
            "--include", metavar="GLOB", help="Scan only files matching GLOB (path or file name). Repeatable."
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", metavar="GLOB", help="Skip files matching GLOB. Repeatable."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 on inexact constants and skipped files too.")
    ] = False,
    all_: Annotated[
        bool,
        typer.Option("--all", help="List every constant found, the ok ones too (default: the problems)."),
    ] = False,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="FILE",
            help="Accept the findings listed in FILE (each with its reason): only new ones fail.",
        ),
    ] = None,
    write_baseline: Annotated[
        str | None,
        typer.Option(
            "--write-baseline",
            metavar="FILE",
            help="Write every problem found to FILE as a baseline (reasons of entries already there kept).",
        ),
    ] = None,
    format: AuditFormat = None,
    json_: Json = False,
    budget: Annotated[
        str | None,
        typer.Option(
            "--budget",
            metavar="SECONDS",
            help="CPU seconds audit may take (also MOMENTCALC_BUDGET; default 600).",
        ),
    ] = None,
) -> None:
    """Check the initialization constants written in a codebase against their exact values (exit 1 if one is wrong).

    Settings may live in pyproject.toml under [tool.momentcalc.audit]: paths, include, exclude, strict, baseline;
    options given here replace them. A file that cannot be read as text (unreadable, binary, not UTF-8/UTF-16 or
    its coding declaration) is skipped with a note; --strict fails on it.

    Exit codes: 0 no constant is wrong (or each is accepted by the baseline); 1 a constant is wrong (--strict: or
    inexact, or a file was skipped); 2 bad arguments, or no file to scan; 3 the tool failed (on a file: the others
    are still reported).
    """

    from .. import child
    from ..budget import parse_budget

    with errors_as(format, json_, {"path": "PATH"}):
        if format in ("sarif", "github") and not json_:
            form = format
        elif format in ("sarif", "github"):
            raise InputError(
                f"{{format}} {format} contradicts --json (short for --format json): give one of them",
                param="format",
            )
        else:
            form = output_format(format, json_) if format in (None, "table", "text", "json", "csv") else None
            if form is None:
                raise InputError(
                    param="format", allowed="one of table, text, json, csv, sarif, github", got=repr(format)
                )
        if baseline is not None and write_baseline is not None and baseline != write_baseline:
            raise InputError(
                "{baseline} and {write_baseline} name different files: give one (--write-baseline keeps the "
                "reasons of the entries already in its file)",
                param="baseline",
                params=("write_baseline",),
            )
        chosen = parse_budget(budget)
        request = _Request(
            list(paths or []),
            include,
            exclude,
            strict,
            all_,
            baseline,
            write_baseline,
            form,
            not _one_destination(),
        )
        if not child.ENABLED:
            code = _audit_and_write(request)
        else:  # under the CPU and memory limits of every command (a hostile tree is ordinary)
            from .. import memory

            seconds = chosen if chosen is not None else AUDIT_SECONDS
            ceiling = memory.ceiling_bytes()
            try:
                code, out, err = child.run(
                    partial(_audit_and_write, request), cpu_seconds=seconds, memory_bytes=ceiling
                )
            except child.LimitHit as hit:
                raise _limit_error(hit, seconds, ceiling) from None
            sys.stdout.write(out)
            sys.stdout.flush()
            sys.stderr.write(err)
    if code:
        raise typer.Exit(code)


class _Request(NamedTuple):
    paths: list[str]
    include: list[str] | None
    exclude: list[str] | None
    strict: bool
    show_all: bool
    baseline: str | None
    write_baseline: str | None
    form: str
    echo_failures: bool  # repeat each failing row on stderr (stdout goes elsewhere)


def _one_destination() -> bool:
    """Do stdout and stderr go to the same file (a terminal, or ``2>&1``)? Then the table's
    failing rows are not repeated on stderr."""
    try:
        out, err = os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (out.st_dev, out.st_ino) == (err.st_dev, err.st_ino)


# audit's default CPU limit (--budget or MOMENTCALC_BUDGET replace it): Python's standard library,
# 10,000 files, takes about 11 s.
AUDIT_SECONDS = 600.0


def _limit_error(hit: object, seconds: float, ceiling: int | None) -> Exception:
    from ..memory import ENVIRONMENT, limit_text

    if getattr(hit, "kind", "") == "memory":
        return PrecisionError(
            f"audit needed more than {limit_text(ceiling)}, its memory limit: scan fewer files "
            f"({{path}}, --exclude), or raise {ENVIRONMENT} (e.g. {ENVIRONMENT}=8G)",
            params=("path", "budget"),
        )
    return PrecisionError(
        f"audit used its CPU time limit of {seconds:.3g} s without finishing: scan fewer files "
        f"({{path}}, --exclude), or raise {{budget}} (e.g. {{budget}} {4 * seconds:.0f})",
        params=("path", "budget"),
    )


def _audit_and_write(request: _Request) -> int:
    """The scan, its output on stdout and its notes on stderr; the exit code."""

    from ...computations.audit import audit as scan
    from ...computations.audit_reading import shown
    from ...computations.audit_project import find_project

    project = find_project()
    paths = request.paths or list(project.paths) or [os.path.relpath(project.directory)]
    baseline = (request.baseline or project.baseline) if request.write_baseline is None else None
    listing = scan(
        paths,
        include=request.include if request.include is not None else project.include,
        exclude=request.exclude if request.exclude is not None else project.exclude,
        strict=request.strict or project.strict,
        root=project.directory,
        baseline=baseline,
        show_all=request.show_all,
        write_baseline=request.write_baseline,
    ).named(flag)
    if request.form in ("sarif", "github"):
        from ...render.audit_formats import render_audit

        sys.stdout.write(render_audit(listing, request.form, project.directory, request.show_all))
    elif request.form in ("table", "text") and not listing.rows:  # nothing to show: the summary alone
        verdict = "all ok" if listing.ok else "FAILED"
        sys.stdout.write("".join(f"audit: {shown(note)}\n" for note in listing.notes[1:]))
        sys.stdout.write(f"audit: {shown(listing.notes[0])}: {verdict}\n")
    else:
        emit(listing, request.form)
    sys.stdout.flush()
    skipped = listing.extra.get("skipped", [])
    if request.form in ("table", "text"):
        # (on stderr too, so that a CI log shows them when stdout goes to a file; not twice on
        # one terminal)
        for line in listing.failures if request.echo_failures else ():
            sys.stderr.write(shown(line) + "\n")
        for entry in skipped:
            sys.stderr.write(f"momentcalc: skipped {shown(entry['path'])}: {shown(entry['reason'])}\n")
    if any(entry["kind"] == "error" for entry in skipped):
        return 3
    return 0 if listing.ok else 1
