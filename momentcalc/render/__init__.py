"""Renderers: the one place where results become text (table, JSON, CSV) or errors are shown.

``emit`` is the single output choke point; ``error_document`` the shape of a JSON error.
Only the table renderer imports rich.
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..result import Computation, Listing, Sweep

FORMATS = ("table", "json", "csv")


def emit(result: Computation | Sweep | Listing, fmt: str, stream: TextIO | None = None) -> None:
    """Write ``result`` to ``stream`` (stdout) in format ``fmt``."""
    out = sys.stdout if stream is None else stream
    if fmt == "json":
        from .json_out import json_pieces

        out.writelines(json_pieces(result))
        out.write("\n")
    elif fmt == "csv":
        from .csv_out import render_csv

        out.write(render_csv(result))
    else:
        from .table import render_table

        render_table(result, out)
