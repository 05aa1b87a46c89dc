"""Decimal digits and binary digits: one exact ratio between them.

333/100 bits per decimal digit, a little over log2(10) = 3.3219…, so that ``bits_for(d)``
bits carry d digits to within one bit (the floor). Integer arithmetic (d·333 // 100), equal
to the truncated float product the code once wrote at every use, for every whole d: one named ratio instead.

>>> bits_for(15), digits_for(bits_for(15))
(49, 14)
"""

from __future__ import annotations

from fractions import Fraction

BITS_PER_DIGIT = Fraction(333, 100)


def bits_for(digits: int) -> int:
    """Binary digits that carry ``digits`` decimal digits: floor(digits · 333/100)."""
    return digits * BITS_PER_DIGIT.numerator // BITS_PER_DIGIT.denominator


def digits_for(bits: int) -> int:
    """Decimal digits that ``bits`` binary digits carry: floor(bits · 100/333)."""
    return bits * BITS_PER_DIGIT.denominator // BITS_PER_DIGIT.numerator
