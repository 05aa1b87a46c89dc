"""``activation-moment NAME --digits 1000 --json`` for every catalog activation (and a few
expressions) against the default call of the same activation: a table of wall and CPU seconds
and their ratios (issue 15: each within 20x its default call).

Not part of the test suite (timed tests are flaky); run it by hand, one run per case:

    python tests/bench/bench_thousand.py [--only mish] [--timeout 600] [--markdown]

CPU seconds (user + system of the child process) are reported beside wall seconds because on a
shared machine they are much less noisy; the ratio is taken of the CPU times, same run. To time
another checkout (a "before" column), put it first on the path: ``PYTHONPATH=/path/to/checkout``
(the calls run in a scratch directory, so the current directory's package does not shadow it).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CATALOG = ("identity", "relu", "relu2", "leaky_relu", "elu", "selu", "gelu", "gelu_tanh", "sigmoid", "tanh",
           "swish", "softplus", "mish", "softsign", "erf")
EXPRESSIONS = ("x*tanh(log(1+exp(x)))", "sin(x)/x", "log(abs(x))", "sigmoid(x)-1/2", "exp(-x**2)*cos(3*x)")
BUDGET = 20.0


def run(argv: list[str], env: dict[str, str], timeout: float, cwd: str | None = None) -> tuple[float, float, int]:
    """(wall s, CPU s of the child, exit code); exit code -1 on timeout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        code = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                              timeout=timeout, check=False, cwd=cwd).returncode
    except subprocess.TimeoutExpired:
        code = -1
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="substring filter on activation names")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per 1000-digit call")
    parser.add_argument("--no-expressions", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    args = parser.parse_args()
    names = [n for n in (*CATALOG, *(() if args.no_expressions else EXPRESSIONS)) if args.only in n]
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        base = [sys.executable, "-m", "momentcalc", "activation-moment"]

        run(base + ["relu", "--json"], env, 60, tmp)  # warm the caches and .pyc files
        load = os.getloadavg()[0]
        rows = []
        for name in names:
            default = run(base + [name, "--json"], env, 60, tmp)
            thousand = run(base + [name, "--digits", "1000", "--json"], env, args.timeout, tmp)
            ratio = thousand[1] / default[1] if default[1] > 0 else float("inf")
            rows.append((name, default, thousand, ratio))
            if not args.markdown:
                print(f"{name:24} default {default[0]:6.2f} s wall {default[1]:6.2f} s cpu   "
                      f"1000 digits {thousand[0]:8.2f} s wall {thousand[1]:8.2f} s cpu  exit {thousand[2]:>2}  "
                      f"cpu ratio {ratio:7.1f}{'  OVER' if ratio > BUDGET else ''}", flush=True)
        load = (load + os.getloadavg()[0]) / 2
    if args.markdown:
        print(f"| activation | default wall s | default cpu s | 1000 digits wall s | 1000 digits cpu s | exit | cpu ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, default, thousand, ratio in rows:
            timeout = " (timeout)" if thousand[2] == -1 else ""
            print(f"| `{name}` | {default[0]:.2f} | {default[1]:.2f} | {thousand[0]:.2f}{timeout} | {thousand[1]:.2f} | "
                  f"{thousand[2]} | {ratio:.1f} |")
    print(f"load average about {load:.1f} (1 min)")
    return 1 if any(r[3] > BUDGET or r[2][2] not in (0, 3) for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
