"""Run one computing command: parse options, sweep, check expectations, render, exit code.

A command is a plain function: its own options (``Annotated`` aliases from ``options``, whose
``NumberRule`` says how each number is read), then keyword-only ``digits`` and ``derive`` (and
``params`` if it takes an activation); it calls the library and returns the ``Computation``.
``computing_command`` registers it with the shared options (--digits, --format/--json,
--derive, --expect, --rtol, --atol, --get) and, for ``params``, one option per catalog
parameter; the runner calls the function once per sweep point with exact numbers.
"""

from __future__ import annotations

import inspect
import itertools
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import typer

from ..engine.numbers import parse_integer
from ..engine.precision import MAX_DIGITS
from ..errors import InputError, MomentcalcError, PrecisionError
from ..render import FORMATS
from ..progress import delayed_progress
from ..result import Computation, Sweep
from . import memory
from .options import SHARED, NumberRule, catalog_parameters
from .sweep import MAX_SWEEP_POINTS, is_sweep_syntax, is_text_sweep, parse_texts, parse_values

# CPU seconds a sweep may compute for, and the points done before its time is projected.
# Writing the rows out costs about half as much again (JSON, CSV).
SWEEP_BUDGET = 4.5
PROJECT_AFTER = 3
# A rich table takes about half a millisecond a row: longer sweeps are for CSV and JSON.
MAX_TABLE_ROWS = 2000
# ... and about a microsecond a printed digit: 1000 rows at --digits 1000 took 10 s to lay out.
MAX_TABLE_DIGITS = 100_000


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


def output_format(fmt: str, json_flag: bool) -> str:
    """The output form: ``--json`` is short for ``--format json``, so it cannot excuse a bad
    ``--format`` nor overrule ``--format csv`` (the default ``table`` gives way to it)."""
    if fmt not in FORMATS:
        error = InputError(param="format", allowed=f"one of {', '.join(FORMATS)}", got=repr(fmt))
    elif json_flag and fmt == "csv":
        error = InputError("{format} csv contradicts --json (short for --format json): give one of them",
                           param="format")
    else:
        from .options import shown_form

        return "json" if json_flag else shown_form(fmt)
    error.json_output = json_flag
    raise error


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


def sweep_points(options: Mapping[str, Any], numeric: Mapping[str, NumberRule]) -> tuple[_Points, tuple[str, ...]]:
    """Expand numeric option texts into points (cartesian product over swept options).

    An option is swept when it is written as a sweep (a comma list or a range), even when
    that yields one point: the output's shape follows the command line, not the data."""
    axes: dict[str, list[Any]] = {}
    for name, value in options.items():
        spec = numeric.get(name)
        if spec is None or value is None:
            axes[name] = [value]
            continue
        if spec.text:
            axes[name] = parse_texts(str(value), name)
            continue
        axes[name] = parse_values(str(value), name, allow_inf=spec.allow_inf, sweep=spec.sweep)
    swept = tuple(
        name for name, values in axes.items()
        if len(values) > 1 or (name in numeric and options[name] is not None
                               and (is_text_sweep if numeric[name].text else is_sweep_syntax)(str(options[name])))
    )
    total = 1
    for values in axes.values():
        total *= len(values)
    if total > MAX_SWEEP_POINTS:
        raise InputError(f"the sweep over {', '.join('{' + name + '}' for name in swept)} has {total} points; "
                         f"at most {MAX_SWEEP_POINTS} are allowed", params=swept)
    return _Points(axes, total), swept


class _Points:
    """The sweep's points, made one at a time as the sweep reaches them (a sweep that its work
    budget refuses early need not build 100000 dicts first)."""

    def __init__(self, axes: dict[str, list[Any]], count: int) -> None:
        self._axes, self._count = axes, count

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[dict[str, Any]]:
        names = list(self._axes)
        for combo in itertools.product(*(self._axes[name] for name in names)):
            yield dict(zip(names, combo))


def _with_progress(points: _Points, swept: tuple[str, ...] = ()) -> Iterator[dict[str, Any]]:
    """Yield the points; a long sweep shows a progress bar on a terminal's stderr.

    A sweep is bounded by its work, not only by its number of points: it may compute for at
    most SWEEP_BUDGET seconds of CPU time. Once a few points are done, the time they took
    projects the whole sweep, and a sweep projected past the budget is refused then (within a
    second or so, with the projection in the message) rather than after minutes.
    """
    start = time.process_time()
    first = 0.0
    with delayed_progress(len(points), "sweep") as step:
        for done, point in enumerate(points, 1):
            yield point
            step()
            spent = time.process_time() - start
            if done == 1:
                first = spent  # the first point also pays for imports and caches
                if len(points) > 2 and first > SWEEP_BUDGET / 2:
                    # No import takes that long: every point is heavy (1000 digits of tanh).
                    raise InputError(
                        f"the sweep over {', '.join('{' + name + '}' for name in swept)} has {len(points)} points "
                        f"and its first took {first:.1f} s of computing; a sweep may take at most "
                        f"{SWEEP_BUDGET:g} s: sweep fewer points (or ask fewer digits)", params=swept)
                continue
            per_point = (spent - first) / (done - 1)
            projected = spent + per_point * (len(points) - done)
            if done < len(points) and (spent > SWEEP_BUDGET or (done >= PROJECT_AFTER and projected > SWEEP_BUDGET)):
                raise InputError(
                    f"the sweep over {', '.join('{' + name + '}' for name in swept)} has {len(points)} points at about "
                    f"{per_point * 1000:.2g} ms each, about {projected:.0f} s of computing; a sweep may take "
                    f"at most {SWEEP_BUDGET:g} s: sweep fewer points (or split the range over several calls)",
                    params=swept,
                )


def execute(
    compute: Callable[..., Computation],
    options: Mapping[str, Any],
    numeric: Mapping[str, NumberRule],
    *,
    catalog: tuple[str, ...] = (),
    digits: str,
    fmt: str,
    json_flag: bool,
    derive: bool,
    expect: list[str] | None,
    rtol: str | None,
    atol: str | None = None,
    get: list[str] | None = None,
    plot: str | None = None,
    plot_y: list[str] | None = None,
    chart: str | None = None,
) -> int:
    """Everything after option parsing; returns the exit code."""
    from ..checks import apply_expectations, mismatch_line, needed_digits, parse_expect, parse_tolerance
    from ..render import emit, emit_values

    form = output_format(fmt, json_flag)
    if get and form not in ("table", "text"):
        raise InputError(f"{{get}} prints bare values; it cannot be combined with {{format}} {form}", param="get",
                         params=("format",))
    figures = None
    if plot or plot_y or chart:
        from .figures import figure_options

        figures = figure_options(plot, plot_y, chart, form, get)
    n = parse_integer(digits, "digits", 1, MAX_DIGITS)
    tolerance = parse_tolerance(rtol, atol)
    expectations = [parse_expect(text, tolerance) for text in expect or ()]
    # A failed --expect shows the found value two digits past VALUE's: compute that far.
    work = needed_digits(expectations, n)
    points, swept = sweep_points(options, numeric)
    if form == "table" and not get and len(points) > MAX_TABLE_ROWS:
        raise InputError(
            f"the sweep over {', '.join('{' + name + '}' for name in swept)} has {len(points)} points; a table "
            f"shows at most {MAX_TABLE_ROWS} rows: use {{format}} csv or json for more", params=(*swept, "format")
        )
    if form == "table" and not get and len(points) * n > MAX_TABLE_DIGITS:
        raise InputError(
            f"a table of {len(points)} rows at {{digits}} {n} is too large to lay out (rows times digits at most "
            f"{MAX_TABLE_DIGITS}): use {{format}} csv or json, or fewer digits", params=(*swept, "format", "digits")
        )
    if memory.capped():
        memory.report_flint_failures_later(form == "json")
    rows = []
    started = time.process_time()
    for point in _with_progress(points, swept):
        own = {name: value for name, value in point.items() if name not in catalog}
        if catalog:
            own["params"] = {name: point[name] for name in catalog}
        # A point of a sweep may only use what is left of the sweep's budget: a sweep of
        # 1000-digit points ends within SWEEP_BUDGET, refused by its work, not after minutes.
        left = SWEEP_BUDGET - (time.process_time() - started) if len(points) > 1 else None
        computation = _within_budget(compute, own, work, derive, sweep_left=left, swept=swept,
                                     count=len(points))
        if work != n:
            computation = replace(computation, digits=n)
        if expectations:
            computation = apply_expectations(computation, expectations, tolerance)
        rows.append(computation)
    result: Computation | Sweep = Sweep(rows[0].command, n, tuple(rows), swept) if swept else rows[0]
    if figures is not None:
        from .figures import draw_before_output

        draw_before_output(figures, result)
    if get:
        emit_values(result, get)
    else:
        emit(result, form)
    if figures is not None:
        from .figures import draw_after_output

        draw_after_output(figures, result, form)
    failed = [(row, check) for row in rows for check in row.checks if not check.ok]
    for row, check in failed:
        sys.stderr.write(mismatch_line(check, {name: row.inputs.get(name) for name in swept}) + "\n")
    return 1 if failed else 0


def _rules(parameters: list[inspect.Parameter]) -> dict[str, NumberRule]:
    """The numeric options of a signature, each with the rule its alias carries."""
    rules = {}
    for parameter in parameters:
        for info in getattr(parameter.annotation, "__metadata__", ()):
            if isinstance(info, NumberRule):
                rules[parameter.name] = info
    return rules


def _within_budget(compute: Callable[..., Computation], arguments: dict[str, Any], digits: int,
                   derive: bool, *, sweep_left: float | None = None, swept: tuple[str, ...] = (),
                   count: int = 1) -> Computation:
    """``compute(**arguments)`` within its CPU budget (cli.budget); past it, exit 3 at once.
    In a sweep, the point gets at most ``sweep_left`` seconds; past that, exit 2 (the sweep is
    too much work, whatever one point could do)."""
    from .budget import OverBudget, budget_seconds, cpu_budget

    seconds = budget_seconds(digits, derive)
    by_sweep = sweep_left is not None and sweep_left < seconds
    try:
        with cpu_budget(max(sweep_left, 0.05) if by_sweep else seconds):
            return compute(**arguments, digits=digits, derive=derive)
    except OverBudget:
        if by_sweep:
            raise InputError(
                f"the sweep over {', '.join('{' + name + '}' for name in swept)} has {count} points and used its "
                f"{SWEEP_BUDGET:g} s of computing before finishing (at {{digits}} {digits}): sweep fewer points "
                "or ask fewer digits", params=(*swept, "digits")) from None
        raise PrecisionError(
            f"the computation did not finish within its budget of {seconds:.0f} s of CPU time (at {{digits}} "
            f"{digits}{' with {derive}' if derive else ''}): these inputs need more working precision than "
            "that allows; try less extreme values", params=("digits", "derive") if derive else ("digits",)
        ) from None


def computing_command(
    app: typer.Typer, name: str, **command_kwargs: Any
) -> Callable[[Callable[..., Computation]], Callable[..., Computation]]:
    """Register the decorated function as command ``name`` on ``app`` (see the module
    docstring); the function itself is returned unchanged."""

    def register(function: Callable[..., Computation]) -> Callable[..., Computation]:
        signature = inspect.signature(function, eval_str=True)
        own = [p for name, p in signature.parameters.items() if name not in ("digits", "derive", "params")]
        kw = inspect.Parameter.KEYWORD_ONLY
        catalog = catalog_parameters() if "params" in signature.parameters else {}
        generated = [inspect.Parameter(option, kw, default=None, annotation=alias) for option, alias in catalog.items()]
        shared = [inspect.Parameter(option, kw, default=default, annotation=alias)
                  for option, (alias, default) in SHARED.items()]
        parameters = own + generated + shared
        numeric = _rules(own + generated)
        arguments = _arguments(own)

        def command(**kwargs: Any) -> None:
            common = {key: kwargs.pop(key) for key in SHARED}
            with errors_as(common["format"], common["json_"], arguments):
                code = execute(
                    function, kwargs, numeric, catalog=tuple(catalog), digits=common["digits"], fmt=common["format"],
                    json_flag=common["json_"], derive=common["derive"], expect=common["expect"], rtol=common["rtol"],
                    atol=common["atol"], get=common["get"], plot=common["plot"], plot_y=common["plot_y"],
                    chart=common["chart"],
                )
            if code:
                raise typer.Exit(code)

        command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        command.__doc__ = function.__doc__
        command.__name__ = function.__name__
        app.command(name, **command_kwargs)(command)
        return function

    return register
