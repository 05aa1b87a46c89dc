"""The JSON Schema (draft 2020-12) of every ``--json`` document, shipped as package data."""

from __future__ import annotations

from importlib.resources import files

SCHEMA_FILE = "json_schema.json"


def schema_text() -> str:
    """The schema as stored (``momentcalc schema`` prints it)."""
    return files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
