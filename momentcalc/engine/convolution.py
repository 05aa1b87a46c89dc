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

Where only every s-th coefficient is wanted (the lattice rule's sums at its nodes), the product is
taken residue by residue: s products of 1/s the length, the same work in 1/s the memory (the whole
product of the 3431-bit, 180000-term convolutions of ``meanfield tanh --sigma-w2 20 --digits 1000``
needed 2.3 GB, more than the command line's memory cap), and faster (each fits the caches).

FLINT's product cannot be interrupted and, where an allocation fails, aborts the process. Before
a whole product, ``check_room`` estimates its peak memory (PRODUCT_OVERHEAD times its size) and,
where the process has an address-space limit (RLIMIT_AS, set by the command line's child
process) it would not fit in, raises ``NeedsTooMuchMemory`` (a MemoryError) up front.
"""

from __future__ import annotations

from collections.abc import Sequence

import os

from flint import arb, ctx, fmpz, fmpz_poly

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


def _fixed(values: Sequence[arb], bits: int) -> tuple[list[fmpz], arb]:
    """(⌊mid·2^bits⌋ for each ball, an upper bound of rad + 2^−bits over them). The integers
    stay FLINT's (fmpz): a Python int of 3400 bits costs a conversion each way, and building
    the product's polynomials from them about three times as long."""
    out: list[fmpz] = []
    append = out.append
    for mantissa, exponent in map(arb.man_exp, map(arb.mid, values)):
        shift = exponent + bits
        append(mantissa << shift if shift >= 0 else mantissa >> -shift)  # floors, as int's
    radius = max(map(arb.rad, values), default=arb(0))  # exact balls: compared exactly
    return out, arb((radius + arb(2) ** -bits).upper())


class FixedWeights:
    """Weights w_k (k = 0..K−1) in fixed point with ``bits`` fractional bits, for several
    convolutions with them."""

    def __init__(self, weights: Sequence[arb], bits: int) -> None:
        self.bits = bits
        integers, self.error = _fixed(weights, bits)
        self._set(integers)

    def _set(self, integers: list[fmpz]) -> None:
        """The integers' derived fields: the count, the largest's bits and Σ|W_k|/2^F (weights of one
        sign, as the Gaussian ones are, summed as they are). The polynomial is built on first use
        (``poly``): the residue-by-residue products (``_decimated``) build their own from slices."""
        self._integers: list[fmpz] | None = integers
        self._poly: fmpz_poly | None = None
        self.count = len(integers)
        self.largest_bits = _largest(integers).bit_length()
        low = min(integers, default=0)
        total = sum(integers) if low >= 0 else sum(map(abs, integers))
        self.total = arb(total) * arb(2) ** -self.bits

    @property
    def poly(self) -> fmpz_poly:
        if self._poly is None:
            self._poly = fmpz_poly(self._coefficients())
        return self._poly

    @classmethod
    def from_integers(cls, integers: Sequence[int], bits: int, error: arb) -> FixedWeights:
        """Weights given in fixed point: w_k within ``error`` of integers[k]/2^bits."""
        self = cls.__new__(cls)
        self.bits = bits
        self.error = arb(error.upper())
        self._set([fmpz(v) for v in integers])
        return self

    @classmethod
    def symmetric(cls, half: Sequence[arb], bits: int) -> FixedWeights:
        """The weights half[K−1], ..., half[1], half[0], half[1], ..., half[K−1] (even about the
        middle): the same integers and bounds as ``FixedWeights`` of that list, each ball
        converted once."""
        self = cls.__new__(cls)
        self.bits = bits
        integers, self.error = _fixed(half, bits)  # the same balls: the same widest radius
        self._set(integers[:0:-1] + integers)
        return self

    def convolve(
        self, values: Sequence[arb], positions: Sequence[int], groups: Sequence[int] | None = None
    ) -> list[arb]:
        """Σ_k w_k·values[n − k] for each n in ``positions`` (coefficients of the product
        polynomial), as balls that hold the exact sums for every value in its ball.

        ``groups``: the indices where a new group of values starts (after 0, increasing), each
        group's error E_g (its widest radius + 2^−F) charged only to the weights that meet it:
        output n's bound has Σ_g E_g·Σ_{k: n−k in g}|W_k|/2^F (prefix sums of the weights' integers)
        in place of E·Σ_k|W_k|/2^F, so values taken at fewer bits where the weights that reach
        them are small (a lattice rule's far points) do not widen every output."""
        bits = self.bits
        if groups:
            return self._grouped(values, positions, groups)
        integers, error_g = _fixed(values, bits)
        largest = arb(_largest(integers)) * arb(2) ** -bits
        error = error_g * (self.total + self.count * self.error) + self.error * self.count * largest
        radius = arb(error.upper())
        unit = arb(2) ** (-2 * bits)
        stride = _stride(positions)
        if stride > 1:
            return [arb(y) * unit + arb(0, radius) for y in self._decimated(integers, positions, stride)]
        check_room(
            self.count,
            len(integers),
            self.largest_bits,
            _largest(integers).bit_length(),
        )
        product = self.poly * fmpz_poly(integers)
        return [arb(product[n]) * unit + arb(0, radius) for n in positions]

    def _grouped(self, values: Sequence[arb], positions: Sequence[int], groups: Sequence[int]) -> list[arb]:
        """``convolve`` with the values' errors by group (see there)."""
        bits = self.bits
        edges = [0, *groups, len(values)]
        integers: list[fmpz] = []
        errors: list[arb] = []
        for low, high in zip(edges, edges[1:]):
            part, error_g = _fixed(values[low:high], bits)
            integers += part
            errors.append(error_g)
        largest = arb(_largest(integers)) * arb(2) ** -bits
        widest = max(errors)  # (exact balls: compared exactly)
        common = widest * self.count * self.error + self.error * self.count * largest
        # prefix[t] = Σ_{k<t} |W_k| (exact integers)
        prefix = [fmpz(0)]
        for w in self._coefficients():
            prefix.append(prefix[-1] + abs(w))
        count = self.count
        unit_w = arb(2) ** -bits
        unit = arb(2) ** (-2 * bits)
        stride = _stride(positions)
        if stride > 1:
            sums = self._decimated(integers, positions, stride)
        else:
            check_room(count, len(integers), self.largest_bits, _largest(integers).bit_length())
            product = self.poly * fmpz_poly(integers)
            sums = [product[n] for n in positions]
        radii = []
        with ctx.workprec(64):  # upper bounds need few bits (Arb's balls round outward)
            spans = list(zip(edges, edges[1:]))
            for n in positions:
                error = common
                for (low, high), error_g in zip(spans, errors):
                    # the weights k with low ≤ n − k < high: n − high < k ≤ n − low, within 0..count−1
                    first, last = max(n - high + 1, 0), min(n - low, count - 1)
                    if first <= last:
                        error += error_g * (arb(prefix[last + 1] - prefix[first]) * unit_w)
                radii.append(arb(error.upper()))
        return [arb(y) * unit + arb(0, radius) for y, radius in zip(sums, radii)]

    def _decimated(self, integers: list[fmpz], positions: Sequence[int], stride: int) -> list[fmpz]:
        """The product's coefficients at positions p₀ + s·j (j = 0..J−1, s = ``stride``) exactly,
        by residues: with k = r + s·u, y_j = Σ_k W_k·G_{p₀+s·j−k} = Σ_r (W⁽ʳ⁾ ∗ G⁽ᵖ⁾)[o + j],
        W⁽ʳ⁾_u = W_{r+s·u}, G⁽ᵖ⁾_v = G_{ρ+s·v}, ρ = (p₀ − r) mod s, o = (p₀ − r − ρ)/s: s products
        of 1/s the length (the same work) and 1/s the memory, each giving the J coefficients wanted
        (the whole product would hold s·J of them: 2.3 GB at the 3431-bit, 180000-term
        convolutions of meanfield tanh --sigma-w2 20 --digits 1000)."""
        weights = self._coefficients()
        first, count = positions[0], len(positions)
        out = [fmpz(0)] * count
        for r in range(min(stride, len(weights))):
            w_part = weights[r::stride]
            rho = (first - r) % stride
            g_part = integers[rho::stride]
            if not g_part or not any(w_part):
                continue
            offset = (first - r - rho) // stride
            product = fmpz_poly(w_part) * fmpz_poly(g_part)
            top = len(w_part) + len(g_part) - 2
            for j in range(max(0, -offset), min(count, top - offset + 1)):
                out[j] += product[offset + j]
        return out

    def _coefficients(self) -> list[fmpz]:
        assert self._integers is not None
        return self._integers


def _largest(integers: Sequence[fmpz]) -> fmpz:
    """max |v| (0 for none), by the builtins' loops."""
    if not integers:
        return fmpz(0)
    return max(max(integers), -min(integers))


def _stride(positions: Sequence[int]) -> int:
    """s where ``positions`` are p₀, p₀ + s, p₀ + 2s, ... with s >= 2 and at least two of them; else 0."""
    if len(positions) < 2:
        return 0
    stride = positions[1] - positions[0]
    if stride < 2 or any(b - a != stride for a, b in zip(positions, positions[1:])):
        return 0
    return stride


__all__ = ["FixedWeights"]
