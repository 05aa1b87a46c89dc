"""Run one computing command: parse options, sweep, check expectations, render, exit code.

Every computing command goes through ``computing_command``, which adds the shared options
(--digits, --format/--json, --derive, --expect, --rtol, --atol, --get) to the command's own signature, so a
command module only declares its own options and says which computation to call.
"""

from __future__ import annotations

import inspect
import itertools
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import typer

from ..engine.numbers import MAX_SWEEP_POINTS, is_sweep_syntax, parse_integer, parse_values
from ..engine.precision import MAX_DIGITS
from ..errors import InputError, MomentcalcError
from ..render import FORMATS
from ..progress import delayed_progress
from ..result import Computation, Sweep
from .options import Atol, Derive, Digits, Expect, Format, Get, Json, Rtol

SHARED = ("digits", "format", "json_", "derive", "expect", "rtol", "atol", "get")


@dataclass(frozen=True)
class Numeric:
    """How a numeric option is parsed: may it be infinite, may it be swept."""

    allow_inf: bool = False
    sweep: bool = True


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _arguments(parameters: list[inspect.Parameter]) -> dict[str, str]:
    """Positional arguments by their metavar (activation -> ACTIVATION): how errors name them."""
    names = {}
    for parameter in parameters:
        for info in getattr(parameter.annotation, "__metadata__", ()):
            if isinstance(info, typer.models.ArgumentInfo):
                names[parameter.name] = info.metavar or parameter.name.upper()
    return names


def _common_parameters() -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter("digits", kw, default="15", annotation=Digits),
        inspect.Parameter("format", kw, default="table", annotation=Format),
        inspect.Parameter("json_", kw, default=False, annotation=Json),
        inspect.Parameter("derive", kw, default=False, annotation=Derive),
        inspect.Parameter("expect", kw, default=None, annotation=Expect),
        inspect.Parameter("rtol", kw, default=None, annotation=Rtol),
        inspect.Parameter("atol", kw, default=None, annotation=Atol),
        inspect.Parameter("get", kw, default=None, annotation=Get),
    ]


def output_format(fmt: str, json_flag: bool) -> str:
    if json_flag:
        return "json"
    if fmt not in FORMATS:
        error = InputError(param="format", allowed=f"one of {', '.join(FORMATS)}", got=repr(fmt))
        error.json_output = False
        raise error
    return fmt


@contextmanager
def errors_as(fmt: str, json_flag: bool, arguments: Mapping[str, str] | None = None) -> Iterator[None]:
    """Mark any error raised inside with whether the user asked for JSON, which the parsed
    options say for sure (the error path would otherwise have to guess from the raw argv), and
    with how this command names the parameters: ``--std``, or a positional argument's metavar."""
    try:
        yield
    except MomentcalcError as error:
        if error.json_output is None:
            error.json_output = json_flag or fmt == "json"
        if error.cli_names is None:
            error.cli_names = dict(arguments or {})
        raise


def sweep_points(options: Mapping[str, Any], numeric: Mapping[str, Numeric]) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """Expand numeric option texts into points (cartesian product over swept options).

    An option is swept when it is written as a sweep (a comma list or a range), even when
    that yields one point: the output's shape follows the command line, not the data."""
    axes: dict[str, list[Any]] = {}
    for name, value in options.items():
        spec = numeric.get(name)
        if spec is None or value is None:
            axes[name] = [value]
            continue
        values = parse_values(str(value), name, allow_inf=spec.allow_inf)
        if len(values) > 1 and not spec.sweep:
            raise InputError(f"{{{name}}} cannot be swept; give a single value", param=name)
        axes[name] = values
    swept = tuple(
        name for name, values in axes.items()
        if len(values) > 1 or (name in numeric and options[name] is not None and is_sweep_syntax(str(options[name])))
    )
    total = 1
    for values in axes.values():
        total *= len(values)
    if total > MAX_SWEEP_POINTS:
        raise InputError(f"the sweep over {', '.join('{' + name + '}' for name in swept)} has {total} points; "
                         f"at most {MAX_SWEEP_POINTS} are allowed", params=swept)
    names = list(axes)
    points = [dict(zip(names, combo)) for combo in itertools.product(*(axes[n] for n in names))]
    return points, swept


def _with_progress(points: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Yield the points; a long sweep shows a progress bar on a terminal's stderr."""
    with delayed_progress(len(points), "sweep") as step:
        for point in points:
            yield point
            step()


def execute(
    compute: Callable[..., Computation],
    options: Mapping[str, Any],
    numeric: Mapping[str, Numeric],
    *,
    digits: str,
    fmt: str,
    json_flag: bool,
    derive: bool,
    expect: list[str] | None,
    rtol: str | None,
    atol: str | None = None,
    get: list[str] | None = None,
) -> int:
    """Everything after option parsing; returns the exit code."""
    from ..checks import apply_expectations, mismatch_line, needed_digits, parse_expect, parse_tolerance
    from ..render import emit, emit_values

    form = output_format(fmt, json_flag)
    if get and form != "table":
        raise InputError(f"{{get}} prints bare values; it cannot be combined with {{format}} {form}", param="get",
                         params=("format",))
    n = parse_integer(digits, "digits", 1, MAX_DIGITS)
    tolerance = parse_tolerance(rtol, atol)
    expectations = [parse_expect(text, tolerance) for text in expect or ()]
    # A failed --expect shows the found value two digits past VALUE's: compute that far.
    work = min(needed_digits(expectations, n), MAX_DIGITS)
    points, swept = sweep_points(options, numeric)
    rows = []
    for point in _with_progress(points):
        computation = compute(**point, digits=work, derive=derive)
        if work != n:
            computation = replace(computation, digits=n)
        if expectations:
            computation = apply_expectations(computation, expectations, tolerance)
        rows.append(computation)
    result: Computation | Sweep = Sweep(rows[0].command, n, tuple(rows), swept) if swept else rows[0]
    if get:
        emit_values(result, get)
    else:
        emit(result, form)
    failed = [(row, check) for row in rows for check in row.checks if not check.ok]
    for row, check in failed:
        sys.stderr.write(mismatch_line(check, {name: row.inputs.get(name) for name in swept}) + "\n")
    return 1 if failed else 0


def computing_command(
    app: typer.Typer, name: str, numeric: Mapping[str, Numeric], **command_kwargs: Any
) -> Callable[[Callable[..., Callable[..., Computation]]], Callable[..., None]]:
    """Register ``name`` on ``app``. The decorated function takes the command's own options and
    returns the computation to call (imported lazily); the shared options are added here."""

    def register(define: Callable[..., Callable[..., Computation]]) -> Callable[..., None]:
        own = list(inspect.signature(define, eval_str=True).parameters.values())
        arguments = _arguments(own)

        def command(**kwargs: Any) -> None:
            common = {key: kwargs.pop(key) for key in SHARED}
            with errors_as(common["format"], common["json_"], arguments):
                compute = define(**kwargs)
                code = execute(
                    compute, kwargs, numeric, digits=common["digits"], fmt=common["format"],
                    json_flag=common["json_"], derive=common["derive"], expect=common["expect"], rtol=common["rtol"],
                    atol=common["atol"], get=common["get"],
                )
            if code:
                raise typer.Exit(code)

        parameters = own + _common_parameters()
        command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        command.__doc__ = define.__doc__
        command.__name__ = define.__name__
        app.command(name, **command_kwargs)(command)
        return command

    return register
