"""The console script's entry point: ``momentcalc`` and ``python -m momentcalc``.

Importing the command line takes a tenth of a second; a Ctrl-C that lands in it (or anywhere
before ``cli.group`` handles it) ends the run quietly with exit 130, as everywhere else.
"""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from .cli import main as run

        run()
    except KeyboardInterrupt:
        sys.exit(130)
