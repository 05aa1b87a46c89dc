"""The command-line interface (typer): thin commands over ``momentcalc.computations``."""

from .. import flint_lazy, gmpy2_start

flint_lazy.install()  # before anything imports flint: only the Arb types load (start-up)
gmpy2_start.load()  # before mpmath imports it: gmpy2 without importlib.metadata (start-up)

from . import commands  # noqa: E402,F401  (registers every command on app)
from .app import app, main  # noqa: E402

__all__ = ["app", "main"]
