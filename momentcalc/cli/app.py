"""The Typer application: its global options and the entry point. The commands register
themselves on ``app`` when their module is imported, which the group does for the command it
is asked for (``momentcalc.cli.commands``); this module imports none of them."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .._version import __version__
from .group import MomentcalcGroup


class Group(MomentcalcGroup):
    """The group of ``app``: its commands register on ``app`` as they are imported."""

    def typer_app(self) -> typer.Typer:
        return app


app = typer.Typer(
    cls=Group,
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
    start_up_over()  # the command is known (and imported); its options are parsed next


def start_up_over() -> None:
    """Where the console script turned the garbage collector off for start-up
    (``momentcalc.console``): freeze what start-up made and turn it on again."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def main() -> None:
    """Console-script entry point.

    No command is imported yet: the group imports and builds only the one that argv names
    (``cli.group.LazyCommands``); ``--help``, a misspelt command and shell completion list
    them all."""
    from . import child
    from .streams import prepare_streams

    prepare_streams()
    child.ENABLED = True  # computations run in a child process under OS limits (not on import: tests)
    app()
