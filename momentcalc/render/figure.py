"""``--plot FILE``: a figure of a sweep or of a list-valued result, drawn with matplotlib (the
optional extra ``momentcalc[plot]``; imported only here, only when a figure is asked for).

- a sweep over one numeric option: that option on x, each ``--plot-y`` result a line on y, a
  line per swept activation (a sweep over activations alone: each a point at its name);
- a sweep over two numeric options: a heat map of the one ``--plot-y`` result over the grid,
  the first swept option on x, the second on y, one panel per swept activation;
- a list-valued result (postnorm-decay's branch_weights): its entries against their index,
  one line per sweep point.

Axes, titles and legends name inputs and results by their symbols (``SYMBOLS``: σ_w², ρ, χ₁,
ξ_c …; a name without one is shown as the command line spells it). On every ``meanfield``
figure over σ_w² the edge of chaos χ₁ = 1 is drawn where the computed χ₁ crosses 1 (a
vertical line on a line plot, a contour on a heat map): with ``--sigma-w2 … --sigma-b2 …``
this is the order-to-chaos phase diagram of Schoenholz et al., 2017, Deep information
propagation (their Fig. 1). A point without results is drawn as what it is: a decided outcome
(the length explodes, no fixed point) as a hatched grey region labelled with its kind, a
refused point as a marked cell; the legend says which is which, under the axes.

An axis is logarithmic when its values are all positive and span at least LOG_SPAN (two
decades). Infinite values (a depth scale at criticality) are left out of the drawing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..result import REFUSED, Computation, NoResult, Sweep
from .cells import INPUT_PREFIX, input_text, outcome_label

if TYPE_CHECKING:
    from matplotlib.colors import Normalize
    from matplotlib.typing import LineStyleType

SUFFIXES = (".png", ".svg", ".pdf")
LOG_SPAN = 100
MARKERS_UP_TO = 40
CATEGORY_MARKERS = "osD^v<>p*"
PANEL_COLUMNS = 3

# The one table of how a figure writes the command line's names (inputs and results): the
# symbols of the papers they come from, as matplotlib mathtext.
SYMBOLS = {
    "sigma_w2": r"$\sigma_w^2$",
    "sigma_b2": r"$\sigma_b^2$",
    "rho": r"$\rho$",
    "q0": r"$q_0$",
    "q1": r"$q_1$",
    "q2": r"$q_2$",
    "depth": r"$L$",
    "chi1": r"$\chi_1$",
    "q_star": r"$q^*$",
    "c_star": r"$c^*$",
    "depth_scale_q": r"$\xi_q$",
    "depth_scale_c": r"$\xi_c$",
    "q_layers": r"$q^{(l)}$",
    "correlation_layers": r"$c^{(l)}$",
    "nngp": r"$\mathbb{E}[\phi(u)\phi(v)]$",
    "ntk_derivative": r"$\mathbb{E}[\phi'(u)\phi'(v)]$",
    "correlation_out": r"$c_{\mathrm{out}}$",
    "nngp_depth": r"$\Sigma^{(L)}$",
    "ntk_depth": r"$\Theta^{(L)}$",
}

# The edge of chaos: on a meanfield figure over sigma_w2, where chi1 crosses 1.
EDGE_COMMAND, EDGE_OVER, EDGE_RESULT, EDGE_LEVEL = "meanfield", "sigma_w2", "chi1", 1.0
EDGE_LABEL = r"$\chi_1 = 1$, the edge of chaos (Schoenholz et al. 2017, Deep information propagation)"

# A decided outcome's region: a hatch per kind over light grey; a refused point: a cross.
HATCHES = {"explodes": "//", "no_fixed_point": "\\\\", "diverges": "xx", "collapses": ".."}
OTHER_HATCH = "++"
REGION_GREY = "0.85"
REFUSED_LABEL = "refused: not proven or past a limit (stderr says why)"


def symbol(name: str) -> str:
    """``name`` as a figure shows it: its symbol, else the name."""
    return SYMBOLS.get(name, name)


def _float(value: Any) -> float:
    number = float(value)
    return number if math.isfinite(number) else math.nan


def _value(row: Computation | NoResult, name: str) -> float:
    """A point's result as a double, nan where the point has none."""
    if isinstance(row, NoResult) or name not in row.names:
        return math.nan
    return _float(row[name].value)


def _spans_decades(values: Sequence[float]) -> bool:
    finite = [v for v in values if not math.isnan(v)]
    return bool(finite) and min(finite) > 0 and max(finite) / min(finite) >= LOG_SPAN


def _numeric(values: Sequence[Any]) -> bool:
    return all(not isinstance(v, (str, bool)) and v is not None for v in values)


def _setting(name: str, value: Any) -> str:
    """An input in a title or a legend: ``σ_w² = 1.5``; an activation by its name alone."""
    if name == "activation":
        return input_text(value)
    return f"{symbol(name)} = {input_text(value)}"


def _title(result: Computation | Sweep) -> str:
    if isinstance(result, Sweep):
        inputs = result.rows[0].inputs
        fixed = [_setting(k, v) for k, v in inputs.items() if k not in result.swept]
    else:
        fixed = [_setting(k, v) for k, v in result.inputs.items()]
    return ",  ".join([result.command, *fixed])


def _y_label(names: Sequence[str]) -> str:
    """The y axis of several results names each (the legend tells them apart)."""
    return ", ".join(symbol(name) for name in names)


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
        parts.append(symbol(name))
    return ": ".join(parts)


def _edges(centres: Sequence[float]) -> list[float]:
    """The cell boundaries about ``centres`` (monotone): midpoints, half a step past each end."""
    if len(centres) == 1:
        return [centres[0] - 0.5, centres[0] + 0.5]
    mids = [(a + b) / 2 for a, b in itertools.pairwise(centres)]
    return [2 * centres[0] - mids[0], *mids, 2 * centres[-1] - mids[-1]]


def _outcome_style(kind: str) -> dict[str, Any]:
    return {
        "facecolor": REGION_GREY,
        "edgecolor": "0.45",
        "hatch": HATCHES.get(kind, OTHER_HATCH),
        "linewidth": 0,
    }


class _Legend:
    """The handles of a figure's legend, each label once, drawn under the axes (never over data)."""

    def __init__(self) -> None:
        self.handles: dict[str, Any] = {}

    def add(self, label: str, handle: Any) -> None:
        self.handles.setdefault(label, handle)

    def region(self, kind: str, prefix: str = "") -> str:
        from matplotlib.patches import Patch

        label = prefix + outcome_label(kind)
        self.add(label, Patch(label=label, **_outcome_style(kind)))
        return label

    def refused(self, prefix: str = "", color: str = "black") -> str:
        from matplotlib.lines import Line2D

        label = prefix + REFUSED_LABEL
        self.add(label, Line2D([], [], color=color, marker="x", linestyle="none", label=label))
        return label

    def edge(self, color: str = "black", linestyle: LineStyleType = "-") -> None:
        from matplotlib.lines import Line2D

        self.add(EDGE_LABEL, Line2D([], [], color=color, linewidth=2, linestyle=linestyle, label=EDGE_LABEL))

    def draw(self, figure: Any) -> None:
        if not self.handles:
            return
        columns = 1 if any(len(label) > 40 for label in self.handles) else min(len(self.handles), 4)
        figure.legend(
            handles=list(self.handles.values()),
            loc="outside lower center",
            ncols=columns,
            fontsize="small",
            frameon=False,
        )


def _edge_crossings(xs: Sequence[float], chi1: Sequence[float]) -> list[float]:
    """Where chi1 (at the increasing xs) crosses EDGE_LEVEL, linearly between two points."""
    found = []
    points = [(x, c) for x, c in zip(xs, chi1) if not math.isnan(c)]
    for (x0, c0), (x1, c1) in itertools.pairwise(points):
        d0, d1 = c0 - EDGE_LEVEL, c1 - EDGE_LEVEL
        if d0 == 0:
            found.append(x0)
        elif d0 * d1 < 0:
            found.append(x0 + (x1 - x0) * d0 / (d0 - d1))
    if points and points[-1][1] == EDGE_LEVEL:
        found.append(points[-1][0])
    return found


def _has_edge(result: Sweep, option: str) -> bool:
    return (
        result.command == EDGE_COMMAND
        and option == EDGE_OVER
        and any(EDGE_RESULT in row.names for row in result.computed)
    )


def _lines(ax: Any, result: Sweep, names: Sequence[str], legend: _Legend) -> None:
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
    colours: dict[tuple[Any, ...], str] = {}
    for i, (key, name) in enumerate(series):
        rows = sorted(groups[key], key=lambda row: positions[row.inputs[option]])  # a line left to right
        xs = [positions[row.inputs[option]] for row in rows]
        ys = [_value(row, name) for row in rows]
        drawn += ys
        label = _series_label(key, name, names)
        if numeric:
            (line,) = ax.plot(xs, ys, marker="o" if len(xs) <= MARKERS_UP_TO else None, label=label)
        else:  # categories: points side by side, never a line between two of them
            shift = (i - (len(series) - 1) / 2) * min(0.6 / len(series), 0.15)
            xs = [x + shift for x in xs]
            marker = CATEGORY_MARKERS[i % len(CATEGORY_MARKERS)]
            (line,) = ax.plot(xs, ys, linestyle="none", marker=marker, label=label)
        colours.setdefault(key, line.get_color())
        legend.add(label, line)
    if _spans_decades(drawn):
        ax.set_yscale("log")
    for key, rows in groups.items():
        _line_outcomes(ax, rows, option, positions, bool(numeric), key, colours[key], len(groups), legend)
    if numeric and _has_edge(result, option):
        for key, rows in groups.items():
            computed = sorted((positions[row.inputs[option]], _value(row, EDGE_RESULT)) for row in rows)
            for x in _edge_crossings([x for x, _ in computed], [c for _, c in computed]):
                colour = colours[key] if len(groups) > 1 else "black"
                ax.axvline(x, color=colour, linestyle="--", linewidth=1.5)
                legend.edge("black" if len(groups) == 1 else "0.3", "--")
    ax.set_xlabel(_input_label(result, option))
    ax.set_ylabel(_y_label(names))
    ax.grid(True, alpha=0.3)
    if len(series) == 1 and set(legend.handles) == {_series_label(*series[0], names)}:
        legend.handles.clear()  # one line and nothing else: the y label names it


def _line_outcomes(
    ax: Any,
    rows: Sequence[Any],
    option: str,
    positions: dict[Any, float],
    numeric: bool,
    key: tuple[Any, ...],
    colour: str,
    groups: int,
    legend: _Legend,
) -> None:
    """The points of one line without results: a decided outcome as a hatched span over its
    points' cells, a refused point as a cross on the x axis."""
    from matplotlib.transforms import blended_transform_factory

    prefix = f"{_category_label(key)}: " if groups > 1 and key else ""
    centres = sorted(set(positions.values()))
    edges = _edges(centres) if numeric else [c - 0.4 for c in centres] + [centres[-1] + 0.4]
    cell = {c: (edges[i], edges[i + 1] if numeric else c + 0.4) for i, c in enumerate(centres)}
    on_axis = blended_transform_factory(ax.transData, ax.transAxes)
    spans: list[list[Any]] = []  # [kind, low, high]: neighbouring cells of one kind, one span
    for row in sorted(rows, key=lambda row: positions[row.inputs[option]]):
        if not isinstance(row, NoResult):
            spans.append([None, 0, 0])
            continue
        x = positions[row.inputs[option]]
        if row.status == REFUSED:
            cross = colour if groups > 1 else "black"
            ax.plot([x], [0.03], transform=on_axis, marker="x", color=cross, linestyle="none", clip_on=False)
            legend.refused(prefix, cross)
            spans.append([None, 0, 0])
        elif spans and spans[-1][0] == row.status and numeric:
            spans[-1][2] = cell[x][1]
        else:
            spans.append([row.status, *cell[x]])
    for kind, low, high in spans:
        if kind is None:
            continue
        style = _outcome_style(kind)
        if groups > 1:
            style["edgecolor"] = colour
        ax.axvspan(low, high, **style)
        legend.region(kind, prefix)


def _heat_maps(figure: Any, result: Sweep, name: str, legend: _Legend) -> None:
    """A sweep over two numeric options: a heat map of the result over the grid, one panel per
    category (a swept activation), all on one colour scale."""
    import numpy

    numeric, categorical = swept_axes(result)
    groups = _categories(result, categorical)
    first, second = numeric
    xs = sorted(dict.fromkeys(row.inputs[first] for row in result.rows), key=_float)  # the axes ascending
    ys = sorted(dict.fromkeys(row.inputs[second] for row in result.rows), key=_float)

    def grid_of(rows: Sequence[Any], what: str) -> Any:
        grid = numpy.full((len(ys), len(xs)), numpy.nan)
        for row in rows:
            grid[ys.index(row.inputs[second]), xs.index(row.inputs[first])] = _value(row, what)
        return grid

    grids = {key: grid_of(rows, name) for key, rows in groups.items()}
    x = numpy.array([_float(v) for v in xs])
    y = numpy.array([_float(v) for v in ys])
    every = numpy.concatenate([g.ravel() for g in grids.values()])
    finite = every[numpy.isfinite(every)]
    norm: Normalize | None = None
    cmap = "viridis"
    if (
        result.command == EDGE_COMMAND
        and name == EDGE_RESULT
        and finite.size
        and finite.min() < EDGE_LEVEL < finite.max()
    ):
        # The two sides of the edge in two colours (ordered blue, chaotic red).
        from matplotlib.colors import TwoSlopeNorm

        norm, cmap = TwoSlopeNorm(vcenter=EDGE_LEVEL, vmin=finite.min(), vmax=finite.max()), "coolwarm"
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
        figure.set_size_inches(4.2 * columns + 1.2, 3.6 * rows_ + 1.2)
    axes = [figure.add_subplot(rows_, columns, i + 1) for i in range(count)]
    edge = EDGE_OVER in numeric and _has_edge(result, EDGE_OVER)
    mesh = None
    for ax, (key, grid) in zip(axes, grids.items()):
        mesh = ax.pcolormesh(x, y, grid, shading="nearest", norm=norm, cmap=cmap)
        _cell_outcomes(ax, groups[key], first, second, xs, ys, x, y, legend)
        if edge and len(xs) > 1 and len(ys) > 1:
            chi1 = grid_of(groups[key], EDGE_RESULT)
            here = chi1[numpy.isfinite(chi1)]
            if here.size and here.min() < EDGE_LEVEL < here.max():
                contour = ax.contour(x, y, chi1, levels=[EDGE_LEVEL], colors="black", linewidths=2)
                contour.set_label(EDGE_LABEL)
                legend.edge()
        ax.set_xlabel(_input_label(result, first))
        ax.set_ylabel(_input_label(result, second))
        if key:
            ax.set_title(_category_label(key), fontsize="medium")
    figure.colorbar(mesh, ax=axes, label=symbol(name))


def _cell_outcomes(
    ax: Any,
    rows: Sequence[Any],
    first: str,
    second: str,
    xs: list[Any],
    ys: list[Any],
    x: Any,
    y: Any,
    legend: _Legend,
) -> None:
    """A heat map's points without results: a decided outcome's cells hatched grey (a
    collection per kind), a refused point's cell crossed."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    x_edges, y_edges = _edges(list(x)), _edges(list(y))
    cells: dict[str, list[Any]] = {}
    refused_at: list[tuple[float, float]] = []
    for row in rows:
        if not isinstance(row, NoResult):
            continue
        i, j = xs.index(row.inputs[first]), ys.index(row.inputs[second])
        if row.status == REFUSED:
            refused_at.append((x[i], y[j]))
            continue
        low_x, high_x = sorted((x_edges[i], x_edges[i + 1]))
        low_y, high_y = sorted((y_edges[j], y_edges[j + 1]))
        cells.setdefault(row.status, []).append(Rectangle((low_x, low_y), high_x - low_x, high_y - low_y))
    for kind, rectangles in cells.items():
        collection = PatchCollection(rectangles, match_original=False, **_outcome_style(kind))
        collection.set_label(legend.region(kind))
        ax.add_collection(collection)
    if refused_at:
        ax.plot(
            [p[0] for p in refused_at],
            [p[1] for p in refused_at],
            linestyle="none",
            marker="x",
            color="black",
            markersize=7,
            label=legend.refused(),
        )


def _input_label(result: Sweep, option: str) -> str:
    """The swept input's symbol, else its name (``input.NAME`` when a result has that name, as
    the table heads it)."""
    if option in SYMBOLS:
        return SYMBOLS[option]
    return INPUT_PREFIX + option if option in result.computed[0].names else option


def _list_result(ax: Any, result: Computation | Sweep, names: Sequence[str], legend: _Legend) -> None:
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
            label = ",  ".join(_setting(s, row.inputs[s]) for s in swept)
            label = f"{symbol(name)}: {label}" if len(names) > 1 and label else label or symbol(name)
            (line,) = ax.plot(
                range(len(ys)), ys, marker="o" if len(ys) <= MARKERS_UP_TO else None, label=label
            )
            legend.add(label, line)
    if _spans_decades(drawn):
        ax.set_yscale("log")
    ax.set_xlabel("layer $l$" if all(name.endswith("_layers") for name in names) else "index")
    ax.set_ylabel(_y_label(names))
    if len(rows) == 1 and len(names) == 1:
        legend.handles.clear()  # one line: the y label names it
    ax.grid(True, alpha=0.3)


def build_figure(result: Computation | Sweep, names: Sequence[str]) -> Any:
    """The matplotlib Figure of ``result`` with ``names`` on y (checked by the caller)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.8), layout="constrained")
    legend = _Legend()
    first = result.computed[0] if isinstance(result, Sweep) else result
    if isinstance(result, Sweep) and not first[names[0]].is_list and len(swept_axes(result)[0]) == 2:
        _heat_maps(figure, result, names[0], legend)
        figure.suptitle(_title(result), fontsize="medium")
    else:
        ax = figure.add_subplot()
        if first[names[0]].is_list:
            _list_result(ax, result, names, legend)
        else:
            _lines(ax, result, names, legend)  # type: ignore[arg-type]  # scalars are drawn for a Sweep only
        ax.set_title(_title(result), fontsize="medium")
    legend.draw(figure)
    return figure


def save_figure(figure: Any, path: str) -> None:
    """Write ``figure`` to ``path`` (its suffix gives the format), without a date in SVG or
    PDF so that the same figure gives the same file."""
    import matplotlib

    suffix = path.lower().rsplit(".", 1)[-1]
    metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}.get(suffix)
    with matplotlib.rc_context({"svg.hashsalt": "momentcalc"}):
        figure.savefig(path, format=suffix, metadata=metadata, dpi=100)
