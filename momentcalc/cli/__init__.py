"""The command-line interface (typer): thin commands over ``momentcalc.computations``."""

from .app import app, main

__all__ = ["app", "main"]
