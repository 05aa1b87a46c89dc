"""--plot FILE, --plot-y and --chart: files written with the right axes and data (not pixels),
matplotlib kept off every other call, and the refusals (exit 2, nothing on stdout).

matplotlib is in the test extras; where it is missing the figure tests skip (the refusal
without it is tested by hiding it)."""

from __future__ import annotations

import math
import subprocess
from fractions import Fraction
import sys

import pytest

from tests.conftest import invoke


def _figure(*args):
    """The Figure --plot would write for ``momentcalc ARGS`` (built by the same code)."""
    pytest.importorskip("matplotlib")

    captured = {}
    import momentcalc.render.figure as figure_module

    real = figure_module.save_figure
    figure_module.save_figure = lambda figure, path: captured.setdefault("figure", figure)
    try:
        run = invoke(*args, "--plot", "unused.png")
    finally:
        figure_module.save_figure = real
    assert run.code == 0, run
    return captured["figure"]


def test_a_sweep_is_a_line_with_the_swept_option_on_x(tmp_path):
    pytest.importorskip("matplotlib")
    for suffix in ("png", "svg", "pdf"):
        path = tmp_path / f"t.{suffix}"
        run = invoke("truncnorm", "--std", "0.01,0.02,0.05", "--plot", str(path))
        assert run.code == 0 and path.stat().st_size > 1000, run
        assert (
            run.stdout == invoke("truncnorm", "--std", "0.01,0.02,0.05").stdout
        )  # the output as without --plot
    assert (tmp_path / "t.svg").read_text().startswith("<?xml")
    assert (tmp_path / "t.pdf").read_bytes().startswith(b"%PDF")
    figure = _figure("truncnorm", "--std", "0.01,0.02,0.05")
    ax = figure.axes[0]
    assert ax.get_xlabel() == "input.std" and ax.get_ylabel() == "gamma"  # the first result by default
    assert ax.get_title() == "truncnorm,  low = -2,  high = 2,  mean = 0"  # the inputs not swept
    x, y = ax.lines[0].get_data()
    assert list(x) == [0.01, 0.02, 0.05] and y[0] == pytest.approx(0.7737413035499232)
    assert ax.get_xscale() == "linear"
    unordered = _figure("truncnorm", "--std", "0.05,0.01,0.02").axes[0].lines[0]
    assert list(unordered.get_xdata()) == [0.01, 0.02, 0.05]  # drawn left to right, not zigzag
    assert list(unordered.get_ydata()) == list(y)


def test_plot_y_is_repeatable_and_log_axes_follow_decades():
    figure = _figure("truncnorm", "--std", "0.001,0.01,0.1,1", "--plot-y", "std", "--plot-y", "correction")
    ax = figure.axes[0]
    assert [line.get_label() for line in ax.lines] == ["std", "correction"]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    std = ax.lines[0].get_data()[1]
    assert std[-1] == pytest.approx(0.8796256610342398)


def test_two_swept_options_give_the_phase_diagram_with_the_edge_of_chaos():
    figure = _figure(
        "meanfield",
        "tanh",
        "--sigma-w2",
        "1:4:1",
        "--sigma-b2",
        "0:0.3:0.1",
        "--plot-y",
        "chi1",
        "--digits",
        "6",
    )
    ax = figure.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == (r"$\sigma_w^2$", r"$\sigma_b^2$")
    assert figure.get_suptitle() == "meanfield,  tanh,  $q_0$ = 1"
    mesh = ax.collections[0]
    grid = mesh.get_array().reshape(4, 4)  # sigma_b2 rows, sigma_w2 columns
    chi1 = float(invoke("meanfield", "tanh", "--sigma-w2", "3", "--sigma-b2", "0.2", "--get", "chi1").stdout)
    assert grid[2][2] == pytest.approx(chi1, rel=1e-5)
    backwards = _figure(
        "meanfield", "tanh", "--sigma-w2", "4,3,2,1", "--sigma-b2", "0.3,0.2,0.1,0", "--plot-y", "chi1", "--digits", "6"
    )  # fmt: skip
    assert (backwards.axes[0].collections[0].get_array().reshape(4, 4) == grid).all()  # axes ascending
    assert figure.axes[1].get_ylabel() == r"$\chi_1$"  # the colour bar
    assert mesh.norm.vcenter == 1  # ordered and chaotic in two colours, split at chi1 = 1
    # the chi1 = 1 contour: at sigma_b2 = 0 it passes through sigma_w2 = 1 (tanh'(0) = 1)
    contour = [c for c in ax.collections[1:] if "edge of chaos" in str(c.get_label())]
    assert contour
    (path,) = [p for p in contour[0].get_paths() if len(p.vertices)]
    assert min(path.vertices[:, 1]) == pytest.approx(0, abs=1e-9)
    assert path.vertices[path.vertices[:, 1].argmin(), 0] == pytest.approx(1, abs=1e-6)


def test_a_list_valued_result_is_drawn_against_its_index():
    figure = _figure("postnorm-decay", "--layers", "50")
    ax = figure.axes[0]
    x, y = ax.lines[0].get_data()
    assert list(x) == list(range(50)) and ax.get_ylabel() == "branch_weights" and ax.get_xlabel() == "index"
    assert y[-1] == pytest.approx(math.sqrt(0.5)) and ax.get_yscale() == "log"  # 2^-25 .. 2^-0.5


def test_swept_activations_are_named_positions():
    figure = _figure("activation-moment", "gelu,swish,mish", "--plot-y", "gain")
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["gelu", "swish", "mish"]
    assert ax.lines[0].get_data()[1][0] == pytest.approx(1.5335304411955)
    assert ax.lines[0].get_linestyle() == "None" and ax.lines[0].get_marker() == "o"  # no line joins names


def test_a_swept_activation_beside_a_numeric_option_is_one_line_per_activation():
    """Was a traceback (could not convert string to float: 'relu') after the whole computation."""
    figure = _figure(
        "kernel", "relu,tanh", "--rho", "0,0.5", "--plot-y", "nngp", "--plot-y", "ntk_derivative"
    )
    (ax,) = figure.axes
    labels = [line.get_label() for line in ax.lines]
    nngp, ntk = r"$\mathbb{E}[\phi(u)\phi(v)]$", r"$\mathbb{E}[\phi'(u)\phi'(v)]$"
    assert labels == [f"relu: {nngp}", f"relu: {ntk}", f"tanh: {nngp}", f"tanh: {ntk}"]
    assert [t.get_text() for t in figure.legends[0].get_texts()] == labels
    assert ax.get_ylabel() == f"{nngp}, {ntk}" and ax.get_xlabel() == r"$\rho$"
    x, y = ax.lines[0].get_data()
    assert list(x) == [0, 0.5] and y[0] == pytest.approx(1 / (2 * math.pi))  # relu's E[phi(u)phi(v)] at rho 0
    assert list(ax.lines[2].get_data()[1]) == [0, pytest.approx(0.186324, abs=1e-6)]  # tanh is odd
    assert all(line.get_linestyle() == "-" for line in ax.lines)  # along rho: lines


def test_a_swept_activation_beside_two_numeric_options_is_one_heat_map_per_activation():
    figure = _figure(
        "meanfield",
        "relu,tanh",
        "--sigma-w2",
        "1:3:1",
        "--sigma-b2",
        "0,0.1",
        "--plot-y",
        "chi1",
        "--digits",
        "6",
    )
    panels = [ax for ax in figure.axes if ax.collections and ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["relu", "tanh"]
    assert len(figure.axes) == 3  # and one colour bar for both
    relu = panels[0].collections[0].get_array().reshape(2, 3)
    assert relu[0][0] == pytest.approx(0.5) and relu[0][1] == pytest.approx(1)  # sigma_w2 / 2
    assert panels[0].collections[0].norm is panels[1].collections[0].norm  # one colour scale


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("truncnorm", "--plot", "t.png"), "--plot draws a sweep"),
        (
            ("truncnorm", "--std", "1,2", "--plot", "t.gif"),
            "--plot must be a file name ending in .png, .svg, .pdf",
        ),
        (
            ("truncnorm", "--std", "1,2", "--plot", "t.png", "--plot-y", "nosuch"),
            "--plot-y names an unknown result",
        ),
        (("truncnorm", "--std", "1,2", "--plot-y", "std"), "give --plot FILE too"),
        (("truncnorm", "--std", "1,2", "--low", "-1,-2", "--high", "1,2", "--plot", "t.png"), "sweeps 3"),
        (("truncnorm", "--std", "1,2", "--chart", "nosuch"), "--chart names an unknown result"),
        (("truncnorm", "--chart", "std"), "--chart draws a sweep's result"),
        (
            ("truncnorm", "--std", "1,2", "--chart", "std", "--format", "csv"),
            "cannot be combined with --format csv",
        ),
        (("truncnorm", "--std", "1,2", "--plot", "/nonexistent/dir/t.png"), "--plot cannot write"),
        (("truncnorm", "--std", "1,2", "--plot", ""), "--plot must be a file name ending in .png"),
        (
            ("kernel", "relu", "--rho", "0,1", "--q1", "1,2", "--q2", "1,2", "--plot", "t.png"),
            "3 numeric options",
        ),
    ],
)
def test_figure_refusals_are_exit_2_with_nothing_on_stdout(args, needle, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    run = invoke(*args)
    assert run.code == 2 and run.stdout == "" and needle in run.stderr, run
    assert list(tmp_path.iterdir()) == []


def test_without_matplotlib_plot_says_how_to_install_it():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import importlib.util; real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'matplotlib' else real(name, *a)\n"
        "sys.argv = ['momentcalc', 'truncnorm', '--std', '1,2', '--plot', 'x.png']\n"
        "from momentcalc.cli.app import main; main()"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "pip install 'momentcalc[plot]'" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "raised",
    [
        "ImportError('libfreetype.so.6: cannot open shared object file')",
        "OSError('libfreetype.so.6: cannot open shared object file')",
    ],
)
def test_a_matplotlib_whose_import_fails_is_exit_2_before_computing(raised):
    """Installed but broken (a shared library it needs is missing: an ImportError, or an OSError
    from a library loaded by hand): one line, no traceback."""
    code = (
        "import sys, importlib.abc, importlib.machinery\n"
        "class Broken(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] == 'matplotlib':\n"
        "            return importlib.machinery.ModuleSpec(name, self, is_package=True)\n"
        "    def create_module(self, spec):\n"
        "        return None\n"
        "    def exec_module(self, module):\n"
        f"        raise {raised}\n"
        "sys.meta_path.insert(0, Broken())\n"
        "sys.argv = ['momentcalc', 'truncnorm', '--std', '1,2', '--plot', 'x.png']\n"
        "from momentcalc.cli.app import main; main()"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert "--plot needs matplotlib" in line and "libfreetype.so.6" in line
    assert "pip install 'momentcalc[plot]'" in line


def test_help_says_plot_replaces_the_file():
    run = invoke("kernel", "--help")
    assert "Replaces FILE if it exists" in " ".join(run.stdout.split())


def test_a_default_call_never_imports_matplotlib():
    code = (
        "import sys; sys.argv = ['momentcalc', 'truncnorm', '--std', '1,2']\n"
        "from momentcalc.cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('matplotlib' in sys.modules, file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.stderr.strip() == "False"


def test_chart_draws_a_sweeps_result_as_bars():
    run = invoke("activation-moment", "gelu,swish,mish", "--chart", "gain")
    tail = run.stdout.split("\n\n")[-1].splitlines()
    assert tail[0] == "gain"
    assert tail[1].split() == ["activation", "value", "bar"]
    rows = [line.split() for line in tail[2:]]
    gains = [("gelu", "1.53353044119554"), ("swish", "1.67653247033109"), ("mish", "1.48684758127321")]
    assert [(r[0], r[1]) for r in rows] == gains  # as the table prints them, at --digits (was 6 digits)
    short = invoke("activation-moment", "gelu,swish", "--chart", "gain", "--digits", "4").stdout
    assert short.split("\n\n")[-1].splitlines()[2].split()[:2] == ["gelu", "1.534"]
    assert len(rows[1][2]) == 40 and len(rows[0][2]) < 40  # the largest has the whole width
    table = invoke("activation-moment", "gelu,swish", "--chart", "gain", "--format", "table")
    assert "swish  1.67653247033109  ████████████████████████████████████████" in table.stdout


def test_readme_shows_the_figures_the_script_draws():
    from pathlib import Path

    from scripts.make_readme_plots import PLOTS

    import os

    from tests import doc_pages

    root = Path(__file__).resolve().parent.parent
    for image, line in PLOTS:
        assert (root / "docs" / image).stat().st_size > 10_000
        # shown on a page of docs/ (by a path relative to the page) next to the command that drew it
        showing = [
            page.read_text()
            for page in doc_pages.PAGES
            if f"]({Path(os.path.relpath(root / 'docs' / image, page.parent)).as_posix()})"
            in page.read_text()
        ]
        assert showing and all(line in page for page in showing), image


def _sweep(*args):
    """The Sweep --plot would draw for ``momentcalc ARGS``."""
    pytest.importorskip("matplotlib")
    import momentcalc.render.figure as figure_module

    captured = {}
    real = figure_module.build_figure, figure_module.save_figure
    figure_module.build_figure = lambda result, names: captured.setdefault("sweep", result)
    figure_module.save_figure = lambda figure, path: None
    try:
        run = invoke(*args, "--plot", "unused.png")
    finally:
        figure_module.build_figure, figure_module.save_figure = real
    assert run.code == 0, run
    return captured["sweep"]


def _legend_texts(figure):
    return [t.get_text() for legend in figure.legends for t in legend.get_texts()]


CITATION = "Schoenholz et al. 2017, Deep information propagation"


def test_every_symbol_is_valid_mathtext():
    pytest.importorskip("matplotlib")
    from matplotlib.mathtext import MathTextParser

    from momentcalc.render.figure import EDGE_LABEL, SYMBOLS

    parser = MathTextParser("path")
    for text in (*SYMBOLS.values(), EDGE_LABEL):
        for part in text.split("$")[1::2]:
            parser.parse(f"${part}$")  # raises on a typo


def test_two_results_on_one_axis_are_named_each_and_the_edge_of_chaos_is_marked():
    figure = _figure(
        "meanfield", "tanh", "--sigma-w2", "1.5:2.25:0.25", "--sigma-b2", "0.05", "--plot-y", "chi1",
        "--plot-y", "depth_scale_c", "--digits", "8",
    )  # fmt: skip
    (ax,) = figure.axes
    assert ax.get_ylabel() == r"$\chi_1$, $\xi_c$" and ax.get_xlabel() == r"$\sigma_w^2$"
    assert ax.get_title() == r"meanfield,  tanh,  $\sigma_b^2$ = 0.05,  $q_0$ = 1"
    texts = _legend_texts(figure)
    assert texts[:2] == [r"$\chi_1$", r"$\xi_c$"] and CITATION in texts[2] and len(texts) == 3
    # the edge: where chi1 crosses 1, between the two points about it (linearly)
    chi1 = [
        float(invoke("meanfield", "tanh", "--sigma-w2", w, "--sigma-b2", "0.05", "--get", "chi1").stdout)
        for w in ("1.75", "2")
    ]
    assert chi1[0] < 1 < chi1[1]
    crossing = 1.75 + 0.25 * (1 - chi1[0]) / (chi1[1] - chi1[0])
    (edge,) = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert edge.get_xdata()[0] == pytest.approx(crossing)


def test_the_edge_of_chaos_is_drawn_over_any_meanfield_result_but_only_over_sigma_w2():
    figure = _figure(
        "meanfield", "tanh", "--sigma-w2", "1:3:1", "--sigma-b2", "0:0.2:0.1", "--plot-y", "q_star", "--digits", "6"
    )  # fmt: skip
    assert any(CITATION in text for text in _legend_texts(figure))
    assert any(str(c.get_label()).startswith(r"$\chi_1 = 1$") for c in figure.axes[0].collections)
    over_b = _figure("meanfield", "tanh", "--sigma-b2", "0:0.2:0.1", "--sigma-w2", "1.5", "--digits", "6")
    assert _legend_texts(over_b) == [] and over_b.axes[0].get_xlabel() == r"$\sigma_b^2$"
    assert not [line for line in over_b.axes[0].lines if line.get_linestyle() == "--"]


def test_decided_points_are_hatched_regions_with_a_legend():
    args = ("meanfield", "gelu", "--sigma-w2", "1:3:0.5", "--sigma-b2", "0.1", "--digits", "6")
    statuses = invoke(*args, "--format", "csv").stdout
    assert statuses.count("no_fixed_point") == 2  # sigma_w2 2.5 and 3
    figure = _figure(*args, "--plot-y", "chi1")
    ax = figure.axes[0]
    (span,) = [p for p in ax.patches if p.get_hatch()]
    (x0, _), (x1, _) = ax.transData.inverted().transform(span.get_extents().get_points())
    assert (x0, x1) == (pytest.approx(2.25), pytest.approx(3.25)) and span.get_hatch() == "\\\\"
    assert "no fixed point" in _legend_texts(figure)
    grid = (*args[:4], "--sigma-b2", "0.1,0.2", "--digits", "6")
    heat = _figure(*grid, "--plot-y", "chi1")
    (cells,) = [c for c in heat.axes[0].collections if c.get_hatch()]
    undecided = invoke(*grid, "--format", "csv").stdout.count("no_fixed_point")
    assert len(cells.get_paths()) == undecided == 5 and "no fixed point" in _legend_texts(heat)


def test_refused_points_are_crossed_cells_with_a_legend():
    from momentcalc.render.figure import REFUSED_LABEL, build_figure
    from momentcalc.result import NoResult, Sweep, replace

    sweep = _sweep("meanfield", "tanh", "--sigma-w2", "1:2:0.5", "--sigma-b2", "0,0.1", "--digits", "6")
    rows = list(sweep.rows)
    where = next(
        i
        for i, row in enumerate(rows)
        if row.inputs["sigma_w2"] == Fraction(3, 2) and row.inputs["sigma_b2"] == Fraction(1, 10)
    )
    rows[where] = NoResult("meanfield", rows[where].inputs, 6, "not proven", code=3)
    figure = build_figure(replace(sweep, rows=tuple(rows)), ("chi1",))
    (crosses,) = [line for line in figure.axes[0].lines if line.get_marker() == "x"]
    assert list(crosses.get_xdata()) == [1.5] and list(crosses.get_ydata()) == [0.1]
    assert REFUSED_LABEL in _legend_texts(figure)
    line = build_figure(
        Sweep(
            "meanfield", 6, tuple(r for r in rows if r.inputs["sigma_b2"] == Fraction(1, 10)), ("sigma_w2",)
        ),
        ("chi1",),
    )
    assert REFUSED_LABEL in _legend_texts(line)
    assert [list(l.get_xdata()) for l in line.axes[0].lines if l.get_marker() == "x"] == [[1.5]]
    assert [l.get_color() for l in line.axes[0].lines if l.get_marker() == "x"] == [
        "black"
    ]  # as in the legend


def test_quiet_writes_the_figure_and_nothing_on_stdout(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "q.png"
    for flag in ("-q", "--quiet"):
        run = invoke("truncnorm", "--std", "0.1,0.2", "--plot", str(path), flag)
        assert run.code == 0 and run.stdout == "" and run.stderr == "" and path.stat().st_size > 1000, run
        path.unlink()
    run = invoke("truncnorm", "--std", "0.1,0.2", "-q", "--get", "gamma")
    assert run.code == 2 and run.stdout == "" and "--quiet" in run.stderr and "--get" in run.stderr
    assert "Print no results on stdout: with --plot, only the figure is written" in " ".join(
        invoke("truncnorm", "--help").stdout.split()
    )


def _listed(stdout, name, where=""):
    """The entries a table lists for result ``name`` (at sweep point ``where``: the rows under
    its title, in order)."""
    lines = stdout.splitlines()
    head = f"{name} at {where}" if where else name
    start = next(
        i
        for i, line in enumerate(lines[:-1])
        if line.split("  ")[0] == head and lines[i + 1].startswith("index")
    )
    entries = []
    for line in lines[start + 2 :]:
        cells = line.split()
        if not cells or not cells[0].isdigit():
            break
        entries += [c for c in cells[1:] if not c.startswith(("█", "▏", "▎", "▍", "▌", "▋", "▊", "▉"))]
    return lines[start], entries


@pytest.mark.parametrize("form", ["text", "table"])
@pytest.mark.parametrize(
    ("args", "name", "count"),
    [
        (("meanfield", "tanh", "--sigma-w2", "1.5", "--sigma-b2", "0.05", "--depth", "50", "--digits", "8"), "q_layers", 51),
        (("hermite", "tanh", "--digits", "20"), "coefficients", 8),
        (("postnorm-decay", "--layers", "60", "--digits", "12"), "branch_weights", 60),
    ],
)  # fmt: skip
def test_a_list_result_in_a_table_shows_every_entry_at_the_digits_asked(args, name, count, form):
    """Was the largest of each 2 entries of a 51-layer trajectory, and 6 digits whatever --digits said."""
    decimals = invoke(*args, "--json").json()["results"][name]["decimal"]
    assert len(decimals) == count
    run = invoke(*args, "--format", form)
    assert run.code == 0 and "largest of each" not in run.stdout, run
    title, entries = _listed(run.stdout, name)
    assert entries == decimals, (title, entries)
    assert f"{count} values (shown below)" in run.stdout
    if count > 40:  # wrapped into rows, the row's first index in front
        assert title == f"{name}  ({count} values; entry = row index + column)"


def test_a_list_too_long_for_a_table_points_to_csv_and_json():
    run = invoke("postnorm-decay", "--layers", "6000", "--digits", "5")
    assert run.code == 0
    assert (
        "branch_weights  (6000 values, more than a table lists (5000): --format csv or json gives every one)"
        in run.stdout
    )
    assert len(run.stdout.splitlines()) < 20


@pytest.mark.parametrize("form", ["text", "table"])
def test_a_sweeps_list_results_are_listed_per_point_under_its_table(form):
    """Were left out of a sweep's table without a word."""
    args = ("meanfield", "tanh", "--sigma-w2", "1.5,2", "--depth", "45", "--digits", "7")
    rows = invoke(*args, "--json").json()["rows"]
    run = invoke(*args, "--format", form)
    for row, where in zip(rows, ("sigma_w2=1.5", "sigma_w2=2")):
        title, entries = _listed(run.stdout, "q_layers", where)
        assert title == f"q_layers at {where}  (46 values; entry = row index + column)"
        assert entries == row["results"]["q_layers"]["decimal"]
    many = invoke("postnorm-decay", "--layers", "2600,2700", "--digits", "5")  # (cheap lists)
    assert (
        "branch_weights: 5300 values in all, more than a table lists (5000): --format csv or json"
        in many.stdout
    )
