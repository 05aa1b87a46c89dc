"""Whole-process timing of ``momentcalc audit`` on a generated tree, against one ``tokenize``
pass over the same Python files, printed as ratios.

Not part of the test suite (timed tests are flaky); run it by hand:

    python tests/bench/bench_audit.py [--files 2000] [--large 10000] [--runs 3] [--keep DIR]

The tree is written by ``make_tree`` (seeded): Python modules of the shapes model code has —
imports, classes, configs with learning rates and epsilons, initializers, dicts of activation
gammas (some right, some timm's Monte Carlo estimates), arrays of generated numbers, docstrings
and comments with numbers — and, one file in ten, JSON configs, Markdown notes and notebooks.
Reported for a 2,000-file tree and a 10,000-file tree: the CPU seconds (user + system of the
child processes) of each, median of ``--runs`` taken in turns, and audit's ratio to the tokenize
pass (the targets: at most 5 on the 2,000-file tree; the 10,000-file tree in at most 10 s of
CPU). On a busy machine CPU seconds grow too; the ratio, both timed alike, moves less.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TOKENIZE_PASS = """
import os, sys, tokenize
for root, dirs, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(".py"):
            with open(os.path.join(root, name), encoding="utf-8") as handle:
                for _ in tokenize.generate_tokens(handle.readline):
                    pass
"""

ACTIVATIONS = ["relu", "gelu", "silu", "tanh", "sigmoid", "elu", "selu", "softplus", "mish", "leaky_relu"]
GAMMAS = {  # a gamma table as model code writes it: right, timm's estimate, or a few digits
    "relu": ["1.7128585504496627", "1.7139588594436646", "1.71"],
    "gelu": ["1.7015043497085571", "1.70"],
    "tanh": ["1.5939117670059204", "1.59"],
    "silu": ["1.7881293296813965", "1.79"],
}


def _module(rng: random.Random, index: int) -> str:
    lines = [
        f'"""Model part {index}: blocks, their initialization and a config (generated for a benchmark)."""',
        "",
        "from __future__ import annotations",
        "",
        "import math",
        "import torch",
        "from torch import nn",
        "import torch.nn.functional as F",
        "",
        f"LEARNING_RATE = {rng.choice(['3e-4', '1e-3', '0.001', '6e-4'])}",
        f"WEIGHT_DECAY = {rng.choice(['0.05', '0.1', '0.01'])}",
        f"EPS = {rng.choice(['1e-5', '1e-6', '1e-8'])}",
        f"DROPOUT = {rng.choice(['0.1', '0.0', '0.2'])}",
        "",
    ]
    for block in range(rng.randint(2, 6)):
        activation = rng.choice(ACTIVATIONS)
        width = rng.choice([256, 512, 768, 1024])
        lines += [
            "",
            f"class Block{block}(nn.Module):",
            f'    """A residual block with {activation}; std {rng.random():.4f} at init."""'
            if rng.random() < 0.05
            else f'    """A residual block; its output std is {rng.random():.4f} at init."""',
            "",
            f"    def __init__(self, dim: int = {width}, mlp_ratio: float = {rng.choice(['4.0', '2.66', '8 / 3'])}) -> None:",
            "        super().__init__()",
            "        self.fc1 = nn.Linear(dim, int(dim * mlp_ratio))",
            "        self.fc2 = nn.Linear(int(dim * mlp_ratio), dim)",
            f"        self.scale = {rng.choice(['0.5', '1.0', '0.1', '1e-4'])}",
            f"        nn.init.trunc_normal_(self.fc1.weight, std={rng.choice(['0.02', '.02', '0.01'])})",
            f"        nn.init.normal_(self.fc2.weight, std=0.02 / math.sqrt(2 * {rng.randint(6, 48)}))",
            "",
            "    def forward(self, x: torch.Tensor) -> torch.Tensor:",
            f"        # {activation}, then the projection; eps {rng.choice(['1e-5', '1e-6'])}",
            f"        y = F.{activation}(self.fc1(x))"
            if activation != "leaky_relu"
            else "        y = F.leaky_relu(self.fc1(x), 0.2)",
            f"        return x + self.scale * self.fc2(y) * {rng.choice(['1.0', '0.5', '2.0', '1.0', '0.7071067811865476'] if rng.random() < 0.1 else ['1.0'])}",
        ]
    if rng.random() < 0.05:
        name = rng.choice(list(GAMMAS))
        lines += ["", "_nonlin_gamma = dict("]
        for key, values in GAMMAS.items():
            value = rng.choice(values) if key == name else values[-1]
            lines.append(f"    {key}={value},")
        lines.append(")")
    if rng.random() < 0.3:
        numbers = ", ".join(f"{rng.uniform(-2, 2):.17g}" for _ in range(rng.randint(8, 120)))
        lines += ["", f"REFERENCE_OUTPUT = [{numbers}]"]
    lines += [
        "",
        "CONFIG = {",
        f'    "lr": {rng.choice(["3e-4", "1e-4"])}, "betas": (0.9, 0.999), "eps": 1e-8,',
        f'    "warmup": {rng.randint(100, 5000)}, "label_smoothing": 0.1, "grad_clip": 1.0,',
        f'    "init_std": {rng.choice(["0.02", "0.006", "0.0125"])}, "temperature": {rng.random():.6f},',
        "}",
    ]
    return "\n".join(lines) + "\n"


def _notebook(rng: random.Random) -> str:
    cells = [
        {
            "cell_type": "markdown",
            "metadata": {},
            "source": ["# Experiment\n", f"Accuracy {rng.random():.4f}\n"],
        },
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [],
            "source": [
                "import torch\n",
                f"lr = {rng.choice(['3e-4', '1e-3'])}\n",
                "selu_scale = 1.0507009873554805",
            ],
        },
    ]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def make_tree(root: Path, files: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    for index in range(files):
        package = root / f"pkg{index // 100:03d}" / f"sub{index // 20 % 5}"
        package.mkdir(parents=True, exist_ok=True)
        kind = index % 10
        if kind == 7:
            config = {
                "model": {"dim": 512, "init_std": 0.02, "dropout": 0.1, "id": f"{rng.getrandbits(64):x}"},
                "optimizer": {"lr": 3e-4, "betas": [0.9, 0.95]},
            }
            (package / f"config_{index}.json").write_text(json.dumps(config, indent=2))
        elif kind == 8:
            (package / f"notes_{index}.md").write_text(
                f"# Run {index}\n\nloss {rng.random():.5f}, lr 3e-4, std 0.02\n"
            )
        elif kind == 9 and index % 20 == 9:
            (package / f"explore_{index}.ipynb").write_text(_notebook(rng))
        else:
            (package / f"module_{index}.py").write_text(_module(rng, index))


def _cpu(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) of a child process and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _tree(base: Path | None, scratch: Path, files: int) -> Path:
    root = (base if base is not None else scratch) / f"tree{files}"
    if not root.exists() or not any(root.iterdir()):
        root.mkdir(parents=True, exist_ok=True)
        make_tree(root, files)
    return root


def _measure(root: Path, runs: int) -> tuple[float, float]:
    """(tokenize pass, audit): median CPU seconds of ``runs`` runs, taken in turns."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    tokenize_times, audit_times = [], []
    for _ in range(runs):
        tokenize_times.append(_cpu([sys.executable, "-c", TOKENIZE_PASS, str(root)]))
        audit_times.append(_cpu([sys.executable, "-m", "momentcalc", "audit", str(root), "--json"], env))
    return statistics.median(tokenize_times), statistics.median(audit_times)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=2000, help="the tree timed against tokenize")
    parser.add_argument("--large", type=int, default=10_000, help="the tree timed in CPU seconds (0: none)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", help="write the trees here (and keep them for the next run)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(args.keep) if args.keep else None
        for files in [args.files, *([args.large] if args.large else [])]:
            root = _tree(base, Path(scratch), files)
            t, a = _measure(root, args.runs)
            paths = [p for p in root.rglob("*") if p.is_file()]
            print(f"tree: {len(paths)} files, {sum(p.stat().st_size for p in paths) / 1e6:.1f} MB")
            print(f"  one tokenize pass (Python files): {t:.2f} s CPU (median of {args.runs})")
            print(f"  momentcalc audit --json:          {a:.2f} s CPU (median of {args.runs})")
            print(f"  ratio: {a / t:.2f}x one tokenize pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
