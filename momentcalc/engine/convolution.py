"""Discrete convolutions of Arb balls by exact integer polynomial multiplication (FLINT's
``fmpz_poly``), with a proven error bound: the lattice trapezoidal rule's inner sums
(``engine.bivariate_balls``) are one long convolution of function values with Gaussian weights.

Each ball v is replaced by the integer V = ⌊mid(v)·2^F⌋, so v = V/2^F + ε with
|ε| ≤ rad(v) + 2^−F =: E (per sequence, the largest). For y_j = Σ_k w_k·g_{j−k} over K terms,

    y_j − Σ_k W_k·G_{j−k}/2^{2F} = Σ_k (W_k/2^F)·ε_g + ε_w·(G_{j−k}/2^F) + ε_w·ε_g,

so |error| ≤ E_g·Σ_k|W_k|/2^F + E_w·K·max|G|/2^F + K·E_g·E_w, the same bound for every j.
The integer product is exact; only the final division by 2^{2F} rounds, inside Arb.

Arb's own ``arb_poly`` multiplication keeps a radius per coefficient and splits the
polynomials into blocks by magnitude; here one integer product serves the whole convolution,
about three times faster at a thousand digits.

FLINT's product cannot be interrupted and, where an allocation fails, aborts the process. Before
it, ``check_room`` estimates its peak memory (PRODUCT_OVERHEAD times the product's size: 2.4 GB
for the 3431-bit, 160000-term convolutions of a chaotic ``meanfield tanh --digits 1000``) and,
where the process has an address-space limit (RLIMIT_AS, set by the command line's child
process) it would not fit in, raises ``NeedsTooMuchMemory`` (a MemoryError) up front.
"""

from __future__ import annotations

from collections.abc import Sequence

import os

from flint import arb, fmpz_poly

# Peak bytes of an fmpz_poly product per byte of its coefficients (FLINT's FFT scratch; measured
# 6.5-7 at 60000-170000 terms of 1700-3400 bits).
PRODUCT_OVERHEAD = 8


class NeedsTooMuchMemory(MemoryError):
    """A product would not fit in the memory this process may still take."""


def room_bytes() -> int | None:
    """Bytes of address space left under this process's RLIMIT_AS; None without a limit."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/statm", encoding="ascii") as statm:
            used = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError):
        return None
    return soft - used


def product_bytes(length_a: int, length_b: int, bits_a: int, bits_b: int) -> int:
    """The estimated peak memory of the product of two integer polynomials with these lengths
    and coefficient sizes (bits)."""
    terms = length_a + length_b - 1
    coefficient_bits = bits_a + bits_b + max(1, min(length_a, length_b)).bit_length() + 64
    return PRODUCT_OVERHEAD * terms * coefficient_bits // 8


def check_room(length_a: int, length_b: int, bits_a: int, bits_b: int) -> None:
    """Raise NeedsTooMuchMemory if the product would not fit under the address-space limit."""
    need = product_bytes(length_a, length_b, bits_a, bits_b)
    room = room_bytes()
    if room is not None and need > room:
        raise NeedsTooMuchMemory(
            f"a polynomial product would need about {need / 2**30:.2g} GiB of memory, "
            f"{max(room, 0) / 2**30:.2g} GiB are left"
        )


def _fixed(values: Sequence[arb], bits: int) -> tuple[list[int], arb]:
    """(⌊mid·2^bits⌋ for each ball, an upper bound of rad + 2^−bits over them)."""
    out = []
    radius = arb(0)
    for v in values:
        mantissa, exponent = v.mid().man_exp()
        shift = int(exponent) + bits
        m = int(mantissa)
        out.append(m << shift if shift >= 0 else m >> -shift)
        r = v.rad()
        if r > radius:
            radius = arb(r)
    return out, arb((radius + arb(2) ** -bits).upper())


class FixedWeights:
    """Weights w_k (k = 0..K−1) in fixed point with ``bits`` fractional bits, for several
    convolutions with them."""

    def __init__(self, weights: Sequence[arb], bits: int) -> None:
        self.bits = bits
        integers, self.error = _fixed(weights, bits)
        self.poly = fmpz_poly(integers)
        self.count = len(integers)
        self.largest_bits = max((abs(w).bit_length() for w in integers), default=0)
        self.total = arb(sum(abs(w) for w in integers)) * arb(2) ** -bits  # Σ|W_k|/2^F

    def convolve(self, values: Sequence[arb], positions: Sequence[int]) -> list[arb]:
        """Σ_k w_k·values[n − k] for each n in ``positions`` (coefficients of the product
        polynomial), as balls that hold the exact sums for every value in its ball."""
        bits = self.bits
        integers, error_g = _fixed(values, bits)
        largest = arb(max(abs(v) for v in integers)) * arb(2) ** -bits
        error = error_g * (self.total + self.count * self.error) + self.error * self.count * largest
        radius = arb(error.upper())
        check_room(
            self.count,
            len(integers),
            self.largest_bits,
            max((abs(v).bit_length() for v in integers), default=0),
        )
        product = self.poly * fmpz_poly(integers)
        unit = arb(2) ** (-2 * bits)
        return [arb(product[n]) * unit + arb(0, radius) for n in positions]


__all__ = ["FixedWeights"]
