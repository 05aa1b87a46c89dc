"""Phase-diagram sweeps of ``meanfield``: every point decided, and how fast.

Sweeps the grid σ_w² = 0.5, 0.52, ..., 4 (176 values) × σ_b² = 0, 0.02, ..., 0.3 (16 values) for
each activation and --digits asked, through ``momentcalc.sweep`` with ``--jobs`` worker
processes, and prints per run: points, refused points (named), points without a fixed point
or exploding (decided), wall seconds, CPU seconds of this process and its workers, and points
per CPU-second. Exits 1 when a point is refused (issue 34: no ordinary point refused).

Not part of the test suite (timed runs are flaky on a shared machine); run it by hand:

    python tests/bench/bench_sweeps.py [--activations tanh,erf] [--digits 15,30] [--jobs 2]
        [--step 0.02]

Measured 2026-12-02 at load 8-13 on the 2-core development machine (CPU seconds, workers
included): tanh 107.7 s at 15 digits (26 points per CPU-second), 122.9 s at 30 (23); erf 8.4 s
and 11.4 s (336 and 248); no point refused in any of the four. With q* and c* looked for in
double precision first (meanfield/floats.py), at load 12: tanh 62.3 s at 15 digits (45 points
per CPU-second), 89.0 s at 30 (32), no point refused. The goal of issue 34, under 30 s (15
digits) and 60 s (30 digits) of wall time on 2 cores, is about 47 and 24 points per CPU-second
with both cores free.

The digits themselves are checked against an independent route at chosen points of the grid
(tests/test_meanfield_grid.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def grid(step: Fraction) -> tuple[list[str], list[str]]:
    """σ_w² over [0.5, 4] and σ_b² over [0, 0.3] at ``step``, as exact decimal texts."""

    def axis(lo: Fraction, hi: Fraction) -> list[str]:
        count = int((hi - lo) / step) + 1
        return [_text(lo + i * step) for i in range(count)]

    return axis(Fraction(1, 2), Fraction(4)), axis(Fraction(0), Fraction(3, 10))


def _text(value: Fraction) -> str:
    whole, rest = divmod(value, 1)
    return f"{int(whole)}.{int(rest * 100):02d}" if rest else str(int(whole))


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(activation: str, digits: int, jobs: int, step: Fraction) -> bool:
    from momentcalc import meanfield, sweep

    weights, biases = grid(step)
    points = {"activation": activation, "sigma_w2": weights, "sigma_b2": biases, "digits": digits}
    start_wall, start_cpu = time.perf_counter(), cpu()
    rows = sweep(meanfield, points, jobs=jobs)
    wall, used = time.perf_counter() - start_wall, cpu() - start_cpu
    refused = rows.refused
    decided = [row for row in rows if getattr(row, "decided", False)]
    total = len(rows)
    print(
        f"{activation} --digits {digits} --jobs {jobs}: {total} points "
        f"({len(weights)} x {len(biases)}), {len(refused)} refused, {len(decided)} decided without "
        f"results, {wall:.1f} s wall, {used:.1f} s CPU, {total / used:.1f} points per CPU-second",
        flush=True,
    )
    for row in refused:
        print(f"  refused at {row.inputs.get('sigma_w2')}, {row.inputs.get('sigma_b2')}: {row.message}")
    return not refused


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--activations", default="tanh,erf")
    parser.add_argument("--digits", default="15,30")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--step", default="0.02")
    args = parser.parse_args()
    ok = True
    for activation in args.activations.split(","):
        for digits in (int(d) for d in args.digits.split(",")):
            ok &= run(activation, digits, args.jobs, Fraction(args.step))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
