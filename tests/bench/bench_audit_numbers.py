"""Throughput of ``momentcalc audit`` on files full of numbers: literals per CPU second.

Not part of the test suite (timed tests are flaky); run it by hand:

    python tests/bench/bench_audit_numbers.py [--numbers 25000] [--runs 3]

Files written here (seeded): a minified JavaScript file of ``var aN=0.dddddd;`` on one line, the
same one declaration a line, and a Python list of 17-digit floats (``--numbers`` each; the Python
list 8 times as many, as checked-in results are). Each is audited with ``--json`` as a whole
process; the CPU seconds (user + system, median of ``--runs``) of a file with one number are
subtracted (start-up and loading the index), and the rest divided into the literals.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def _cpu(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _files(root: Path, numbers: int) -> dict[str, tuple[Path, int]]:
    rng = random.Random(0)
    six = [f"{rng.random():.6f}" for _ in range(numbers)]
    declarations = [f"var a{i}={x};" for i, x in enumerate(six)]
    many = 8 * numbers
    floats = ", ".join(f"{rng.random():.17g}" for _ in range(many))
    files = {
        "one number (start-up)": (root / "one.js", "var a=0.5;\n", 1),
        "js, one line": (root / "one_line.min.js", "".join(declarations) + "\n", numbers),
        "js, a line each": (root / "lines.js", "\n".join(declarations) + "\n", numbers),
        "py, one list": (root / "results.py", f"x = [{floats}]\n", many),
    }
    for path, text, _ in files.values():
        path.write_text(text)
    return {name: (path, count) for name, (path, _, count) in files.items()}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--numbers", type=int, default=25_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    with tempfile.TemporaryDirectory() as scratch:
        files = _files(Path(scratch), args.numbers)
        start = None
        for name, (path, count) in files.items():
            argv = [sys.executable, "-m", "momentcalc", "audit", str(path), "--json"]
            cpu = statistics.median(_cpu(argv, env) for _ in range(args.runs))
            if start is None:
                start = cpu
                print(f"{name}: {cpu:.2f} s CPU (median of {args.runs})")
                continue
            rate = count / max(cpu - start, 1e-3)
            print(
                f"{name}: {count} literals, {cpu:.2f} s CPU, {rate:,.0f} literals per CPU second past start-up"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
