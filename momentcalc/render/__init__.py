"""Renderers: the one place where results become text (table, JSON, CSV) or errors are shown.

``emit`` is the single output choke point (``emit_values`` its bare form for ``--get``; both
spell what the stream cannot encode in ASCII, see ``text``); ``error_document`` the shape of a
JSON error.
Only the table renderer imports rich; ``text`` (plain aligned columns, the default off a
terminal) does not.
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..result import Computation, Listing, NoResult, Sweep
from ..errors import InputError, unknown_name

FORMATS = ("table", "text", "json", "csv")


class OutputClosed(Exception):
    """stdout was closed by its reader (``| head``). Not an OSError, so that click, which
    turns a broken pipe into exit 1, leaves it to the CLI's error path."""


def emit(result: Computation | Sweep | Listing, fmt: str, stream: TextIO | None = None) -> None:
    """Write ``result`` to ``stream`` (stdout) in format ``fmt``."""
    from .text import fitting_stream

    out = fitting_stream(sys.stdout if stream is None else stream, json=fmt == "json")
    try:
        _write(result, fmt, out)
    except BrokenPipeError:
        raise OutputClosed from None


def _write(result: Computation | Sweep | Listing, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        from .json_out import json_pieces

        out.writelines(json_pieces(result))
        out.write("\n")
    elif fmt in ("sarif", "github") and isinstance(result, Computation):
        from .init_report_formats import render_init_report

        out.write(render_init_report(result, fmt))
    elif fmt in ("sarif", "github"):
        from .audit_formats import render_audit

        assert isinstance(result, Listing)  # sarif/github: audit's listing (init-report's computation above)
        out.write(render_audit(result, fmt))
    elif fmt == "csv":
        from .csv_out import render_csv

        out.write(render_csv(result))
    elif fmt == "text":
        from .plain import render_plain

        render_plain(result, out)
    else:
        from .table import render_table

        render_table(result, out)


def emit_values(result: Computation | Sweep, names: list[str], stream: TextIO | None = None) -> None:
    """``--get NAME ...``: each named result's decimal, tab-separated in the order given, one
    line per point (a list-valued result as its decimals separated by spaces). ``input.NAME``
    is an input as given (``--get input.std --get gamma`` labels a sweep's lines). A sweep's
    point without results prints its status in place of each result (``no_fixed_point``,
    ``explodes``, ``refused``): still one line per point, and never a number."""
    from .cells import INPUT_PREFIX, input_text
    from .document import quantity_document

    rows = result.rows if isinstance(result, Sweep) else (result,)
    first = next((row for row in rows if isinstance(row, Computation)), None)
    inputs = [INPUT_PREFIX + name for name in rows[0].inputs]
    for name in names:
        if first is not None and name not in first.names and name not in inputs:
            if name in first.left_out:
                raise first.not_here("get", name)
            raise InputError(
                "{get} "
                + unknown_name("result", name, first.names)
                + f" (and the inputs: {', '.join(inputs)})",
                param="get",
            )
    out = sys.stdout if stream is None else stream
    try:
        for row in rows:
            cells = []
            for name in names:
                if name.startswith(INPUT_PREFIX) and (first is None or name not in first.names):
                    value = row.inputs.get(name[len(INPUT_PREFIX) :])
                    cells.append("" if value is None else input_text(value))
                    continue
                if isinstance(row, NoResult):
                    cells.append(row.status)
                    continue
                decimal = quantity_document(row[name], row.digits)["decimal"]
                cells.append(decimal if isinstance(decimal, str) else " ".join(decimal))
            out.write("\t".join(cells) + "\n")
    except BrokenPipeError:
        raise OutputClosed from None


def emit_chart(result: Sweep, name: str, fmt: str, stream: TextIO | None = None) -> None:
    """``--chart NAME``: result NAME of each sweep point as a bar, labelled with the swept
    inputs, under the table (``fmt`` table or text)."""
    from .cells import input_text, outcome_cell, shown_value

    labels = ["  ".join(input_text(row.inputs.get(s)) for s in result.swept) for row in result.rows]
    header = ", ".join(result.swept)
    values = [None if isinstance(row, NoResult) else row[name].value for row in result.rows]
    texts = [
        outcome_cell(row) if isinstance(row, NoResult) else shown_value(row[name], result.digits)
        for row in result.rows
    ]
    out = fitting_stream_for(stream)
    try:
        if fmt == "table":
            from .table import print_chart

            print_chart(out, name, values, labels, header, texts)
        else:
            from .chart import chart_rows
            from .plain import aligned

            title, rows = chart_rows(name, values, labels, texts)
            lines = ["", title, *aligned([header, "value", "bar"], [list(r) for r in rows], right=[True])]
            out.write("".join(line + "\n" for line in lines))
    except BrokenPipeError:
        raise OutputClosed from None


def fitting_stream_for(stream: TextIO | None) -> TextIO:
    from .text import fitting_stream

    return fitting_stream(sys.stdout if stream is None else stream)
