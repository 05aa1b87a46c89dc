"""Draw the figures the README shows, with momentcalc's own --plot (needs momentcalc[plot]).

    python scripts/make_readme_plots.py

Each figure is the command in PLOTS, run as a user would run it; tests/test_figures.py checks
that the README shows these commands and that the images exist.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (image under docs/, the command line that draws it, without its --plot FILE)
PLOTS = [
    (
        "phase_diagram.png",
        "momentcalc meanfield tanh --sigma-w2 1:4:0.1 --sigma-b2 0:0.3:0.05 --plot-y chi1 --digits 6 -q",
    ),
    (
        "gelu_depth_scale.png",
        "momentcalc meanfield gelu --sigma-w2 1:4:0.1 --sigma-b2 0:0.3:0.05 --plot-y depth_scale_c --digits 6 -q",
    ),
    (
        "postnorm_branch_weights.png",
        "momentcalc postnorm-decay --layers 24 --sigma 0.25,0.5,1,2 --plot-y branch_weights -q",
    ),
]


def main() -> None:
    for image, line in PLOTS:
        args = shlex.split(line)[1:]
        path = ROOT / "docs" / image
        subprocess.run(
            [sys.executable, "-m", "momentcalc", *args, "--plot", str(path)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
