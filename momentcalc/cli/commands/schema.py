"""``momentcalc schema``."""

from __future__ import annotations

import sys

from ..app import app

EXAMPLES = """
Examples:

  momentcalc schema > momentcalc.schema.json

  momentcalc truncnorm --json | check-jsonschema --schemafile momentcalc.schema.json -
"""


@app.command("schema", epilog=EXAMPLES)
def schema() -> None:
    """Print the JSON Schema (draft 2020-12) that every --json document validates against."""

    from ...render.schema import schema_text

    sys.stdout.write(schema_text())
