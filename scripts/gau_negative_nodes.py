"""How many Gauss–Hermite nodes the relu's part of gau-scale's full estimate needs (the
measurement behind ``computations/gau/negative.py``'s ``NODES``).

For each configuration (activation, λ, s) where the relu removes at least ``--share`` of E[O²]
(below, the removed part is a far tail that no rule of these sizes resolves, and it moves
nothing printed), the full estimate E[O²] and the removed part of E[A_ij] are computed with the
rules under test and with a reference rule; printed: the largest relative differences over all
configurations, with where they occur.

    python scripts/gau_negative_nodes.py [--rules 10,10,4 10,10,10] [--against 24,24,24] [--share 0.001]

Takes about a minute (the 24·24·24 reference has 13824 nodes a configuration).
"""

from __future__ import annotations

import argparse
import math

import mpmath

from momentcalc.computations.gau import full, negative

ACTIVATIONS = (
    "swish",
    "gelu",
    "elu",
    "selu",
    "mish",
    "gelu_tanh",
    "tanh",
    "softsign",
    "x*tanh(x)-0.3",
    "leaky_relu",
)
LAMBDAS = (1.0, 0.02 * math.sqrt(768), 0.3, 2.0)
SIZES = (8, 32, 128, 512)


def rule(text: str) -> tuple[int, int, int]:
    nodes = tuple(int(part) for part in text.split(","))
    if len(nodes) != 3:
        raise argparse.ArgumentTypeError("three node counts: along T1, T2 given T1, T3 given (T1, T2)")
    return nodes  # type: ignore[return-value]


def estimate(activation: str, lam: float, s: int, nodes: tuple[int, int, int]) -> full.FullEstimate:
    original = full.negative_parts
    full.negative_parts = lambda m, size: original(m, size, nodes)  # type: ignore[assignment]
    try:
        return full.full_estimate(activation, None, s, 512, 768, mpmath.mpf(lam))
    finally:
        full.negative_parts = original  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=rule, nargs="+", default=[negative.NODES, (10, 10, 10)])
    parser.add_argument("--against", type=rule, default=(24, 24, 24))
    parser.add_argument("--share", type=float, default=1e-3, help="the smallest relu share of E[O^2] counted")
    args = parser.parse_args()
    worst = {nodes: {"E[O^2]": (0.0, ""), "removed E[A_ij]": (0.0, "")} for nodes in args.rules}
    count = 0
    for activation in ACTIVATIONS:
        for lam in LAMBDAS:
            for s in SIZES:
                reference = estimate(activation, lam, s, args.against)
                if reference.relu_share < args.share:
                    continue
                count += 1
                where = f"{activation} lambda={lam:.3g} s={s} (relu share {reference.relu_share:.2%})"
                for nodes in args.rules:
                    mine = estimate(activation, lam, s, nodes)
                    for name, a, b in (
                        ("E[O^2]", mine.mean_square, reference.mean_square),
                        ("removed E[A_ij]", mine.offdiag_removed, reference.offdiag_removed),
                    ):
                        diff = float(abs(a / b - 1))
                        if diff > worst[nodes][name][0]:
                            worst[nodes][name] = (diff, where)
    print(
        f"{count} configurations where the relu removes at least {args.share:.1%} of E[O^2]; "
        f"against {args.against} ({len(negative._rule(args.against))} nodes):"
    )
    for nodes, found in worst.items():
        for name, (diff, where) in found.items():
            print(
                f"  {nodes} ({len(negative._rule(nodes))} nodes): {name} differs by at most {diff:.2e} at {where}"
            )


if __name__ == "__main__":
    main()
