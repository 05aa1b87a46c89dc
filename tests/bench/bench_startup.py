"""Whole-process timings: momentcalc commands vs reference one-liners, printed as ratios.

Not part of the test suite (timed tests are flaky); run it by hand:

    python tests/bench/bench_startup.py [--runs 15] [--only truncnorm] [--defaults]

``--defaults`` times only the default call of every command (table and --json) against the
smallest Typer app; a registered command without such a case fails the run.

Every case is a full ``python ...`` process, run interleaved (one of each case per round) so
that machine noise hits all cases alike, in a scratch directory with this checkout first on the
path. Reported: median and min wall seconds, median CPU seconds (user + system of the child:
much less noisy on a shared machine), and the ratio of each median to the reference it is
judged against (the smallest Typer app that prints a rich table, or the default call of the
same command). A budget is judged on the CPU ratio: on a shared machine the wall time also
measures how long a process waited for a core. ``--before PATH`` times another checkout (``git archive main | tar -x -C PATH``)
case by case beside this one, as "before: ..." rows. ``--plain-mpmath`` runs mpmath without
gmpy2, as a plain ``pip install`` has it: gmpy2 >= 2.2 imports ``importlib.metadata`` when it
loads (about 30 ms of CPU here), which alone puts any mpmath-using call above 1.3x the Typer app.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MINIMAL_TYPER_APP = """
import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer()

@app.command()
def main():
    table = Table("name", "value")
    table.add_row("gamma", "0.77")
    Console().print(table)

if __name__ == "__main__":
    app()
"""

MC = [sys.executable, "-m", "momentcalc"]

# name -> (argv, reference name or None, budget ratio from the issues)
CASES: dict[str, tuple[list[str], str | None, float | None]] = {
    "typer-minimal": ([sys.executable, "{app}"], None, None),
    "scipy-truncnorm": (
        [sys.executable, "-c", "from scipy.stats import truncnorm; print(truncnorm.var(-2, 2))"],
        None,
        None,
    ),
    "truncnorm --json": (MC + ["truncnorm", "--json"], "typer-minimal", 1.3),
    "truncnorm (table)": (MC + ["truncnorm"], "typer-minimal", None),
    "truncnorm --std 0.01:1:0.01 --json": (
        MC + ["truncnorm", "--std", "0.01:1:0.01", "--json"],
        "truncnorm --json",
        5.0,
    ),
    "activation-moment swish --json": (MC + ["activation-moment", "swish", "--json"], "typer-minimal", 1.3),
    "activation-moment swish --digits 100 --json": (
        MC + ["activation-moment", "swish", "--digits", "100", "--json"],
        "activation-moment swish --json",
        3.0,
    ),
    "selu-solve --json": (MC + ["selu-solve", "--json"], "typer-minimal", 1.3),
    "selu-solve --digits 100 --json": (
        MC + ["selu-solve", "--digits", "100", "--json"],
        "selu-solve --json",
        3.0,
    ),
    "postnorm-decay --json": (MC + ["postnorm-decay", "--json"], "typer-minimal", 1.3),
    "postnorm-decay (table)": (MC + ["postnorm-decay"], "typer-minimal", None),
    "postnorm-decay --layers 1000000 (table)": (
        MC + ["postnorm-decay", "--layers", "1000000"],
        "postnorm-decay (table)",
        None,
    ),
    "postnorm-decay --layers 1000000 --json": (
        MC + ["postnorm-decay", "--layers", "1000000", "--json"],
        "postnorm-decay --json",
        3.0,
    ),
    "gau-scale --json": (MC + ["gau-scale", "--json"], "typer-minimal", 1.3),
    "gau-scale (table)": (MC + ["gau-scale"], "typer-minimal", None),
    "init --fan-in 768 --json": (MC + ["init", "--fan-in", "768", "--json"], "typer-minimal", 1.3),
    "kernel tanh --json": (MC + ["kernel", "tanh", "--json"], "typer-minimal", None),
    "hermite tanh --json": (MC + ["hermite", "tanh", "--json"], "typer-minimal", None),
    "init --fan-in 1:100:1 --json": (
        MC + ["init", "--fan-in", "1:100:1", "--json"],
        "init --fan-in 768 --json",
        5.0,
    ),
    "attention --json": (MC + ["attention", "--json"], "typer-minimal", 1.3),
    "verify --json": (MC + ["verify", "--json"], "truncnorm --json", 10.0),
    # Issue 15: every command at 1000 digits within 10x its default call.
    "truncnorm --digits 1000 --json": (
        MC + ["truncnorm", "--digits", "1000", "--json"],
        "truncnorm --json",
        10.0,
    ),
    "truncnorm --low 30 --high 31 --digits 1000 --json": (
        MC + ["truncnorm", "--low", "30", "--high", "31", "--digits", "1000", "--json"],
        "truncnorm --json",
        10.0,
    ),
    "selu-solve --digits 1000 --json": (
        MC + ["selu-solve", "--digits", "1000", "--json"],
        "selu-solve --json",
        10.0,
    ),
    "postnorm-decay --digits 1000 --json": (
        MC + ["postnorm-decay", "--digits", "1000", "--json"],
        "postnorm-decay --json",
        10.0,
    ),
    "gau-scale --digits 1000 --json": (
        MC + ["gau-scale", "--digits", "1000", "--json"],
        "gau-scale --json",
        10.0,
    ),
    "init --fan-in 768 --digits 1000 --json": (
        MC + ["init", "--fan-in", "768", "--digits", "1000", "--json"],
        "init --fan-in 768 --json",
        10.0,
    ),
    "attention --digits 1000 --json": (
        MC + ["attention", "--digits", "1000", "--json"],
        "attention --json",
        10.0,
    ),
    "meanfield tanh --json": (MC + ["meanfield", "tanh", "--json"], "typer-minimal", None),
    "meanfield tanh --sigma-b2 0.05 --critical --json": (
        MC + ["meanfield", "tanh", "--sigma-b2", "0.05", "--critical", "--json"],
        "meanfield tanh --json",
        None,
    ),
    "meanfield tanh --sigma-b2 0.05 --critical --digits 50 --json": (
        MC + ["meanfield", "tanh", "--sigma-b2", "0.05", "--critical", "--digits", "50", "--json"],
        "meanfield tanh --json",
        20.0,
    ),
    # The chaotic phase: c* and depth_scale_c from certified bivariate expectations.
    "meanfield tanh --sigma-w2 2.5 --sigma-b2 0.05 --json": (
        MC + ["meanfield", "tanh", "--sigma-w2", "2.5", "--sigma-b2", "0.05", "--json"],
        "meanfield tanh --json",
        None,
    ),
    "meanfield tanh --sigma-w2 2.5 --sigma-b2 0.05 --digits 50 --json": (
        MC + ["meanfield", "tanh", "--sigma-w2", "2.5", "--sigma-b2", "0.05", "--digits", "50", "--json"],
        "meanfield tanh --json",
        20.0,
    ),
}

# Issue 26: the default call of EVERY command (the catalog listings, schema and the initializer
# and meanfield cases included) within 1.3x the smallest Typer app, as a table and as JSON.
# ``covered`` (below) fails the run when a registered command has no case here.
DEFAULT_CALLS: dict[str, list[str]] = {
    "truncnorm": ["truncnorm"],
    "activation-moment swish": ["activation-moment", "swish"],
    "activation-moment relu": ["activation-moment", "relu"],
    "activations": ["activations"],
    "attention": ["attention"],
    "initial-loss": ["initial-loss"],
    "init-report (GPT-2 small)": [
        "init-report",
        str(Path(__file__).resolve().parents[1] / "fixtures" / "init_report" / "gpt2_small.json"),
    ],
    "gau-scale": ["gau-scale"],
    "init --fan-in 768": ["init", "--fan-in", "768"],
    "init --scheme he --activation gelu --fan-in 768": [
        "init",
        "--scheme",
        "he",
        "--activation",
        "gelu",
        "--fan-in",
        "768",
    ],
    "initializer torch.nn.init.trunc_normal_": ["initializer", "torch.nn.init.trunc_normal_"],
    "initializers": ["initializers"],
    "meanfield tanh": ["meanfield", "tanh"],
    "kernel relu": ["kernel", "relu"],
    "hermite relu": ["hermite", "relu"],
    # A target reachable at the default depth 1 (C(0) of relu is 1/pi there): the answer, not an error.
    "tat leaky_relu --target-c0 0.2": ["tat", "leaky_relu", "--target-c0", "0.2"],
    "meanfield tanh --sigma-w2 1.5 --sigma-b2 0.05": [
        "meanfield",
        "tanh",
        "--sigma-w2",
        "1.5",
        "--sigma-b2",
        "0.05",
    ],
    "postnorm-decay": ["postnorm-decay"],
    "schema": ["schema"],
    "selu-solve": ["selu-solve"],
    "constants": ["constants"],
    "identify 1.7580993408473766": ["identify", "1.7580993408473766"],
    "audit (this benchmark's file)": ["audit", __file__],
}
for _name, _argv in DEFAULT_CALLS.items():
    CASES.setdefault(f"{_name} (table)", (MC + _argv, "typer-minimal", 1.3))
    if _argv[0] != "schema":  # schema prints JSON already and has no --json
        CASES.setdefault(f"{_name} --json", (MC + _argv + ["--json"], "typer-minimal", 1.3))


def covered() -> list[str]:
    """The registered commands without a default-call case (run before timing anything)."""
    from momentcalc.cli import app, commands

    commands.load_all()  # (a call imports only the module of its command)
    names = {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands}
    return sorted(n for n in names if not any(argv[:4] == [*MC, n] for argv, _, _ in CASES.values()))


# Issue 15: every catalog activation at --digits 1000 within 20x its default call. Slow (seconds
# to minutes per call), so only with --thousand (and usually --runs 1 or 3).
CATALOG = (
    "identity",
    "relu",
    "relu2",
    "leaky_relu",
    "elu",
    "selu",
    "gelu",
    "gelu_tanh",
    "sigmoid",
    "tanh",
    "swish",
    "softplus",
    "mish",
    "softsign",
    "erf",
)
THOUSAND: dict[str, tuple[list[str], str | None, float | None]] = {}
for _name in CATALOG:
    THOUSAND[f"activation-moment {_name} --json"] = (MC + ["activation-moment", _name, "--json"], None, None)
    THOUSAND[f"activation-moment {_name} --digits 1000 --json"] = (
        MC + ["activation-moment", _name, "--digits", "1000", "--json"],
        f"activation-moment {_name} --json",
        20.0,
    )


def time_once(argv: list[str], env: dict[str, str], cwd: str | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child: user + system) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env, cwd=cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--only", default="", help="substring filter on case names (references always run)")
    parser.add_argument(
        "--defaults", action="store_true", help="only the default calls (every command against the Typer app)"
    )
    parser.add_argument(
        "--thousand",
        action="store_true",
        help="also every catalog activation at --digits 1000 against its default call",
    )
    parser.add_argument("--before", default="", help="a checkout to time case by case beside this one")
    parser.add_argument(
        "--plain-mpmath",
        action="store_true",
        help="mpmath without gmpy2 (MPMATH_NOGMPY=1), as a plain install has it",
    )
    args = parser.parse_args()
    if args.thousand:
        CASES.update(THOUSAND)
    missing = covered()
    if missing:  # timed all the same; the run fails at the end
        print(f"commands without a default-call case (add them to DEFAULT_CALLS): {', '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:
        # Byte-code is cached (in tmp) as an installed package has it, even where the environment
        # sets PYTHONDONTWRITEBYTECODE: otherwise every run would recompile momentcalc's modules.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        if args.plain_mpmath:
            env["MPMATH_NOGMPY"] = "1"
        # The calls run in a scratch directory, with this checkout (or --before's) first on the path.
        here = str(Path(__file__).resolve().parents[2])
        checkouts = {"": {**env, "PYTHONPATH": here}}
        if args.before:
            checkouts["before: "] = {
                **env,
                "PYTHONPATH": str(Path(args.before).resolve()),
                "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache-before"),
            }
        app = Path(tmp) / "minimal_typer_app.py"
        app.write_text(MINIMAL_TYPER_APP)
        selected = {
            name: ([part.replace("{app}", str(app)) for part in argv], ref, budget)
            for name, (argv, ref, budget) in CASES.items()
            if (not args.defaults or ref in (None, "typer-minimal"))
            and (
                args.only in name
                or ref is None
                or any(args.only in other and r == name for other, (_, r, _) in CASES.items())
            )
        }
        cases: dict[str, tuple[list[str], str | None, float | None, dict[str, str]]] = {}
        for prefix, case_env in checkouts.items():
            for name, (argv, ref, budget) in selected.items():
                if prefix and argv[:3] != MC:
                    continue  # the reference one-liners are the same for both checkouts
                own_ref = ref if ref is None or CASES[ref][0][:3] != MC else prefix + ref
                cases[prefix + name] = (argv, own_ref, budget, case_env)
        failing = []
        for name, (argv, _, _, case_env) in cases.items():  # warm the OS caches and .pyc files
            time_once(argv, case_env, tmp)
            if (
                argv[:3] == MC
                and subprocess.run(
                    argv,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=case_env,
                    cwd=tmp,
                    check=False,
                ).returncode
                != 0
            ):
                failing.append(name)
        if failing:  # a default call that exits non-zero would time an error path, not the answer
            print(f"cases that do not exit 0 (fix the case): {', '.join(failing)}")
            return 1
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (argv, _, _, case_env) in cases.items():
                samples[name].append(time_once(argv, case_env, tmp))
    wall = {name: statistics.median(w for w, _ in values) for name, values in samples.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in samples.items()}
    print(
        f"{'case':56} {'median s':>9} {'min s':>7} {'ratio':>6} {'cpu s':>6} {'ratio':>6} {'budget':>7}  vs"
    )
    failed = False
    for name, (_, ref, budget, _) in cases.items():
        ratio = wall[name] / wall[ref] if ref else None
        cpu_ratio = cpu[name] / cpu[ref] if ref else None
        over = cpu_ratio is not None and budget is not None and cpu_ratio > budget
        failed |= over and not name.startswith("before: ")
        shown = "" if ratio is None else f"{ratio:.2f}"
        cpu_shown = "" if cpu_ratio is None else f"{cpu_ratio:.2f}"
        limit = "" if budget is None else f"{budget:.1f}x"
        print(
            f"{name:56} {wall[name]:9.3f} {min(w for w, _ in samples[name]):7.3f} {shown:>6} {cpu[name]:6.3f} "
            f"{cpu_shown:>6} {limit:>7}  {ref or ''}{'  OVER BUDGET' if over else ''}"
        )
    print(
        f"load average {os.getloadavg()[0]:.1f} (1 min); ratios of medians, wall and CPU (user + system); "
        "budgets judged on CPU"
    )
    return 1 if failed or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
