"""DeepNet's alpha (residual multiplier) and beta (init gain) for each architecture, as data.

Wang et al., 2022, DeepNet: Scaling Transformers to 1,000 Layers (Table 1, and the official code,
torchscale's encoder.py and decoder.py): with N encoder and M decoder layers,

    encoder-only     alpha = (2N)^(1/4)              beta = (8N)^(-1/4)
    decoder-only     alpha = (2M)^(1/4)              beta = (8M)^(-1/4)
    encoder-decoder  encoder alpha = 0.81 (N^4 M)^(1/16),  beta = 0.87 (N^4 M)^(-1/16)
                     decoder alpha = (3M)^(1/4),           beta = (12M)^(-1/4)

beta multiplies the init of the value and output projections and of the feed-forward weights.
0.81 and 0.87 are the paper's published constants (torchscale writes the encoder-decoder beta as
1/1.15, 0.8696…; the verify registry compares the two).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from ..engine.balls import exact_ball
from ..engine.numbers import to_mpf

ARCHES = ("encoder", "decoder", "encdec")
# The DeepNet paper's constants for the encoder of an encoder-decoder (Wang et al., 2022, Table 1).
ENCDEC_ALPHA = Fraction("0.81")
ENCDEC_BETA = Fraction("0.87")


@dataclass(frozen=True)
class Root:
    """coefficient · radicand^(1/index), exactly."""

    coefficient: Fraction
    radicand: Fraction
    index: int
    text: str  # the formula as the paper writes it

    def exact(self) -> Fraction | None:
        """The value when it is rational, else None."""
        root = rational_root(self.radicand, self.index)
        return None if root is None else self.coefficient * root

    def squared(self) -> Root:
        """This root squared (index halved when it is even, else radicand squared)."""
        if self.index % 2 == 0:
            return Root(self.coefficient**2, self.radicand, self.index // 2, f"({self.text})^2")
        return Root(self.coefficient**2, self.radicand**2, self.index, f"({self.text})^2")

    def ball(self) -> Any:
        """The value as an Arb ball at the current precision."""
        radicand = exact_ball(self.radicand)
        root = radicand.sqrt() if self.index == 2 else radicand.root(self.index)
        return root if self.coefficient == 1 else exact_ball(self.coefficient) * root

    def mpf(self) -> Any:
        return to_mpf(self.coefficient) * mpmath.root(to_mpf(self.radicand), self.index)


def rational_root(value: Fraction, index: int) -> Fraction | None:
    """value^(1/index) when it is rational, else None."""

    def integer_root(n: int) -> int | None:
        r = round(n ** (1 / index)) if n < 2**1000 else _iroot(n, index)
        for candidate in (r - 1, r, r + 1):
            if candidate >= 0 and candidate**index == n:
                return candidate
        return None

    p, q = integer_root(value.numerator), integer_root(value.denominator)
    return None if p is None or q is None else Fraction(p, q)


def _iroot(n: int, k: int) -> int:
    x = 1 << ((n.bit_length() + k - 1) // k)
    while True:
        y = ((k - 1) * x + n // x ** (k - 1)) // k
        if y >= x:
            return x
        x = y


def deepnet(arch: str, layers: int, decoder_layers: int | None) -> dict[str, Root]:
    """alpha and beta of DeepNet's configuration ``arch`` (``layers`` is N for encoder and
    encdec, M for decoder), and for encdec its decoder's."""
    n = Fraction(layers)
    if arch in ("encoder", "decoder"):
        letter = "N" if arch == "encoder" else "M"
        return {
            "deepnorm_alpha": Root(Fraction(1), 2 * n, 4, f"(2{letter})^(1/4)"),
            "deepnorm_beta": Root(Fraction(1), 1 / (8 * n), 4, f"(8{letter})^(-1/4)"),
        }
    if decoder_layers is None:
        raise TypeError("an encoder-decoder needs decoder_layers")
    m = Fraction(decoder_layers)
    return {
        "deepnorm_alpha": Root(ENCDEC_ALPHA, n**4 * m, 16, "0.81*(N^4*M)^(1/16)"),
        "deepnorm_beta": Root(ENCDEC_BETA, 1 / (n**4 * m), 16, "0.87*(N^4*M)^(-1/16)"),
        "decoder_alpha": Root(Fraction(1), 3 * m, 4, "(3M)^(1/4)"),
        "decoder_beta": Root(Fraction(1), 1 / (12 * m), 4, "(12M)^(-1/4)"),
    }


__all__ = ["ARCHES", "Root", "deepnet", "math", "rational_root"]
