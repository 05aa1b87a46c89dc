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

from ..result import Computation, Listing, Sweep

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
    line per point (a list-valued result as its decimals separated by spaces)."""
    from ..errors import InputError
    from .document import quantity_document

    rows = result.rows if isinstance(result, Sweep) else (result,)
    for name in names:
        if name not in rows[0].names:
            raise InputError(f"{{get}} names an unknown result {name!r}; results are: {', '.join(rows[0].names)}",
                             param="get")
    out = sys.stdout if stream is None else stream
    try:
        for row in rows:
            cells = []
            for name in names:
                decimal = quantity_document(row[name], row.digits)["decimal"]
                cells.append(decimal if isinstance(decimal, str) else " ".join(decimal))
            out.write("\t".join(cells) + "\n")
    except BrokenPipeError:
        raise OutputClosed from None
