"""Decimal numbers as they are written: how many significant digits a text shows, and the unit
of its last written digit (a published ``0.7737413`` is known to ± half of 1e-7).

>>> significant_digits("0.0200"), last_digit_unit("1.5e-3")
(3, Fraction(1, 10000))
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..errors import InputError

_WRITTEN = re.compile(r"[+-]?(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?", re.ASCII)


def significant_digits(text: str) -> int:
    """How many significant digits a decimal text shows (``0.0200`` → 3, ``100`` → 3, ``0`` → 1)."""
    digits = re.sub(r"[^0-9]", "", text.lower().partition("e")[0]).lstrip("0")
    return max(len(digits), 1)


def last_digit_unit(written: str, name: str = "value") -> Fraction:
    """One unit in the last digit written: ``0.7737413`` → 1e-7, ``1.5e-3`` → 1e-4 (InputError
    naming ``name`` for a text that is not a decimal number)."""
    match = _WRITTEN.fullmatch(written.strip())
    if match is None:
        raise InputError(f"{{{name}}} value must be a decimal number, got {written!r}", param=name)
    decimals = len(match.group("frac") or "")
    exponent = int(match.group("exp") or 0)
    return Fraction(10) ** (exponent - decimals)
