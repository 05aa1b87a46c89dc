"""Sweeps in Python: a computation over a grid of its arguments, every point decided.

``momentcalc.sweep(function, grid, *, jobs=1, client=None)`` calls ``function`` (a computation:
``momentcalc.meanfield``, ``momentcalc.kernel``, ...) at every point of ``grid`` and returns a
``Sweep`` whose rows are, point by point in the grid's order, the ``Computation`` or a
``NoResult``: a decided outcome about the point (``kind`` "no_fixed_point", "explodes", ...,
from ``errors.Outcome``) or a refusal with its reason (``code`` 3: not proven; 2: the point is
bad input). The command line's sweeps make the same records (``momentcalc.cli.runner``).

``grid`` is a mapping of argument names to values; a list, tuple or range is swept (the
cartesian product, the last name varying fastest, as the command line's options), anything else
(a string, a number) is the same at every point::

    >>> from momentcalc import meanfield, sweep
    >>> rows = sweep(meanfield, {"activation": "relu", "sigma_w2": [1, 3], "sigma_b2": "0.1"})
    >>> [row.status for row in rows]
    ['ok', 'no_fixed_point']
    >>> rows.rows[0]["q_star"].decimal(6), rows.rows[1].message[:33]
    ('0.200000', 'the length map has no fixed point')

``jobs=N`` computes the points in N worker processes (started fresh, "spawn": the function must
be importable, as a module-level function is); ``client`` (a ``distributed.Client``) sends them
to a Dask cluster instead. Either way the records are those of ``jobs=1``: every point is
computed as a fresh process would compute it (``fresh_arb``).
"""

from __future__ import annotations

import itertools
import sys
import threading
from fractions import Fraction
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from .engine.numbers import as_number
from .errors import InputError, Outcome, PrecisionError
from .result import Computation, NoResult, Sweep, python_name, replace

# mpmath's and Arb's working precision are process-wide: points sent to one Dask worker's threads
# are computed one at a time.
ONE_AT_A_TIME = threading.Lock()


def fresh_arb() -> None:
    """Arb's global caches emptied, as in a fresh process: it keeps Gauss-Legendre nodes at the
    highest precision any integral asked and starts later integrals from them, so without this a
    sweep point's error bound (never its digits) depended on the points before it, and so on
    ``--jobs`` (``kernel max(x,0.5),erf --depth 3 --json``: erf's c_map_curvature_at_1). Only where
    flint is already imported: a call that needs no ball does not import it for this."""
    flint = sys.modules.get("flint")
    if flint is not None:
        flint.ctx.cleanup()


def decide(
    call: Callable[[dict[str, Any]], Computation],
    point: Mapping[str, Any],
    command: str,
    digits: int,
    *,
    name_of: Callable[[str], str] = python_name,
    input_errors: bool = True,
) -> Computation | NoResult:
    """``call(point)``, or the ``NoResult`` that says why the point has no results: an
    ``Outcome`` is decided, a ``PrecisionError`` a refusal (code 3), an ``InputError`` a refusal
    (code 2) — or, with ``input_errors=False`` (the command line: a bad argument ends the call),
    raised. Messages name arguments by ``name_of``."""
    try:
        return call(dict(point))
    except Outcome as error:
        return NoResult(
            command, dict(point), digits, error.render(name_of), kind=error.kind, layer=error.layer
        )
    except InputError as error:
        if not input_errors:
            raise
        return NoResult(command, dict(point), digits, error.render(name_of), code=2)
    except PrecisionError as error:
        return NoResult(command, dict(point), digits, error.render(name_of), code=3)


def with_inputs(rows: Sequence[Computation | NoResult], swept: Sequence[str]) -> tuple[Any, ...]:
    """The rows, each ``NoResult`` given the inputs its point would show: the keys (and order)
    of the first computed row, the point's own value where it has one, else that row's (an input
    nobody set is the same default at every point). Without a computed row, the point's values
    that are set."""
    template = next((row for row in rows if isinstance(row, Computation)), None)
    out = []
    for row in rows:
        if isinstance(row, NoResult):
            given: dict[str, Any] = {name: value for name, value in row.inputs.items() if value is not None}
            if template is not None:
                given = {
                    name: _like(given[name], template.inputs[name])
                    if name in given
                    else (None if name in swept else template.inputs[name])
                    for name in template.inputs
                }
            row = replace(row, inputs=given)
        out.append(row)
    return tuple(out)


def _like(value: Any, shown: Any) -> Any:
    """A point's value as a computed row shows that input: a number as the exact Fraction the
    computation reads (0.1 is 1/10), anything else as given."""
    if isinstance(shown, Fraction) and not isinstance(value, (Fraction, bool)):
        try:
            return as_number(value, "value")
        except InputError:
            return value
    return value


def _call(function: Callable[..., Computation], point: dict[str, Any]) -> Computation:
    fresh_arb()
    return function(**point)


def _decided(function: Callable[..., Computation], command: str, digits: int, point: dict[str, Any]) -> Any:
    with ONE_AT_A_TIME:
        return decide(partial(_call, function), point, command, digits)


def grid_points(grid: Mapping[str, Any]) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """The points of ``grid`` (lists, tuples and ranges swept, in a cartesian product) and the
    swept names."""
    if not isinstance(grid, Mapping):
        raise InputError(
            "{grid} must be a mapping of argument names to values or lists of values", param="grid"
        )
    axes = {
        name: list(values) if isinstance(values, (list, tuple, range)) else [values]
        for name, values in grid.items()
    }
    swept = tuple(name for name, values in grid.items() if isinstance(values, (list, tuple, range)))
    for name in swept:
        if not axes[name]:
            raise InputError(f"{{grid}}[{name!r}] is an empty list: nothing to sweep", param="grid")
    names = list(axes)
    return [dict(zip(names, combo)) for combo in itertools.product(*axes.values())], swept


def sweep(
    function: Callable[..., Computation], grid: Mapping[str, Any], *, jobs: int = 1, client: Any = None
) -> Sweep:
    """``function`` at every point of ``grid``: a ``Sweep`` of one record per point, in the
    grid's order (see the module's docstring); ``jobs`` worker processes or a Dask ``client``
    give the same records as one process."""
    if not callable(function):
        raise InputError(
            param="function", allowed="a computation such as momentcalc.meanfield", got=repr(function)
        )
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InputError(
            param="jobs", allowed="a whole number of worker processes, at least 1", got=repr(jobs)
        )
    points, swept = grid_points(grid)
    command = getattr(function, "__name__", "sweep")
    digits = _digits(function, grid)
    task = partial(_decided, function, command, digits)
    if client is not None:
        rows: list[Any] = on_dask(client, task, points)
    elif jobs > 1 and len(points) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(jobs, len(points)), mp_context=context) as pool:
            rows = list(pool.map(task, points, chunksize=max(1, len(points) // (8 * jobs))))
    else:
        rows = [task(point) for point in points]
    return Sweep(command, digits, with_inputs(rows, swept), swept)


def _digits(function: Callable[..., Computation], grid: Mapping[str, Any]) -> int:
    digits = grid.get("digits")
    if isinstance(digits, int) and not isinstance(digits, bool):
        return digits
    import inspect

    try:
        default = inspect.signature(function).parameters["digits"].default
    except (KeyError, TypeError, ValueError):
        return 15
    return default if isinstance(default, int) else 15


def on_dask(
    client: Any,
    task: Callable[[Any], Any],
    items: Iterable[Any],
    done: Callable[[int], None] | None = None,
) -> list[Any]:
    """``task`` at every item on a ``distributed.Client``'s cluster, the results in the items'
    order (``done(count)`` after each one that comes back); what a task raises is raised here."""
    from distributed import as_completed

    futures = client.map(task, list(items), pure=False)
    finished = 0
    try:
        for _ in as_completed(futures, loop=client.loop):
            finished += 1
            if done is not None:
                done(finished)
        return client.gather(futures)
    finally:
        for future in futures:
            future.release()


__all__ = ["ONE_AT_A_TIME", "decide", "fresh_arb", "grid_points", "on_dask", "sweep", "with_inputs"]
