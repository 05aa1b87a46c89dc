"""The Typer application: its global options and the entry point. The commands register
themselves on ``app`` when their module is imported, which the group does for the command it
is asked for (``momentcalc.cli.commands``); this module imports none of them."""

from __future__ import annotations

import gc
import os
import sys
from typing import Annotated, Any

import typer

from .._version import __version__
from . import child
from .group import MomentcalcGroup
from .streams import prepare_streams


class Group(MomentcalcGroup):
    """The group of ``app``: its commands register on ``app`` as they are imported."""

    def typer_app(self) -> typer.Typer:
        return app

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        for param in params:
            if param.name in COMPLETION_HELP:
                param.help = COMPLETION_HELP[param.name]
        return params


COMPLETION_HELP = {
    "install_completion": "Install completion for the current shell, or for the one named after it "
    "(bash, zsh, fish, powershell, pwsh): --install-completion zsh.",
    "show_completion": "Show completion for the current shell (or the one named after it), to copy it "
    "or customize the installation.",
}


app = typer.Typer(
    cls=Group,
    name="momentcalc",
    help=(
        "Analytic moment calculator for neural-network initialization, correct to every printed "
        "digit: truncated-normal corrections and what framework init calls really sample; "
        "activation moments, exact gains and SELU constants; residual decay, attention and GAU "
        "scales; mean-field signal propagation, infinite-width kernels, Hermite expansions and "
        "activation transforms; a whole transformer's init report and its expected initial loss; the "
        "initialization constants in a codebase, checked."
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
        bool | None,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit."),
    ] = None,
) -> None:
    """Analytic moment calculator for neural-network initialization."""
    start_up_over()  # the command is known (and imported); its options are parsed next


def start_up_over() -> None:
    """Where the console script turned the garbage collector off for start-up
    (``momentcalc.console``): freeze what start-up made and turn it on again."""

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


COMPLETION_OPTIONS = ("--install-completion", "--show-completion")


def _completion_shell_named(argv: list[str]) -> None:
    """``--install-completion zsh``: the shell named, not the one Typer detects. Typer's two
    options take a shell (bash, zsh, fish, powershell, pwsh) only when its shell detection is
    off; otherwise they are flags and the word after them was silently dropped, which installed
    bash completion for a zsh user. So when a word follows either option, detection is turned
    off for this process and Typer reads the word as the shell (an unknown one is exit 2)."""
    for i, arg in enumerate(argv):
        named = arg.partition("=")[0] in COMPLETION_OPTIONS and "=" in arg
        followed = arg in COMPLETION_OPTIONS and i + 1 < len(argv) and not argv[i + 1].startswith("-")
        if named or followed:
            os.environ["_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"] = "1"
            return


def main() -> None:
    """Console-script entry point.

    No command is imported yet: the group imports and builds only the one that argv names
    (``cli.group.LazyCommands``); ``--help``, a misspelt command and shell completion list
    them all."""
    prepare_streams()
    _completion_shell_named(sys.argv[1:])
    child.ENABLED = True  # computations run in a child process under OS limits (not on import: tests)
    app()
