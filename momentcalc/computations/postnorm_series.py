"""Per-layer weights c·d^m (m = count, count−1, …, 1) as a lazy sequence of mpf.

Post-Norm's branch weights are geometric (Su 2021, Transformer initialization; Su 2021, BERT's 0.02): F_k's weight in x_L is c·d^(L−k).
At 10^6 layers, a tuple of 10^6 mpf objects formatted one by one with mpmath takes seconds,
so this sequence computes its elements on demand and renders all of them in bulk:

``decimals(digits)``
    correctly rounded, half away from zero (engine/rounding's rule), and proven: each element
    is bracketed by two products of factors taken from Arb balls and carried with guard digits
    in Python's ``decimal`` module (C) with directed rounding (``_bulk_decimals``); where the
    two round alike that is the answer, and the rare element near a tie is decided exactly or
    with Arb balls (``proven_text``). Short sequences are rounded from balls element by element.
``doubles()``
    the nearest double of each element; everything below 2^−1075 is 0.0 without work.

Elements are exact where the inputs allow: d^m is evaluated as c·(d²)^(m//2)·d^(m mod 2),
so with d² = 1/2 (sigma = 1) every even power is an exact power of two.
"""

from __future__ import annotations

import bisect
import decimal
import functools
import math
import operator
from decimal import Decimal
from fractions import Fraction
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import repeat
from typing import Any, overload

import mpmath
from mpmath import mp

from ..engine.balls import arb_precision, ball_midpoint
from ..engine.bits import BITS_PER_DIGIT, bits_for
from ..engine.mpmath_internals import binary, make, mpf_mul, round_nearest, to_raw
from ..engine.precision import scaled_double, working_dps
from ..engine.rounding import ball_text, decide, decimal_text
from ..errors import PrecisionError
from ..result import BulkValues, Numerals, Underflowed

# Below this many elements the bulk path is not worth its set-up.
BULK_MIN = 256
# Guard digits of the bulk path beyond digits + log10(count).
BULK_GUARD = 10
# Elements per block of the bulk path (even: see _bulk_decimals).
BLOCK = 1024
# Bits of the two factors of each double (see _binary_doubles).
BITS = 100

Parts = Callable[[], tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]]
ExactParts = Callable[[], tuple[Fraction | None, Fraction | None, Fraction | None]]
BallParts = Callable[[], tuple[Any, Any, Any]]  # arb balls at the current Arb precision


class GeometricWeights(Sequence[mpmath.mpf], BulkValues):
    """Element k (0 ≤ k < count) is c·d^(count − k).

    ``parts()`` returns (c, d², d) as mpf at the current ``mp.dps``; it is called at the
    precision each use needs, so the elements are correct to ``digits`` digits (plus guard)
    whatever the depth: ``log10(count)`` extra digits absorb the error of long products.
    """

    def __init__(
        self,
        count: int,
        parts: Parts,
        digits: int,
        exact_parts: ExactParts | None = None,
        ball_parts: BallParts | None = None,
    ) -> None:
        self._count = count
        self._parts = parts
        self._digits = digits
        self._dps = working_dps(digits) + len(str(count)) + 2
        self._exact_parts = exact_parts
        self._ball_parts = ball_parts

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

        The steps use mpmath's raw multiplication at an explicit precision
        (``engine.mpmath_internals``), so the global precision is never held across a ``yield``
        (and a step costs a third as much)."""
        if start >= stop:
            return
        with mp.workdps(self._dps):
            c, square, d = self._parts()
            prec = mp.prec
            m = self._count - start
            even = to_raw(c * square ** (m // 2))  # c·(d²)^(m//2)
            inverse_square = to_raw(1 / square)
        d_raw = to_raw(d)
        for _ in range(start, stop):
            if m % 2:
                yield make(mpf_mul(even, d_raw, prec, round_nearest))
            else:
                yield make(even)
                even = mpf_mul(even, inverse_square, prec, round_nearest)
            m -= 1

    def largest(self, first: int, last: int) -> mpmath.mpf:
        """The element of largest |value| among indices first … last (inclusive).

        Elements are positive (c, d > 0), so c·d^(count − k) is largest at the largest k
        when d ≤ 1 and at the smallest k when d > 1."""
        if not 0 <= first <= last < self._count:
            raise IndexError(f"no elements from {first} to {last} in {self._count}")
        with mp.workdps(30):
            _c, _square, d = self._parts()
        return self[last] if d <= 1 else self[first]

    # -- bulk rendering ------------------------------------------------------------------
    def doubles(self) -> Underflowed:
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
        nonzero_doubles = _binary_doubles(self, nonzero)  # m = 1, 2, …
        nonzero_doubles.reverse()
        return Underflowed(count - nonzero, nonzero_doubles)

    def decimals(self, digits: int) -> Numerals:
        """``to_decimal(element, digits)`` of every element, in bulk (see the module docstring).

        ``digits`` may not exceed the digits the sequence was built for."""
        if digits > self._digits:
            raise ValueError(f"built for {self._digits} digits, asked for {digits}")
        if self._count < BULK_MIN:
            return self._ball_decimals(digits)
        return _bulk_decimals(self, digits)

    def _ball_decimals(self, digits: int) -> Numerals:
        """Each element from Arb balls of (c, d², d) with log2(count) guard bits; an element
        whose ball does not round (near or on a tie) is decided by ``proven_text``."""
        texts = Numerals()
        with arb_precision(bits_for(digits) + 40 + 2 * self._count.bit_length()):
            c, square, d = self._balls()
            even = c * square ** (self._count // 2)  # c·(d²)^(m//2) for m = count, count − 1, …
            inverse = 1 / square
            for m in range(self._count, 0, -1):
                value = even * d if m % 2 else even
                texts.append(ball_text(value, digits) or self.proven_text(m, digits))
                if m % 2 == 0:
                    even = even * inverse
        return texts

    def error_bound(self) -> mpmath.mpf:
        """A proven bound on |element − c·d^m| over every element (each mpf of ``_run``).

        The parts (c, d², d) are correctly rounded to ``self._dps`` digits by mpmath (sqrt and
        division are), the start c·(d²)^j is an integer power (mpmath's: within one ulp) and
        each step one more rounded product, so every element is within (count + 8) units of
        2^(1 − prec) of its value, relatively; times c·max(1, d)^count, which bounds every element."""
        with mp.workdps(self._dps):
            prec = mp.prec
        from flint import arb

        with arb_precision(64):
            c, _square, d = self._balls()
            largest = c.abs_upper() * max(d.upper(), arb(1)) ** self._count  # c when d ≤ 1
            relative = (self._count + 8) * arb(2) ** (1 - prec)
            bound = arb((largest * relative).upper())
        return ball_midpoint(bound)

    def _balls(self) -> tuple[Any, Any, Any]:
        """``ball_parts()``: (c, d², d) as Arb balls at the current Arb precision (the decimals and
        the error bound need them; postnorm_decay gives them)."""
        assert self._ball_parts is not None
        return self._ball_parts()

    def proven_text(self, m: int, digits: int) -> str:
        """c·d^m correctly rounded: exact when c·d^m is rational, else from Arb balls at rising
        precision (exit 3 if none decides). For the rare elements the fast paths cannot decide."""
        exact = self._exact_parts() if self._exact_parts else (None, None, None)
        c, square, d = exact
        if c is not None and square is not None:
            if m % 2 == 0:
                return decimal_text(c * square ** (m // 2), digits)
            if d is not None:
                return decimal_text(c * square ** (m // 2) * d, digits)
        if self._ball_parts is None:
            raise PrecisionError(f"no proven value of branch weight m = {m}")

        def element(bits: int):
            with arb_precision(bits):
                c, square, d = self._balls()
                value = c * square ** (m // 2)
                return value * d if m % 2 else value

        start = bits_for(digits) + 64 + 2 * m.bit_length()
        return decide(element, digits, start, 64 * start, what=f"branch weight m = {m}")[1]


def _binary_doubles(weights: GeometricWeights, count: int) -> list[float | None]:
    """Doubles of c·d^m for m = 1, 2, …, count (None beyond the largest double).

    Each element is one product α_i·β_r·2^(e_i + e_r) (m = BLOCK·i + r) of two integers of
    ``BITS`` bits, with α_i·2^e_i = c·d^(BLOCK·i) and β_r·2^e_r = d^r taken from mpmath
    at ``BITS`` + 40 bits. The product is within 2^(2−BITS) of c·d^m, so its correctly rounded
    double (``float`` of an integer, then an exact ``ldexp``; an integer quotient where the
    double is subnormal) is the nearest double unless c·d^m lies that close to a midpoint
    between doubles, as likely as for ``to_double`` of an mpf.
    """
    if count == 0:
        return []
    with mp.workprec(BITS + 40):
        c, _square, d = weights._parts()
        block = min(BLOCK, count)
        betas, shifts = _steps(to_raw(d), 1 << (block - 1).bit_length())  # d^r, r = 1 … block
        betas, shifts = betas[:block], shifts[:block]
        bases = [_binary(base) for base in _powers(d**block, c, -(-count // block))]
    out: list[float | None] = []
    for first, (alpha, alpha_shift) in zip(range(0, count, block), bases):
        size = min(block, count - first)
        products = list(map(operator.mul, repeat(alpha, size), betas))
        exponents = list(map(operator.add, repeat(alpha_shift, size), shifts))
        # 2^(top−1) ≤ product·2^exponent < 2^top: the largest value comes first, the smallest
        # last. Below 2^1023 nothing rounds up to infinity; from 2^−1021 up all are normal.
        if (
            products[0].bit_length() + exponents[0] <= 1023
            and products[-1].bit_length() + exponents[-1] > -1021
        ):
            out.extend(map(math.ldexp, map(float, products), exponents))  # normal doubles throughout
        else:
            out.extend(map(scaled_double, products, exponents))
    return out


@functools.lru_cache(maxsize=32)
def _steps(d: tuple[int, int, int, int], count: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``_binary`` of d, d², …, d^count by ``_powers`` at BITS + 40 bits, as (mantissas, shifts).

    Remembered by (d, count) with count a power of two: the points of a sweep over --layers
    share d, and each asks for a prefix of the same list (the recurrence does not depend on
    count)."""
    with mp.workprec(BITS + 40):
        binaries = [_binary(power) for power in _powers(make(d), make(d), count)]
    return tuple(beta for beta, _ in binaries), tuple(shift for _, shift in binaries)


def _powers(ratio: mpmath.mpf, start: mpmath.mpf, count: int) -> Iterator[mpmath.mpf]:
    """start, start·ratio, start·ratio², …, count of them, at the current precision."""
    value = start
    for _ in range(count):
        yield value
        value *= ratio


def _binary(value: mpmath.mpf) -> tuple[int, int]:
    """(M, e) with value ≈ M·2^e and M of ``BITS`` bits: ``nint(ldexp(frexp(value)[0], BITS))``
    and ``frexp(value)[1] − BITS``, on the integers of the mpf (value = ±man·2^exp, man of bc
    bits) — the same rounding (to nearest, ties to even) without four mpmath calls."""
    sign, man, exp, bc = binary(value)  # Python ints (not gmpy2's mpz): the callers want them
    if not man:
        return 0, -BITS
    shift = bc - BITS
    if shift <= 0:
        q = man << -shift
    else:
        q, r = divmod(man, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
    return (-q if sign else q), exp + bc - BITS


def _bulk_decimals(weights: GeometricWeights, digits: int) -> Numerals:
    """Elements m = 1 … count as A_i·b_r (m = BLOCK·i + r), correctly rounded, half away from zero.

    A_i = c·(d²)^(BLOCK·i/2) and b_r = (d²)^(r//2)·d^(r mod 2) are carried at ``prec``
    digits; each is a chain of at most count/BLOCK + 2·BLOCK + 3 roundings to ``prec`` digits
    from the midpoints of Arb balls of c, d², d (whose radii add their share), so A_i·b_r is
    within ``eps`` ≈ (count + 2·BLOCK + 10)·10^(1−prec) of c·d^m, relatively. Each element is
    rounded twice, from a coefficient A_i·(1 − eps) rounded down and from A_i·(1 + 3·eps)
    rounded up, in one ``decimal`` product each: rounding is monotone, so where the two texts
    agree they are the correctly rounded c·d^m. Where they differ (c·d^m within about
    10^−8 units of a tie, or exactly on one: with d² = 1/2 and c = 1 the factors are exact
    decimals and 2^−22 is a tie at 15 digits) ``proven_text`` decides it.
    """
    count = len(weights)
    prec = digits + len(str(count)) + BULK_GUARD
    limits: dict[str, Any] = {"Emin": decimal.MIN_EMIN, "Emax": decimal.MAX_EMAX, "traps": []}
    work = decimal.Context(prec=prec, rounding=decimal.ROUND_HALF_EVEN, **limits)
    below = decimal.Context(prec=prec, rounding=decimal.ROUND_FLOOR, **limits)
    above = decimal.Context(prec=prec, rounding=decimal.ROUND_CEILING, **limits)
    # ROUND_HALF_UP is half away from zero (engine/rounding's rule).
    out = decimal.Context(prec=digits, rounding=decimal.ROUND_HALF_UP, capitals=0, **limits)
    # The factors come from Arb balls of (c, d², d), each within 2^−accuracy of its value,
    # relatively; an element is a product of at most count + 2 of them.
    bits = bits_for(prec + 10) + 2 * count.bit_length()
    with arb_precision(bits):
        balls = weights._balls()
        accuracy = min(bits, *(ball.rel_accuracy_bits() for ball in balls))  # an exact ball: huge
        # Each factor rounded once from its ball's midpoint: a short exact value (0.5) stays exact.
        c, square, d = (work.plus(_arb_decimal(ball)) for ball in balls)
    if accuracy < prec * BITS_PER_DIGIT:
        raise PrecisionError("the branch weights' factors are not known to the digits they need")
    # 2^−accuracy ≤ 10^−places: the balls' share of eps, (1 + ρ)^(count + 2) − 1 ≤ 2·(count + 2)·ρ.
    places = int(accuracy * 0.30102) - 1
    eps = Decimal(count + 2 * BLOCK + 10).scaleb(1 - prec) + Decimal(2 * (count + 2)).scaleb(-places)
    # x = A_i·b_r within eps of c·d^m =: v, relatively: x(1 − eps) ≤ v ≤ x(1 + 3·eps).
    shrink, grow = 1 - eps, 1 + 3 * eps  # exact: eps has few digits
    b = [d]  # b[r − 1] = d^r, r = 1 … BLOCK
    even = Decimal(1)
    while len(b) < BLOCK:
        even = work.multiply(even, square)
        b.append(even)
        b.append(work.multiply(even, d))
    b = b[:BLOCK]
    step = b[BLOCK - 1]  # (d²)^(BLOCK/2)
    # With d ≤ 1 the elements of a block fall from first to last, so its two ends tell
    # which notation all of them take.
    falling = d <= 1 and square <= d

    texts = Numerals()
    redo: list[int] = []
    write = _writers(out)
    base = c
    with decimal.localcontext(out):
        for first in range(0, count, BLOCK):
            size = min(BLOCK, count - first)
            # Full coefficients keep the products' trailing zeros.
            low = _padded(below.multiply(base, shrink), prec)
            high = _padded(above.multiply(base, grow), prec)
            lows = list(map(low.__mul__, b[:size]))
            highs = list(map(high.__mul__, b[:size]))
            if lows != highs:
                for r in range(size):
                    if lows[r] != highs[r]:
                        redo.append(first + r)
            notation = _notation(lows[0].adjusted(), digits)
            if falling and notation == _notation(lows[-1].adjusted(), digits):
                texts.extend(write[notation](lows))  # one notation for the whole block
            elif falling:  # the notation falls along the block: one bulk write per run
                key = partial(_falling_notation, digits=digits)
                start = 0
                while start < size:
                    notation = _notation(lows[start].adjusted(), digits)
                    end = bisect.bisect_right(lows, -notation, lo=start, key=key)
                    texts.extend(write[notation](lows[start:end]))
                    start = end
            else:
                texts.extend(
                    text for value in lows for text in write[_notation(value.adjusted(), digits)]((value,))
                )
            base = work.multiply(base, step)
    for j in redo:  # m = j + 1
        texts[j] = weights.proven_text(j + 1, digits)
    texts.reverse()  # element k is m = count − k
    return texts


def _arb_decimal(ball: Any) -> Any:
    """The midpoint of an arb as an exact Decimal."""
    mantissa, exponent = (int(x) for x in ball.mid().man_exp())
    if exponent >= 0:
        return Decimal(mantissa << exponent)
    return Decimal(f"{mantissa * 5**-exponent}E{exponent}")


def _padded(value, length: int):
    """``value`` with its coefficient padded by trailing zeros to ``length`` digits."""
    sign, coefficient, exponent = value.as_tuple()
    extra = length - len(coefficient)
    if extra <= 0:
        return value
    return Decimal((sign, coefficient + (0,) * extra, exponent - extra))


# How engine/rounding writes a value whose leading digit is at 10^a: in scientific notation
# for a ≤ −4 and a ≥ digits, in fixed notation for −4 < a < digits (without a point when
# a = digits − 1). Decimal's ``str`` (in a context with lower-case "e") writes the same for
# a ≤ −7, −4 < a < digits − 1 and a ≥ digits − 1 (a value rounded to ``digits`` digits has
# exponent a − digits + 1 ≥ 0 there), ``format(x, "e")`` for −7 < a ≤ −4.
_SCIENTIFIC, _SHORT_EXPONENT, _FIXED, _LARGE = range(4)  # in order of a (a block is contiguous)


def _writers(lower_case: Any) -> dict[int, Callable[[Iterable[Any]], Iterable[str]]]:
    """Bulk writers of each notation; ``lower_case`` is a decimal context with capitals=0."""
    return {
        _SCIENTIFIC: partial(map, lower_case.to_sci_string),
        _SHORT_EXPONENT: lambda values: map(format, values, repeat("e")),
        _FIXED: partial(map, str),
        _LARGE: partial(map, lower_case.to_sci_string),
    }


def _falling_notation(value: Any, digits: int) -> int:
    """−notation of a value: rises along a falling block (for ``bisect``)."""
    return -_notation(value.adjusted(), digits)


def _notation(a: int, digits: int) -> int:
    if a <= -7:
        return _SCIENTIFIC
    if a <= -4:
        return _SHORT_EXPONENT
    return _FIXED if a < digits - 1 else _LARGE
