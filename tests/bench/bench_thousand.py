"""``activation-moment NAME --digits 1000 --json`` for every catalog activation (and a few
expressions) against the default call of the same activation, and every other command at
``--digits 1000`` against its default call: a table of wall and CPU seconds and their ratios
(issue 15: each activation within 20x its default call, each other command within 10x).

Not part of the test suite (timed tests are flaky); run it by hand, one run per case:

    python tests/bench/bench_thousand.py [--only mish] [--timeout 600] [--markdown] [--no-commands]

CPU seconds (user + system of the child process) are reported beside wall seconds because on a
shared machine they are much less noisy; the ratio is taken of the CPU times, same run. To time
another checkout, put it first on the path: ``PYTHONPATH=/path/to/checkout`` (the calls run in a
scratch directory, so the current directory's package does not shadow it); ``--before PATH``
times that checkout too, case by case interleaved with this one (same load), as before/after
columns.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

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
EXPRESSIONS = ("x*tanh(log(1+exp(x)))", "sin(x)/x", "log(abs(x))", "sigmoid(x)-1/2", "exp(-x**2)*cos(3*x)")
BUDGET = 20.0
# Every other command (with the arguments of a case that does real work where the default
# is trivial, as meanfield tanh's q* = 0): its default call, and the same at --digits 1000.
COMMANDS: dict[str, list[str]] = {
    "truncnorm": ["truncnorm"],
    "truncnorm --low 30 --high 31": ["truncnorm", "--low", "30", "--high", "31"],
    "selu-solve": ["selu-solve"],
    "postnorm-decay": ["postnorm-decay"],
    "gau-scale": ["gau-scale"],
    "gau-scale --activation gelu": ["gau-scale", "--activation", "gelu"],
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
    "attention": ["attention"],
    "meanfield tanh": ["meanfield", "tanh"],
    "meanfield tanh --sigma-w2 2": ["meanfield", "tanh", "--sigma-w2", "2"],
    "meanfield tanh --sigma-w2 1.5 --sigma-b2 0.05": [
        "meanfield",
        "tanh",
        "--sigma-w2",
        "1.5",
        "--sigma-b2",
        "0.05",
    ],
    "meanfield tanh --critical --sigma-b2 0.05": ["meanfield", "tanh", "--critical", "--sigma-b2", "0.05"],
    "meanfield relu --sigma-w2 1.5 --sigma-b2 0.05": [
        "meanfield",
        "relu",
        "--sigma-w2",
        "1.5",
        "--sigma-b2",
        "0.05",
    ],
    "meanfield tanh --sigma-w2 2.5 --sigma-b2 0.05": [
        "meanfield",
        "tanh",
        "--sigma-w2",
        "2.5",
        "--sigma-b2",
        "0.05",
    ],
    # q* = 19: the lattice rule's convolutions are 180000 terms long at 1000 digits (issue 34: 1 GiB)
    "meanfield tanh --sigma-w2 20 --sigma-b2 0.05": [
        "meanfield",
        "tanh",
        "--sigma-w2",
        "20",
        "--sigma-b2",
        "0.05",
    ],
}
COMMAND_BUDGET = 10.0


def run(
    argv: list[str], env: dict[str, str], timeout: float, cwd: str | None = None
) -> tuple[float, float, int, float]:
    """(wall s, CPU s of the child, exit code, its peak resident memory in MiB); exit code -1 on
    timeout. (``os.wait4``: this child's own usage, its own children's included.)"""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    if code == -signal.SIGKILL:
        code = -1
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, code, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="substring filter on activation names")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per 1000-digit call")
    parser.add_argument("--no-expressions", action="store_true")
    parser.add_argument("--no-commands", action="store_true", help="activations only")
    parser.add_argument("--no-activations", action="store_true", help="the other commands only")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    parser.add_argument("--before", default="", help="a checkout to time case by case beside this one")
    args = parser.parse_args()
    names = (
        []
        if args.no_activations
        else [n for n in (*CATALOG, *(() if args.no_expressions else EXPRESSIONS)) if args.only in n]
    )
    commands = [] if args.no_commands else [n for n in COMMANDS if args.only in n]
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        mc = [sys.executable, "-m", "momentcalc"]
        cases = [(name, mc + ["activation-moment", name], BUDGET) for name in names]
        cases += [(name, mc + COMMANDS[name], COMMAND_BUDGET) for name in commands]

        old_env = {**env, "PYTHONPATH": args.before} if args.before else None
        for warm in (env, old_env):  # warm the caches and .pyc files of every command
            if warm is not None:
                first = {}
                for _, argv, _ in cases:
                    first.setdefault(argv[3], argv)
                for argv in first.values():
                    run([*argv, "--json"], warm, 60, tmp)
        load = os.getloadavg()[0]
        rows = []
        earlier = {}
        for name, argv, budget in cases:
            if old_env is not None:
                old_default = run(argv + ["--json"], old_env, 60, tmp)
                old_thousand = run(argv + ["--digits", "1000", "--json"], old_env, args.timeout, tmp)
                earlier[name] = (
                    old_default,
                    old_thousand,
                    old_thousand[1] / old_default[1] if old_default[1] > 0 else float("inf"),
                )
            default = run(argv + ["--json"], env, 60, tmp)
            thousand = run(argv + ["--digits", "1000", "--json"], env, args.timeout, tmp)
            ratio = thousand[1] / default[1] if default[1] > 0 else float("inf")
            rows.append((name, default, thousand, ratio, budget))
            if not args.markdown:
                print(
                    f"{name:48} default {default[0]:6.2f} s wall {default[1]:6.2f} s cpu   "
                    f"1000 digits {thousand[0]:8.2f} s wall {thousand[1]:8.2f} s cpu  exit {thousand[2]:>2}  "
                    f"cpu ratio {ratio:7.1f}{'  OVER' if ratio > budget else ''}  peak {thousand[3]:6.0f} MiB",
                    flush=True,
                )
        load = (load + os.getloadavg()[0]) / 2
    if args.markdown and earlier:
        print(
            "| case | default cpu s (before) | 1000 digits cpu s (before) | ratio (before) | "
            "default cpu s (after) | 1000 digits cpu s (after) | ratio (after) | budget |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, default, thousand, ratio, budget in rows:
            od, ot, oratio = earlier[name]
            marks = ["" if t[2] in (0, 3) else f" (exit {t[2]})" for t in (ot, thousand)]
            print(
                f"| `{name}` | {od[1]:.2f} | {ot[1]:.2f}{marks[0]} | {oratio:.1f} | {default[1]:.2f} | "
                f"{thousand[1]:.2f}{marks[1]} | {ratio:.1f}{' (over)' if ratio > budget else ''} | {budget:.0f}x |"
            )
    elif args.markdown:
        print(
            "| case | default wall s | default cpu s | 1000 digits wall s | 1000 digits cpu s | exit | cpu ratio | budget |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, default, thousand, ratio, budget in rows:
            timeout = " (timeout)" if thousand[2] == -1 else ""
            print(
                f"| `{name}` | {default[0]:.2f} | {default[1]:.2f} | {thousand[0]:.2f}{timeout} | {thousand[1]:.2f} | "
                f"{thousand[2]} | {ratio:.1f} | {budget:.0f}x |"
            )
    print(f"load average about {load:.1f} (1 min)")
    return 1 if any(r[3] > r[4] or r[2][2] not in (0, 3) for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
