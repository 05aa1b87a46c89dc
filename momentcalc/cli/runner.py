"""Run one computing command: parse options, sweep, check expectations, render, exit code.

A command is a plain function: its own options (``Annotated`` aliases from ``options``, whose
``NumberRule`` says how each number is read), then keyword-only ``digits`` and ``derive`` (and
``params`` if it takes an activation); it calls the library and returns the ``Computation``.
``computing_command`` registers it with the shared options (--digits, --format/--json,
--derive, --expect, --rtol, --atol, --get, --budget, --jobs) and, for ``params``, one option per catalog
parameter; the runner calls the function once per sweep point with exact numbers.
"""

from __future__ import annotations

import inspect
import itertools
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from typing import Any

import typer

from ..engine.numbers import parse_integer
from ..engine.precision import MAX_DIGITS
from ..errors import InputError, MomentcalcError, PrecisionError
from ..progress import Spinner, set_reporter
from ..render import FORMATS, OutputClosed
from ..result import Computation, NoResult, Sweep, replace
from . import child
from .options import SHARED, NumberRule, catalog_parameters
from .sweep import MAX_SWEEP_POINTS, is_sweep_syntax, is_text_sweep, parse_texts, parse_values
from .options import shown_form
from ..render import emit, emit_values

# --jobs at most (0 is one per core).
MAX_JOBS = 256
# A rich table takes about half a millisecond a row: longer sweeps are for CSV and JSON.
MAX_TABLE_ROWS = 2000
# ... and about a microsecond a printed digit: 1000 rows at --digits 1000 took 10 s to lay out.
MAX_TABLE_DIGITS = 100_000


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def cli_name(arguments: Mapping[str, str], name: str) -> str:
    """How the command line names parameter ``name``: a positional argument by its metavar
    (``arguments``), anything else as its option (``--std``)."""
    return arguments.get(name) or flag(name)


def _arguments(parameters: list[inspect.Parameter]) -> dict[str, str]:
    """Positional arguments by their metavar (activation -> ACTIVATION): how errors name them."""
    names = {}
    for parameter in parameters:
        for info in getattr(parameter.annotation, "__metadata__", ()):
            if isinstance(info, typer.models.ArgumentInfo):
                names[parameter.name] = info.metavar or parameter.name.upper()
    return names


def output_format(fmt: str | None, json_flag: bool) -> str:
    """The output form: ``--json`` is short for ``--format json``, so it cannot excuse a bad
    ``--format`` nor overrule ``--format csv`` (the default, ``None``: a table, gives way to it)."""
    if fmt is not None and fmt not in FORMATS:
        error = InputError(param="format", allowed=f"one of {', '.join(FORMATS)}", got=repr(fmt))
    elif json_flag and fmt == "csv":
        error = InputError(
            "{format} csv contradicts --json (short for --format json): give one of them", param="format"
        )
    else:
        return "json" if json_flag else shown_form(fmt)
    error.json_output = json_flag
    raise error


@contextmanager
def errors_as(fmt: str | None, json_flag: bool, arguments: Mapping[str, str] | None = None) -> Iterator[None]:
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


@contextmanager
def long_integers() -> Iterator[None]:
    """Python's limit on int <-> decimal text conversion (4300 digits, against quadratic work on
    untrusted text) lifted for one call: momentcalc's inputs are bounded (2000 digits, exponents
    within 100000) and its work by the CPU limit, and an exact value such as 10^-5000 (sympy's
    Rational under --derive, a Decimal of a 1e1000 ball) is written with more digits than that."""
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(previous)


def sweep_points(
    options: Mapping[str, Any], numeric: Mapping[str, NumberRule]
) -> tuple[_Points, tuple[str, ...]]:
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
        name
        for name, values in axes.items()
        if len(values) > 1
        or (
            name in numeric
            and options[name] is not None
            and (is_text_sweep if numeric[name].text else is_sweep_syntax)(str(options[name]))
        )
    )
    total = 1
    for values in axes.values():
        total *= len(values)
    if total > MAX_SWEEP_POINTS:
        raise InputError(
            f"the sweep over {', '.join('{' + name + '}' for name in swept)} has {total} points; "
            f"at most {MAX_SWEEP_POINTS} are allowed",
            params=swept,
        )
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


def execute(
    compute: Callable[..., Computation],
    options: Mapping[str, Any],
    numeric: Mapping[str, NumberRule],
    *,
    catalog: tuple[str, ...] = (),
    digits: str,
    fmt: str | None,
    json_flag: bool,
    derive: bool,
    expect: list[str] | None,
    rtol: str | None,
    atol: str | None = None,
    get: list[str] | None = None,
    plot: str | None = None,
    plot_y: list[str] | None = None,
    chart: str | None = None,
    quiet: bool = False,
    budget: str | None = None,
    jobs: str | None = None,
    dask: str | None = None,
    arguments: Mapping[str, str] | None = None,
    command: str | None = None,
) -> int:
    """Everything after option parsing; returns the exit code.

    What the command line asks is checked here, in the process that parsed it (cheap and
    deterministic: a sweep too large for the budget is refused before anything is computed);
    the computation and the writing of its output then run in a child process under the
    operating system's limits when ``child.ENABLED`` (the console script), else right here."""
    from .budget import call_seconds, check_sweep, default_seconds, layers_of, parse_budget

    form = output_format(fmt, json_flag)
    if get and form not in ("table", "text"):
        raise InputError(
            f"{{get}} prints bare values; it cannot be combined with {{format}} {form}",
            param="get",
            params=("format",),
        )
    if quiet and (get or chart is not None):
        raise InputError(
            f"{{quiet}} prints nothing on stdout; it cannot be combined with {{{'get' if get else 'chart'}}}",
            param="quiet",
            params=("get",) if get else ("chart",),
        )
    figures = None
    if plot is not None or plot_y or chart is not None:
        from .figures import figure_options

        figures = figure_options(plot, plot_y, chart, form, get)
    n = parse_integer(digits, "digits", 1, MAX_DIGITS)
    tolerance, expectations, work = None, [], n
    if expect or rtol is not None or atol is not None:  # (cli.expect is imported only then)
        from .expect import needed_digits, parse_expect, parse_tolerance

        tolerance = parse_tolerance(rtol, atol)
        expectations = [parse_expect(text, tolerance) for text in expect or ()]
        # A failed --expect shows the found value two digits past VALUE's: compute that far.
        work = needed_digits(expectations, n)
    chosen = parse_budget(budget)
    workers = parse_jobs(jobs)
    address = parse_dask(dask, jobs)
    points, swept = sweep_points(options, numeric)
    if form == "table" and not get and not quiet and len(points) > MAX_TABLE_ROWS:
        raise InputError(
            f"the sweep over {', '.join('{' + name + '}' for name in swept)} has {len(points)} points; a table "
            f"shows at most {MAX_TABLE_ROWS} rows: use {{format}} csv or json for more",
            params=(*swept, "format"),
        )
    if form == "table" and not get and not quiet and len(points) * n > MAX_TABLE_DIGITS:
        raise InputError(
            f"a table of {len(points)} rows at {{digits}} {n} is too large to lay out (rows times digits at most "
            f"{MAX_TABLE_DIGITS}): use {{format}} csv or json, or fewer digits",
            params=(*swept, "format", "digits"),
        )
    layers = layers_of(points) if "depth" in options else 0
    seconds = call_seconds(work, derive, len(points), chosen, layers)
    check_sweep(len(points), work, derive, seconds, swept, chosen is not None, command)
    from . import memory

    ceiling = memory.ceiling_bytes()  # MOMENTCALC_MAX_MEMORY is checked on every call
    task = PointTask(
        compute,
        catalog,
        n,
        work,
        derive,
        expectations,
        tolerance,
        partial(cli_name, dict(arguments or {})),
        command,
        sweep=bool(swept),
        many=len(points) > 1,
    )
    plan = _Plan(task, points, swept, form, get, figures, address, quiet, seconds, chosen is not None)
    if not child.ENABLED:
        return plan.run(1)
    # Each point of a sweep may take what one computation may (or --budget), all of them
    # together the sweep's budget.
    point_seconds = chosen if chosen is not None else default_seconds(work, derive, layers)
    # One deep trajectory reports its layers (``progress.report``), a sweep its points.
    deep = bool(layers) and not swept
    spinner = Spinner(unit="layer" if deep else "point")

    def compute() -> Any:
        if deep:
            set_reporter(child.report_progress)
        return plan.run(workers, seconds, ceiling, point_seconds)

    try:
        code, out, err = child.run(
            compute,
            cpu_seconds=seconds,
            memory_bytes=ceiling,
            waiting=spinner,
            progress=bool(swept) or deep,
        )
    except child.LimitHit as hit:
        raise _limit_error(
            hit, seconds, chosen is not None, ceiling, n, derive, swept, "layers" if deep else "points"
        ) from None
    finally:
        spinner.clear()
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        raise OutputClosed from None
    if err:
        sys.stderr.write(err)
    return code


def parse_dask(address: str | None, jobs: str | None) -> str | None:
    """``--dask ADDRESS``: a Dask scheduler's address, and dask.distributed installed (the
    optional extra ``momentcalc[dask]``, imported only for the sweep itself)."""
    if address is None:
        return None
    if jobs is not None:
        raise InputError(
            "{dask} sends the points to a cluster's workers; it cannot be combined with {jobs}",
            param="dask",
            params=("jobs",),
        )
    if not address.strip():
        raise InputError(
            param="dask", allowed="the address of a Dask scheduler, e.g. tcp://127.0.0.1:8786", got="''"
        )
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        raise InputError(
            "{dask} needs dask.distributed, which is not installed: pip install 'momentcalc[dask]'",
            param="dask",
        )
    return address.strip()


def parse_jobs(text: str | None) -> int:
    """``--jobs N``: child processes for a sweep's points (0 = one per core)."""
    if text is None:
        return 1
    count = parse_integer(text, "jobs", 0, MAX_JOBS)
    return count or (os.cpu_count() or 1)


def message_name(arguments: Mapping[str, str], name: str) -> str:
    """How a point's message names ``name``: as ``cli_name``, and a listing by its command
    (``'momentcalc activations'``), as the error path does (``group.cli_message``)."""
    from .group import LISTINGS

    return LISTINGS.get(name) or cli_name(arguments, name)


class PointTask:
    """How one point of this call is computed: the command's function at the point's exact
    inputs, named as the command line names things, with the ``--expect`` checks. Picklable
    (a Dask worker computes points with it)."""

    def __init__(
        self,
        compute: Callable[..., Computation],
        catalog: tuple[str, ...],
        digits: int,
        work: int,
        derive: bool,
        expectations: list,
        tolerance: Any,
        name_of: Callable[[str], str],
        command: str | None,
        sweep: bool,
        many: bool,
    ) -> None:
        self.compute, self.catalog, self.digits, self.work, self.derive = (
            compute,
            catalog,
            digits,
            work,
            derive,
        )
        self.expectations, self.tolerance, self.name_of, self.command = (
            expectations,
            tolerance,
            name_of,
            command,
        )
        self.sweep, self.many = sweep, many
        # How a point's message names the arguments: as the error path does.
        arguments = name_of.args[0] if isinstance(name_of, partial) and name_of.args else {}
        self.message_of = partial(message_name, arguments)

    def row(self, point: dict[str, Any]) -> Computation:
        if self.many:
            from ..sweeps import fresh_arb

            fresh_arb()  # every point of a sweep as its own process would compute it
        own = {name: value for name, value in point.items() if name not in self.catalog}
        if self.catalog:
            own["params"] = {name: point[name] for name in self.catalog}
        # The command's name, and descriptions and notes naming arguments as the command line does (--std).
        computation = self.compute(**own, digits=self.work, derive=self.derive).named(
            self.name_of, self.command
        )
        if self.work != self.digits:
            computation = replace(computation, digits=self.digits)
        if self.expectations:
            from .expect import apply_expectations

            computation = apply_expectations(computation, self.expectations, self.tolerance)
        return computation

    def __call__(self, point: dict[str, Any]) -> Computation | NoResult:
        """A sweep's point: its row, or why it has none (``sweeps.decide``); a bad argument
        (an InputError that is no ``Outcome``) ends the whole call, exit 2. One point alone:
        its row, its errors the call's, as always."""
        if not self.sweep:
            return self.row(point)
        from ..sweeps import ONE_AT_A_TIME, decide

        with ONE_AT_A_TIME:  # (a Dask worker's threads: mpmath's precision is process-wide)
            return decide(
                self.row, point, self.command or "", self.digits, name_of=self.message_of, input_errors=False
            )


class _Plan:
    """A checked call: computes every point, checks expectations, writes the output; run in
    the child (or in-process).

    A sweep whose points together use its CPU budget (``budget`` seconds, ``chosen`` by --budget
    or not) stops there and still writes every point it computed: each point not computed is
    refused in its row ("not computed: ..."), and one stderr line says after how many points the
    budget ran out and what ``--budget`` their pace asks for (exit 3). The worker processes'
    CPU time is counted (``pool.run_points``), in-process this process's own (``_cpu_clock``):
    the points computed are the first ones, those the workers had finished (with --jobs N a few
    later ones may be done and some earlier one not: which depends on timing)."""

    def __init__(
        self,
        task: PointTask,
        points: _Points,
        swept: tuple[str, ...],
        form: str,
        get: list[str] | None,
        figures: Any = None,
        dask: str | None = None,
        quiet: bool = False,
        budget: float | None = None,
        chosen: bool = False,
    ) -> None:
        self.task, self.points, self.swept, self.form, self.get = task, points, swept, form, get
        self.figures, self.dask, self.quiet = figures, dask, quiet
        self.budget, self.chosen = budget, chosen
        # Set once the sweep's budget ran out: (points finished, points in all).
        self.stopped: tuple[int, int] | None = None

    def rows(
        self, workers: int, seconds: float | None, ceiling: int | None, point_seconds: float | None
    ) -> list[Computation | NoResult]:
        if not self.swept:
            return [self.task(point) for point in self.points]
        points = list(self.points)
        count = len(points)

        def done(finished: int) -> None:
            child.report_progress(finished, count)

        if self.dask is not None:
            return self.on_dask(points, done)
        if seconds is None:  # in-process (the library's tests): no limits, no workers
            rows: list[Computation | NoResult] = []
            start = _cpu_clock()
            for point in points:
                if self.budget is not None and _cpu_clock() - start > self.budget:
                    progress = f"{len(rows)} of {count}"
                    rows += [
                        self.lost(points, None, None, i, "budget", progress) for i in range(len(rows), count)
                    ]
                    break
                rows.append(self.task(point))
                done(len(rows))
            return rows
        from .pool import run_points

        return run_points(
            lambda index: self.task(points[index]),
            count,
            workers=workers,
            point_seconds=point_seconds,
            total_seconds=seconds,
            memory_bytes=ceiling,
            lost=partial(self.lost, points, point_seconds, ceiling),
            done=done,
        )

    def lost(
        self,
        points: list[dict[str, Any]],
        point_seconds: float | None,
        ceiling: int | None,
        index: int,
        kind: str,
        detail: str,
    ) -> NoResult:
        """The refusal of a point whose worker ended during it: its CPU limit, its memory
        limit, a crash."""
        from .memory import ENVIRONMENT, limit_text

        if kind == "budget":
            finished, _, count = detail.partition(" of ")
            self.stopped = (int(finished), int(count))
            seconds = self.budget or 0.0
            message = (
                f"{NOT_COMPUTED}the sweep used its CPU budget of {seconds:.3g} s after {detail} points; raise "
                f"--budget (e.g. --budget {math.ceil(suggested_budget(seconds, self.chosen, *self.stopped))})"
            )
        elif kind == "cpu":
            limit = point_seconds or 0.0
            message = (
                f"this point used its CPU time limit of {limit:.3g} s without finishing: ask fewer digits or less "
                f"extreme values, or raise --budget (e.g. --budget {max(2 * limit, 60.0):.0f})"
            )
        elif kind == "memory":
            message = (
                f"this point needed more than {limit_text(ceiling)}, its memory limit: ask fewer digits or less "
                f"extreme values, or raise {ENVIRONMENT} (e.g. {ENVIRONMENT}=8G)"
            )
        else:
            message = f"the computation ended abnormally ({detail})"
        return NoResult(self.task.command or "", points[index], self.task.digits, message, code=3)

    def on_dask(self, points: list[dict[str, Any]], done: Callable[[int], None]) -> list[Any]:
        """The points on the Dask cluster at ``--dask``: the records ``--jobs 1`` gives."""
        from distributed import Client

        from ..sweeps import on_dask

        try:
            client = Client(self.dask, timeout="10s", set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise InputError(
                f"{{dask}} could not reach a Dask scheduler at {self.dask!r}: {error}", param="dask"
            ) from None
        try:
            return on_dask(client, self.task, points, done)
        finally:
            client.close()

    def run(
        self,
        workers: int,
        seconds: float | None = None,
        ceiling: int | None = None,
        point_seconds: float | None = None,
    ) -> int:

        rows = self.rows(workers, seconds, ceiling, point_seconds)
        n, swept = self.task.digits, self.swept
        if swept:
            from ..sweeps import with_inputs
        result: Computation | Sweep = (
            Sweep(self.task.command or rows[0].command, n, with_inputs(rows, swept), swept)
            if swept
            else rows[0]
        )
        if self.figures is not None:
            from .figures import draw_before_output

            draw_before_output(self.figures, result)
        if self.quiet:
            pass
        elif self.get:
            emit_values(result, self.get)
        else:
            emit(result, self.form)
        if self.figures is not None and not self.quiet:
            from .figures import draw_after_output

            draw_after_output(self.figures, result, self.form)
        failed = [(row, check) for row in rows for check in row.checks if not check.ok]
        if failed:
            from .expect import mismatch_line
        for row, check in failed:
            sys.stderr.write(mismatch_line(check, {name: row.inputs.get(name) for name in swept}) + "\n")
        refused = result.refused if isinstance(result, Sweep) else ()
        for row in refused:
            if not row.message.startswith(NOT_COMPUTED):
                sys.stderr.write(refusal_line(row, swept) + "\n")
        if self.stopped is not None:  # the points not computed: one line for all
            finished, count = self.stopped
            error = _limit_error(
                child.LimitHit("cpu", f"{finished} of {count}"),
                self.budget or 0.0,
                self.chosen,
                None,
                n,
                self.task.derive,
                swept,
                unfinished=count - finished,
            )
            sys.stderr.write(f"momentcalc: {error.render(self.task.message_of)}\n")
        return 3 if refused else 1 if failed else 0


# How the row of a point that a sweep's spent budget left out begins.
NOT_COMPUTED = "not computed: "


def _cpu_clock() -> float:
    """This process's CPU seconds (the in-process sweep's budget)."""

    return time.process_time()


def suggested_budget(seconds: float, chosen: bool, finished: int, count: int) -> float:
    """The ``--budget`` to advise once ``seconds`` ran out after ``finished`` of ``count`` points
    (or layers): their pace with half again to spare (later layers are slower, and a loaded
    machine's CPU seconds buy less), for a chosen budget too, else at least a minute; without a
    pace, four times a chosen budget, twice the default (at least a minute)."""
    if finished <= 0 or count <= 0:
        return 4 * seconds if chosen else max(2 * seconds, 60.0)
    pace = 1.5 * seconds * count / finished
    return pace if chosen else max(pace, 60.0)


def refusal_line(row: NoResult, swept: tuple[str, ...]) -> str:
    """The stderr line of a refused sweep point: where, and why."""
    from ..render.cells import input_text

    where = ", ".join(f"{name}={input_text(row.inputs.get(name))}" for name in swept)
    return f"momentcalc: refused at {where}: {row.message}"


def _limit_error(
    hit: child.LimitHit,
    seconds: float,
    chosen: bool,
    ceiling: int | None,
    digits: int,
    derive: bool,
    swept: tuple[str, ...],
    unit: str = "points",
    unfinished: int | None = None,
) -> PrecisionError:
    """Exit 3 naming the limit, what made the call expensive, and what to change (a sweep that
    ran out: after how many points, a deep trajectory after how many layers, and the budget
    their pace asks for); with ``unfinished``, the line of a sweep that stopped there and
    printed the points it computed, those ``unfinished`` points refused in their rows."""
    from .memory import ENVIRONMENT, limit_text

    causes = [f"{{{name}}}" for name in swept]
    if swept:
        causes[-1] += " sweep"
    if digits > 15:
        causes.append(f"{{digits}} {digits}")
    if derive:
        causes.append("{derive}")
    at = f" (with {', '.join(causes)})" if causes else ""
    params = (*swept, "digits", "derive", "budget")
    if hit.kind == "memory":
        return PrecisionError(
            f"the computation needed more than {limit_text(ceiling)}{at}, its memory limit: ask fewer digits or "
            f"less extreme values, or raise {ENVIRONMENT} (e.g. {ENVIRONMENT}=8G)",
            params=params,
        )
    suggestion = suggested_budget(seconds, chosen, 0, 0)
    progress = ""
    finished, _, count = hit.detail.partition(" of ")
    if finished.isdigit() and count.isdigit() and int(count):
        progress = f" after {finished} of {count} {unit}"
        suggestion = suggested_budget(seconds, chosen, int(finished), int(count))
    ending = " without finishing:"
    if unfinished is not None:
        ending = f": the other {unfinished} {'is' if unfinished == 1 else 'are'} not computed (refused in their rows);"
    return PrecisionError(
        f"the computation used its CPU time limit of {seconds:.3g} s{at}{progress}{ending} "
        f"{'sweep fewer points, ' if swept else ''}ask fewer digits or less extreme values, or raise {{budget}} "
        f"(e.g. {{budget}} {math.ceil(suggestion)})",
        params=params,
    )


def _rules(parameters: list[inspect.Parameter]) -> dict[str, NumberRule]:
    """The numeric options of a signature, each with the rule its alias carries."""
    rules = {}
    for parameter in parameters:
        for info in getattr(parameter.annotation, "__metadata__", ()):
            if isinstance(info, NumberRule):
                rules[parameter.name] = info
    return rules


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
        generated = [
            inspect.Parameter(option, kw, default=None, annotation=alias) for option, alias in catalog.items()
        ]
        shared = [
            inspect.Parameter(option, kw, default=default, annotation=alias)
            for option, (alias, default) in SHARED.items()
        ]
        parameters = own + generated + shared
        numeric = _rules(own + generated)
        arguments = _arguments(own)

        def command(**kwargs: Any) -> None:
            common = {key: kwargs.pop(key) for key in SHARED}
            with errors_as(common["format"], common["json_"], arguments), long_integers():
                code = execute(
                    function,
                    kwargs,
                    numeric,
                    catalog=tuple(catalog),
                    digits=common["digits"],
                    fmt=common["format"],
                    json_flag=common["json_"],
                    derive=common["derive"],
                    expect=common["expect"],
                    rtol=common["rtol"],
                    atol=common["atol"],
                    get=common["get"],
                    plot=common["plot"],
                    plot_y=common["plot_y"],
                    chart=common["chart"],
                    quiet=common["quiet"],
                    budget=common["budget"],
                    jobs=common["jobs"],
                    dask=common["dask"],
                    arguments=arguments,
                    command=name,
                )
            if code:
                raise typer.Exit(code)

        command.__signature__ = inspect.Signature(parameters)
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        command.__doc__ = function.__doc__
        command.__name__ = function.__name__
        command.__module__ = function.__module__  # the module that registers it (cli.commands.table)
        app.command(name, **command_kwargs)(command)
        return function

    return register
