"""Pure mathematics at arbitrary precision: no typer, no rich, no I/O."""
