"""The command-line interface (typer): thin commands over ``momentcalc.computations``."""

from .. import flint_lazy

flint_lazy.install()  # before anything imports flint: only the Arb types load (start-up)

from . import commands  # noqa: E402,F401  (registers every command on app)
from .app import app, main  # noqa: E402

__all__ = ["app", "main"]
