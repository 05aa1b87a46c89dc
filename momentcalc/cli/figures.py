"""``--plot FILE``, ``--plot-y NAME`` and ``--chart NAME``: what is checked before computing
(the file's suffix, that matplotlib is installed, that the output form can hold a chart) and
after it, before anything is printed (the names, the shape of the result); then drawing.

matplotlib is the optional extra ``momentcalc[plot]``: it is imported only when ``--plot``
draws, never on a default call.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..result import Computation, Sweep
from ..render import emit_chart

INSTALL = "pip install 'momentcalc[plot]'"


@dataclass(frozen=True)
class Figures:
    plot: str | None = None
    plot_y: tuple[str, ...] = ()
    chart: str | None = None

    @property
    def wanted(self) -> bool:
        return bool(self.plot or self.chart)


def figure_options(
    plot: str | None, plot_y: list[str] | None, chart: str | None, form: str, get: list[str] | None
) -> Figures:
    """The figure options, checked before any work is done."""
    if plot_y and not plot:
        raise InputError(
            "{plot_y} chooses what --plot draws: give {plot} FILE too", param="plot_y", params=("plot",)
        )
    if plot is not None:
        from ..render.figure import SUFFIXES

        if not plot.lower().endswith(SUFFIXES):
            raise InputError(
                param="plot", allowed=f"a file name ending in {', '.join(SUFFIXES)}", got=repr(plot)
            )
        check_matplotlib()
    if chart is not None and (get or form not in ("table", "text")):
        shown = "--get" if get else f"--format {form}"
        raise InputError(
            f"{{chart}} draws under the table; it cannot be combined with {shown}", param="chart"
        )
    return Figures(plot, tuple(plot_y or ()), chart)


def check_matplotlib() -> None:
    """Import what drawing needs, before any work: a matplotlib that is missing, or whose import
    fails (a shared library it needs is missing), is exit 2 saying what to install."""

    if importlib.util.find_spec("matplotlib") is None:
        raise InputError(f"{{plot}} needs matplotlib, which is not installed: {INSTALL}", param="plot")
    try:
        import matplotlib.figure  # noqa: F401
    except Exception as error:  # a broken install raises what its failing part raises (OSError, RuntimeError)
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(
            f"{{plot}} needs matplotlib, which is installed but cannot be imported ({reason}): "
            f"reinstall it with {INSTALL} --force-reinstall",
            param="plot",
        ) from None


def _first(result: Computation | Sweep) -> Computation:
    """The computation whose result names a figure draws: the first point with results (a sweep
    whose points all lack them has none: nothing to draw)."""
    if not isinstance(result, Sweep):
        return result
    for row in result.rows:
        if isinstance(row, Computation):
            return row
    raise InputError(
        "{plot} has nothing to draw: no point of this sweep has results (see the table's notes)",
        param="plot",
    )


def _names(result: Computation | Sweep) -> tuple[str, ...]:
    return _first(result).names


def _unknown(option: str, name: str, result: Computation | Sweep) -> Exception:
    return _first(result).not_here(option, name)


def plotted_names(figures: Figures, result: Computation | Sweep) -> tuple[str, ...]:
    """What --plot draws on y, checked against the result's shape (before anything is printed)."""
    first = _first(result)
    lists = [q.name for q in first.results if q.is_list]
    scalars = [q.name for q in first.results if not q.is_list]
    for name in figures.plot_y:
        if name not in first.names:
            raise _unknown("plot_y", name, result)
    if not isinstance(result, Sweep) and not lists:
        raise InputError(
            "{plot} draws a sweep (give an option a comma list or a range, e.g. --std 0.01:0.1:0.01) "
            "or a list-valued result; this call computes one point",
            param="plot",
        )
    names = figures.plot_y or ((lists[0],) if not isinstance(result, Sweep) else (scalars or lists)[:1])
    kinds = {first[name].is_list for name in names}
    if len(kinds) > 1:
        raise InputError(
            "{plot_y} mixes a list-valued result with single values; plot them separately", param="plot_y"
        )
    if not isinstance(result, Sweep) and not first[names[0]].is_list:
        raise InputError(
            f"{{plot_y}} {names[0]} is one number here; plot a list-valued result ({', '.join(lists)}) "
            "or sweep an option",
            param="plot_y",
        )
    if isinstance(result, Sweep) and not first[names[0]].is_list:
        from ..render.figure import swept_axes

        numeric, _categorical = swept_axes(result)
        if len(numeric) > 2:
            raise InputError(
                "{plot} draws a sweep over one numeric option (lines) or two (a heat map), with a line "
                f"or a panel per activation; this one sweeps {len(numeric)} numeric options",
                param="plot",
            )
        if len(numeric) == 2 and len(names) > 1:
            raise InputError(
                "{plot_y} a sweep over two options is drawn as a heat map of one result: give one --plot-y",
                param="plot_y",
            )
    return names


def check_chart(figures: Figures, result: Computation | Sweep) -> None:
    if figures.chart is None:
        return
    if not isinstance(result, Sweep):
        raise InputError(
            "{chart} draws a sweep's result (list-valued results are drawn in the table already)",
            param="chart",
        )
    first = _first(result)
    if figures.chart not in first.names:
        raise _unknown("chart", figures.chart, result)
    if first[figures.chart].is_list:
        raise InputError(
            f"{{chart}} {figures.chart} is a list of values; chart a single-valued result", param="chart"
        )


def draw_before_output(figures: Figures, result: Computation | Sweep) -> None:
    """Check every name, then write the --plot file: all before stdout gets a byte, so that an
    error leaves nothing half-printed."""
    check_chart(figures, result)
    if figures.plot is None:
        return
    names = plotted_names(figures, result)
    from ..render.figure import build_figure, save_figure

    figure = build_figure(result, names)
    try:
        save_figure(figure, figures.plot)
    except OSError as error:
        raise InputError(
            f"{{plot}} cannot write {figures.plot!r}: {error.strerror or error}", param="plot"
        ) from None


def draw_after_output(figures: Figures, result: Any, form: str) -> None:
    """--chart, under the table."""
    if figures.chart is not None:
        emit_chart(result, figures.chart, form)
