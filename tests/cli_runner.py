"""``momentcalc ARGS`` in-process, as typer's ``CliRunner.invoke`` runs it, but through the app's
command built once: typer rebuilds it from every command's signature on each ``invoke`` (about
7 ms; the suite makes over a thousand calls)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from typer.testing import CliRunner


@lru_cache(maxsize=1)
def command() -> Any:
    """The app's click command (what ``momentcalc`` builds at start-up)."""
    import typer

    from momentcalc.cli import app

    return typer.main.get_command(app)


def run(args: Sequence[str], env: Mapping[str, str] | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``momentcalc ARGS``; exceptions other than the exit propagate."""
    with CliRunner().isolation(env=env) as (out, err, _):
        try:
            command().main(args=list(args), prog_name="momentcalc")
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            stdout, stderr = _text(out.getvalue()), _text(err.getvalue())
    return code, stdout, stderr


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace").replace("\r\n", "\n")


def run_as_on_a_terminal(line: str, columns: int = 100) -> list[str]:
    """The lines ``$ momentcalc ...`` shows on a terminal ``columns`` wide (stdout then stderr,
    without colour, trailing spaces dropped): in-process, with stdout taken for a terminal, so
    that the default output is the boxed table a person at a terminal sees rather than the
    plain text of a pipe. (The README's examples.)"""
    import shlex

    from momentcalc.cli import options

    args = shlex.split(line[2:])[1:]
    real = options.stdout_is_terminal
    options.stdout_is_terminal = lambda: True
    try:
        _, stdout, stderr = run(args, env={"COLUMNS": str(columns)})
    finally:
        options.stdout_is_terminal = real
    return [text.rstrip() for text in (stdout + stderr).rstrip("\n").splitlines()]
