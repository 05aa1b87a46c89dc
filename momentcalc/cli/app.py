"""The Typer application: its global options and the entry point. The commands register
themselves on ``app`` (``momentcalc.cli.commands`` imports every module it holds); this module
imports none of them."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .._version import __version__
from .group import MomentcalcGroup

app = typer.Typer(
    cls=MomentcalcGroup,
    name="momentcalc",
    help=(
        "Analytic moment calculator for neural-network initialization: truncated-normal "
        "corrections, activation moments and gains, SELU constants, Post-Norm decay, GAU "
        "scale, correct to every printed digit."
    ),
    no_args_is_help=True,
    # -h as well as --help, on every command (subcommands inherit the group's context settings).
    context_settings={"help_option_names": ["-h", "--help"]},
    # Typer's --install-completion/--show-completion: measured at about 0.4 ms of start-up (the
    # completion modules are imported by typer either way).
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"momentcalc {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit."),
    ] = None,
) -> None:
    """Analytic moment calculator for neural-network initialization."""


def main() -> None:
    """Console-script entry point.

    Typer builds a click command (every parameter's converter and callback) for each registered
    command before it parses anything: about 10 ms for the dozen commands. When the first
    argument names a command exactly, only that command is registered for this run — the group
    still has its callback and options, so parsing, help and errors are the same; anything
    else (``--help``, ``--version``, a misspelt command, shell completion) builds them all."""
    import sys

    from . import child
    from .streams import prepare_streams

    prepare_streams()
    child.ENABLED = True  # computations run in a child process under OS limits (not on import: tests)
    everything = app.registered_commands
    app.registered_commands = only_the_invoked(everything, sys.argv[1:])
    try:
        app()
    finally:
        app.registered_commands = everything


def only_the_invoked(commands: list, argv: list[str]) -> list:
    """The one command ``argv[0]`` names, or every command."""
    import os

    if not argv or any(key.startswith("_MOMENTCALC") for key in os.environ):  # shell completion
        return commands
    chosen = [c for c in commands if c.name == argv[0]]
    return chosen if len(chosen) == 1 else commands
