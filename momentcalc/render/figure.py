"""``--plot FILE``: a figure of a sweep or of a list-valued result, drawn with matplotlib (the
optional extra ``momentcalc[plot]``; imported only here, only when a figure is asked for).

- a sweep over one option: that option on x, each ``--plot-y`` result a line on y (a swept
  activation gives one labelled position per name);
- a sweep over two options: a heat map of the one ``--plot-y`` result over the grid, the first
  swept option on x, the second on y; where a result has a critical level (``CRITICAL_LEVELS``:
  meanfield's chi1 = 1, the edge of chaos) that level is drawn as a contour — with ``meanfield
  --sigma-w2 … --sigma-b2 …`` this is the order-to-chaos phase diagram of Schoenholz et al.,
  2017, Deep information propagation (their Fig. 1);
- a list-valued result (postnorm-decay's branch_weights): its entries against their index,
  one line per sweep point.

An axis is logarithmic when its values are all positive and span at least LOG_SPAN (two
decades). Infinite values (a depth scale at criticality) are left out of the drawing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..result import Computation, NoResult, Sweep
from .cells import INPUT_PREFIX, input_text, inputs_line

SUFFIXES = (".png", ".svg", ".pdf")
LOG_SPAN = 100
# (command, result) -> (level, label): a level with a meaning, drawn as a contour on heat maps.
CRITICAL_LEVELS = {
    ("meanfield", "chi1"): (1.0, "chi1 = 1: the edge of chaos (Schoenholz et al., 2017)"),
}
MARKERS_UP_TO = 40
CATEGORY_MARKERS = "osD^v<>p*"
PANEL_COLUMNS = 3


def _float(value: Any) -> float:
    number = float(value)
    return number if math.isfinite(number) else math.nan


def _value(row: Computation | NoResult, name: str) -> float:
    """A point's result as a double, nan where the point has none."""
    return math.nan if isinstance(row, NoResult) else _float(row[name].value)


def _spans_decades(values: Sequence[float]) -> bool:
    finite = [v for v in values if not math.isnan(v)]
    return bool(finite) and min(finite) > 0 and max(finite) / min(finite) >= LOG_SPAN


def _numeric(values: Sequence[Any]) -> bool:
    return all(not isinstance(v, (str, bool)) and v is not None for v in values)


def _title(result: Computation | Sweep) -> str:
    if isinstance(result, Sweep):
        fixed = inputs_line(result.rows[0].inputs, skip=result.swept)
        return f"{result.command}  {fixed}".strip()
    return f"{result.command}  {inputs_line(result.inputs)}"


def swept_axes(result: Sweep) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The swept options split into numeric ones (axes) and categorical ones (an activation's
    name: one line, or one panel, per category)."""
    numeric = tuple(o for o in result.swept if _numeric([row.inputs[o] for row in result.rows]))
    return numeric, tuple(o for o in result.swept if o not in numeric)


def _categories(result: Sweep, categorical: Sequence[str]) -> dict[tuple[Any, ...], list[Any]]:
    """The sweep's rows grouped by their categorical inputs, in the order they first appear."""
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for row in result.rows:
        groups.setdefault(tuple(row.inputs[o] for o in categorical), []).append(row)
    return groups


def _category_label(key: tuple[Any, ...]) -> str:
    return "  ".join(input_text(v) for v in key)


def _series_label(key: tuple[Any, ...], name: str, names: Sequence[str]) -> str:
    parts = [_category_label(key)] if key else []
    if len(names) > 1 or not key:
        parts.append(name)
    return ": ".join(parts)


def _lines(ax: Any, result: Sweep, names: Sequence[str]) -> None:
    """A sweep over one numeric option: that option on x, a line per result and category on y;
    over categories only: the first categorical option's values as positions on x, each value
    a point (no line joins two categories)."""
    numeric, categorical = swept_axes(result)
    if numeric:
        option, grouped_by = numeric[0], categorical
    else:
        option, grouped_by = categorical[0], categorical[1:]
    groups = _categories(result, grouped_by)
    positions: dict[Any, float] = {}
    if numeric:
        for row in result.rows:
            positions.setdefault(row.inputs[option], _float(row.inputs[option]))
        if _spans_decades(list(positions.values())):
            ax.set_xscale("log")
    else:
        for row in result.rows:
            positions.setdefault(row.inputs[option], float(len(positions)))
        ax.set_xticks(list(positions.values()), [input_text(v) for v in positions])
    series = [(key, name) for key in groups for name in names]
    drawn: list[float] = []
    for i, (key, name) in enumerate(series):
        rows = groups[key]
        xs = [positions[row.inputs[option]] for row in rows]
        ys = [_value(row, name) for row in rows]
        drawn += ys
        label = _series_label(key, name, names)
        if numeric:
            ax.plot(xs, ys, marker="o" if len(xs) <= MARKERS_UP_TO else None, label=label)
        else:  # categories: points side by side, never a line between two of them
            shift = (i - (len(series) - 1) / 2) * min(0.6 / len(series), 0.15)
            xs = [x + shift for x in xs]
            ax.plot(xs, ys, linestyle="none", marker=CATEGORY_MARKERS[i % len(CATEGORY_MARKERS)], label=label)
    if _spans_decades(drawn):
        ax.set_yscale("log")
    ax.set_xlabel(_input_label(result, option))
    ax.set_ylabel(names[0] if len(names) == 1 else "value")
    if len(series) > 1:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)


def _heat_maps(figure: Any, result: Sweep, name: str) -> None:
    """A sweep over two numeric options: a heat map of the result over the grid, one panel per
    category (a swept activation), all on one colour scale."""
    import numpy

    numeric, categorical = swept_axes(result)
    groups = _categories(result, categorical)
    first, second = numeric
    xs = list(dict.fromkeys(row.inputs[first] for row in result.rows))
    ys = list(dict.fromkeys(row.inputs[second] for row in result.rows))
    grids = {}
    for key, rows in groups.items():
        grid = numpy.full((len(ys), len(xs)), numpy.nan)
        for row in rows:
            grid[ys.index(row.inputs[second]), xs.index(row.inputs[first])] = _value(row, name)
        grids[key] = grid
    x = numpy.array([_float(v) for v in xs])
    y = numpy.array([_float(v) for v in ys])
    every = numpy.concatenate([g.ravel() for g in grids.values()])
    finite = every[numpy.isfinite(every)]
    norm, cmap = None, "viridis"
    level = CRITICAL_LEVELS.get((result.command, name))
    crossed = bool(level and finite.size and finite.min() < level[0] < finite.max())
    if crossed:
        # The two sides of the critical level in two colours (ordered blue, chaotic red).
        from matplotlib.colors import TwoSlopeNorm

        norm, cmap = TwoSlopeNorm(vcenter=level[0], vmin=finite.min(), vmax=finite.max()), "coolwarm"
    elif _spans_decades(list(every)):
        from matplotlib.colors import LogNorm

        norm = LogNorm(vmin=finite.min(), vmax=finite.max())
    elif finite.size:
        from matplotlib.colors import Normalize

        norm = Normalize(vmin=finite.min(), vmax=finite.max())
    count = len(grids)
    columns = min(count, PANEL_COLUMNS)
    rows_ = -(-count // columns)
    if count > 1:
        figure.set_size_inches(4.2 * columns + 1.2, 3.6 * rows_ + 0.6)
    axes = [figure.add_subplot(rows_, columns, i + 1) for i in range(count)]
    mesh = None
    for ax, (key, grid) in zip(axes, grids.items()):
        mesh = ax.pcolormesh(x, y, grid, shading="nearest", norm=norm, cmap=cmap)
        if level and len(xs) > 1 and len(ys) > 1:
            here = grid[numpy.isfinite(grid)]
            if here.size and here.min() < level[0] < here.max():
                contour = ax.contour(x, y, grid, levels=[level[0]], colors="black", linewidths=2)
                contour.set_label(level[1])
                ax.legend(handles=[_line_handle(level[1])], loc="upper left", fontsize="small")
        ax.set_xlabel(_input_label(result, first))
        ax.set_ylabel(_input_label(result, second))
        if key:
            ax.set_title(_category_label(key), fontsize="medium")
    figure.colorbar(mesh, ax=axes, label=name)


def _input_label(result: Sweep, option: str) -> str:
    """The swept input's name, ``input.NAME`` when a result has that name (as the table heads it)."""
    return INPUT_PREFIX + option if option in result.computed[0].names else option


def _line_handle(label: str) -> Any:
    from matplotlib.lines import Line2D

    return Line2D([], [], color="black", linewidth=2, label=label)


def _list_result(ax: Any, result: Computation | Sweep, names: Sequence[str]) -> None:
    """A list-valued result: its entries against their index (a line per sweep point)."""
    rows = result.rows if isinstance(result, Sweep) else (result,)
    swept = result.swept if isinstance(result, Sweep) else ()
    drawn: list[float] = []
    for row in rows:
        if isinstance(row, NoResult):
            continue
        for name in names:
            values = row[name].value
            doubles = values.doubles() if hasattr(values, "doubles") else [_float(v) for v in values]
            ys = [_float(v) for v in doubles]
            drawn += ys
            label = "  ".join(f"{s}={input_text(row.inputs[s])}" for s in swept)
            label = f"{name}  {label}".strip() if len(names) > 1 or not label else label
            ax.plot(range(len(ys)), ys, marker="o" if len(ys) <= MARKERS_UP_TO else None, label=label)
    if _spans_decades(drawn):
        ax.set_yscale("log")
    ax.set_xlabel("index")
    ax.set_ylabel(names[0] if len(names) == 1 else "value")
    if len(rows) > 1 or len(names) > 1:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)


def build_figure(result: Computation | Sweep, names: Sequence[str]) -> Any:
    """The matplotlib Figure of ``result`` with ``names`` on y (checked by the caller)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.5), layout="constrained")
    first = result.computed[0] if isinstance(result, Sweep) else result
    if isinstance(result, Sweep) and not first[names[0]].is_list and len(swept_axes(result)[0]) == 2:
        _heat_maps(figure, result, names[0])
        figure.suptitle(_title(result), fontsize="medium")
        return figure
    ax = figure.add_subplot()
    if first[names[0]].is_list:
        _list_result(ax, result, names)
    else:
        _lines(ax, result, names)  # type: ignore[arg-type]
    ax.set_title(_title(result), fontsize="medium")
    return figure


def save_figure(figure: Any, path: str) -> None:
    """Write ``figure`` to ``path`` (its suffix gives the format), without a date in SVG or
    PDF so that the same figure gives the same file."""
    import matplotlib

    suffix = path.lower().rsplit(".", 1)[-1]
    metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}.get(suffix)
    with matplotlib.rc_context({"svg.hashsalt": "momentcalc"}):
        figure.savefig(path, format=suffix, metadata=metadata, dpi=100)
