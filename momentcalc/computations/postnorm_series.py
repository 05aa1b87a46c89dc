"""Per-layer weights c·d^m (m = count, count−1, …, 1) as a lazy sequence of mpf.

Post-Norm's branch weights are geometric (seeds 000, 001): F_k's weight in x_L is c·d^(L−k).
At 10^6 layers, a tuple of 10^6 mpf objects formatted one by one with mpmath takes seconds,
so this sequence computes its elements on demand and renders all of them in bulk:

``decimals(digits)``
    Python's ``decimal`` module (C) with interval arithmetic. Lower and upper bounds of c
    and d are rounded outwards, and c·d^(K·i) and d^r are multiplied with directed rounding
    (ROUND_FLOOR for the lower chain, ROUND_CEILING for the upper), so that each element
    m = K·i + r lies between A_lo[i]·B_lo[r] and A_hi[i]·B_hi[r]. Rounding is monotone: when
    both bounds round to the same ``digits``-digit decimal, so does the true value. Where
    they differ (a near-tie, about once in 10^7 elements) the element is computed with
    mpmath and rounded by ``to_decimal``, exactly as the per-element path does.
``doubles()``
    the nearest double of each element; everything below 2^−1075 is 0.0 without work.

Elements are exact where the inputs allow: d^m is evaluated as c·(d²)^(m//2)·d^(m mod 2),
so with d² = 1/2 (sigma = 1) every even power is an exact power of two.
"""

from __future__ import annotations

import bisect
import math
import operator
from collections.abc import Callable, Iterator, Sequence
from itertools import repeat
from typing import overload

import mpmath
from mpmath import mp
from mpmath.libmp import mpf_mul, round_nearest

from ..engine.precision import to_decimal, to_double, working_dps

# Below this many elements the bulk path is not worth its set-up.
BULK_MIN = 256
# Guard digits of the interval chains beyond digits + log10(count).
BULK_GUARD = 8

Parts = Callable[[], tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]]


class GeometricWeights(Sequence[mpmath.mpf]):
    """Element k (0 ≤ k < count) is c·d^(count − k).

    ``parts()`` returns (c, d², d) as mpf at the current ``mp.dps``; it is called at the
    precision each use needs, so the elements are correct to ``digits`` digits (plus guard)
    whatever the depth: ``log10(count)`` extra digits absorb the error of long products.
    """

    def __init__(self, count: int, parts: Parts, digits: int) -> None:
        self._count = count
        self._parts = parts
        self._digits = digits
        self._dps = working_dps(digits) + len(str(count)) + 2

    # -- Sequence ----------------------------------------------------------------------
    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> mpmath.mpf: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[mpmath.mpf, ...]: ...

    def __getitem__(self, index: int | slice) -> mpmath.mpf | tuple[mpmath.mpf, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._count)
            if step != 1:
                return tuple(self[k] for k in range(start, stop, step))
            return tuple(self._run(start, max(start, stop)))
        k = operator.index(index)
        if k < 0:
            k += self._count
        if not 0 <= k < self._count:
            raise IndexError("GeometricWeights index out of range")
        with mp.workdps(self._dps):
            c, square, d = self._parts()
            m = self._count - k
            value = c * square ** (m // 2)
            return value * d if m % 2 else +value

    def __iter__(self) -> Iterator[mpmath.mpf]:
        return self._run(0, self._count)

    def __repr__(self) -> str:
        return f"GeometricWeights(count={self._count}, first={self[0]}, last={self[-1]})"

    def _run(self, start: int, stop: int) -> Iterator[mpmath.mpf]:
        """Elements start … stop−1 by recurrence: the even power times 1/d² every other step.

        The steps use mpmath's raw multiplication at an explicit precision, so the global
        precision is never held across a ``yield`` (and a step costs a third as much)."""
        if start >= stop:
            return
        with mp.workdps(self._dps):
            c, square, d = self._parts()
            prec = mp.prec
            m = self._count - start
            even = (c * square ** (m // 2))._mpf_  # c·(d²)^(m//2)
            inverse_square = (1 / square)._mpf_
        d_raw, make = d._mpf_, mp.make_mpf
        for _ in range(start, stop):
            if m % 2:
                yield make(mpf_mul(even, d_raw, prec, round_nearest))
            else:
                yield make(even)
                even = mpf_mul(even, inverse_square, prec, round_nearest)
            m -= 1

    # -- bulk rendering ------------------------------------------------------------------
    def doubles(self) -> list[float | None]:
        """``to_double`` of every element; elements below 2^−1075 are 0.0 without evaluation."""
        count = self._count
        with mp.workdps(30):
            c, _square, d = self._parts()
            smallest = mpmath.ldexp(1, -1076)
            if d >= 1 or c * d**count >= smallest:
                nonzero = count
            else:
                # c·d^m ≥ 2^−1076 ⇔ m ≤ log(2^−1076 / c) / log(d); one extra for rounding.
                bound = int(mpmath.floor(mpmath.log(smallest / c) / mpmath.log(d))) + 1
                nonzero = max(0, min(count, bound))
        normal = _binary_doubles(self, nonzero)  # m = 1, 2, … while normal doubles
        # The rest (subnormal: rounded once, to fewer bits) through the exact elements.
        tail = [to_double(v) for v in self._run(count - nonzero, count - len(normal))]
        normal.reverse()
        return [0.0] * (count - nonzero) + tail + normal

    def decimals(self, digits: int) -> list[str]:
        """``to_decimal(element, digits)`` of every element, in bulk (see the module docstring).

        ``digits`` may not exceed the digits the sequence was built for."""
        if digits > self._digits:
            raise ValueError(f"built for {self._digits} digits, asked for {digits}")
        if self._count < BULK_MIN:
            return [to_decimal(v, digits) for v in self]
        return _bulk_decimals(self, digits)


def _binary_doubles(weights: GeometricWeights, count: int) -> list[float | None]:
    """Doubles of c·d^m for m = 1, 2, …, count, stopping before the first subnormal one.

    A binary fixed-point recurrence on Python integers: the value is M·2^E with M of
    ``bits`` bits, and each step multiplies M by d's mantissa (``bits`` bits) and drops
    ``bits`` bits.
    After count ≤ 2^n steps the relative error is below count·2^(2−bits) = 2^−90, so
    ``float(M)`` (correctly rounded) is the nearest double unless the value lies within
    2^−90 of a midpoint between doubles, as likely as for ``to_double`` of an mpf.
    """
    if count == 0:
        return []
    bits = 93 + count.bit_length()
    with mp.workprec(bits + 30):
        c, _square, d = weights._parts()
        d_mantissa, d_exponent = mpmath.frexp(d)  # d = d_mantissa·2^d_exponent
        step = int(mpmath.nint(mpmath.ldexp(d_mantissa, bits)))
        mantissa, exponent = mpmath.frexp(c * d)
        value = int(mpmath.nint(mpmath.ldexp(mantissa, bits)))
    shift = exponent - bits  # c·d = value·2^shift
    out: list[float | None] = []
    for _ in range(count):
        top = shift + value.bit_length()  # 2^(top−1) ≤ value·2^shift < 2^top
        if top <= -1021:
            break
        try:
            out.append(math.ldexp(float(value), shift))
        except OverflowError:  # beyond the largest double, as to_double says
            out.append(None)
        value = value * step >> bits
        shift += d_exponent
        lost = bits - value.bit_length()
        if lost > 0:
            value <<= lost
            shift -= lost
    return out


def _bulk_decimals(weights: GeometricWeights, digits: int) -> list[str]:
    import decimal
    from decimal import Decimal

    count = len(weights)
    prec = digits + len(str(count)) + BULK_GUARD
    limits = {"Emin": decimal.MIN_EMIN, "Emax": decimal.MAX_EMAX, "traps": []}
    down = decimal.Context(prec=prec, rounding=decimal.ROUND_FLOOR, **limits)
    up = decimal.Context(prec=prec, rounding=decimal.ROUND_CEILING, **limits)
    # mpmath's nstr rounds half up; so does this context, and exact ties agree.
    out = decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_UP, **limits)

    with mp.workdps(prec + 10):
        c, _square, d = weights._parts()
        c_text, d_text = mpmath.nstr(c, prec + 5), mpmath.nstr(d, prec + 5)
    # The texts are within a unit of their last digit; one unit at prec digits covers that.
    c_lo, c_hi = down.next_minus(down.plus(Decimal(c_text))), up.next_plus(up.plus(Decimal(c_text)))
    d_lo, d_hi = down.next_minus(down.plus(Decimal(d_text))), up.next_plus(up.plus(Decimal(d_text)))
    d_lo = max(d_lo, Decimal(0))

    block = max(1, math.isqrt(count))
    b_lo, b_hi = [d_lo], [d_hi]  # d^r for r = 1 … block
    for _ in range(block - 1):
        b_lo.append(down.multiply(b_lo[-1], d_lo))
        b_hi.append(up.multiply(b_hi[-1], d_hi))
    lo: list[Decimal] = []
    hi: list[Decimal] = []
    a_lo, a_hi = c_lo, c_hi  # c·d^(block·i)
    multiply = out.multiply
    for first in range(1, count + 1, block):  # elements m = first … first + block − 1
        size = min(block, count + 1 - first)
        lo.extend(map(multiply, repeat(a_lo, size), b_lo[:size]))
        hi.extend(map(multiply, repeat(a_hi, size), b_hi[:size]))
        a_lo, a_hi = down.multiply(a_lo, b_lo[-1]), up.multiply(a_hi, b_hi[-1])

    text, redo = _texts(lo, digits, monotone=d_hi < up.subtract(1, Decimal(f"1e-{digits + 5}")))
    agree = list(map(operator.eq, lo, hi))
    index = -1
    while True:
        try:
            index = agree.index(False, index + 1)
        except ValueError:
            break
        redo.append(index)
    for j in redo:
        text[j] = to_decimal(weights[count - 1 - j], digits)
    text.reverse()  # element k is m = count − k
    return text


def _texts(values: list, digits: int, monotone: bool) -> tuple[list[str], list[int]]:
    """to_decimal's text of each ``digits``-digit Decimal, and the indices left to to_decimal.

    to_decimal (mpmath's nstr) writes a value with leading digit at 10^a in fixed notation
    when −4 < a < digits (with no point at all when a = digits − 1) and in scientific notation
    otherwise; ``str`` matches it for −4 < a < digits − 1 and ``format(x, "e")`` for a ≤ −4.
    When the values do not grow (``monotone``, guaranteed when d is clearly below 1) the
    three cases are three runs, found by bisection; so they are when all values fall in one
    case; otherwise each value is looked at.
    """
    fixed = lambda x: x.adjusted() < digits - 1  # noqa: E731
    scientific = lambda x: x.adjusted() <= -4  # noqa: E731
    if not monotone:
        # Both keys are monotone in the value: if the extremes share them, every value does.
        low, high = min(values), max(values)
        monotone = (fixed(low), scientific(low)) == (fixed(high), scientific(high))
    if not monotone:
        keys = [(fixed(x), scientific(x)) for x in values]
        monotone = keys == sorted(keys)
    if not monotone:
        text, redo = [], []
        for j, x in enumerate(values):
            if not fixed(x):
                text.append("")
                redo.append(j)
            else:
                text.append(_scientific(x, digits) if scientific(x) else str(x))
        return text, redo
    start_fixed = bisect.bisect_left(values, True, key=fixed)
    start_sci = bisect.bisect_left(values, True, key=scientific)
    text = [""] * start_fixed
    text.extend(map(str, values[start_fixed:start_sci]))
    text.extend(map(format, values[start_sci:], repeat("e")))
    return text, list(range(start_fixed))


def _scientific(value, digits: int) -> str:
    return format(value, "e")
