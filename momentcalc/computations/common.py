"""Argument handling shared by every computation: digits, number normalisation."""

from __future__ import annotations

from ..engine.numbers import Number, as_number
from ..engine.precision import MAX_DIGITS
from ..errors import InputError


def check_digits(digits: object) -> int:
    """``--digits``: a whole number from 1 to MAX_DIGITS."""
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= MAX_DIGITS:
        raise InputError(f"--digits must be a whole number from 1 to {MAX_DIGITS}, got {digits!r}")
    return digits


def positive(value: object, option: str) -> Number:
    """A finite number > 0 (a std, a size)."""
    number = as_number(value, option)
    if number <= 0:
        raise InputError(f"{option} must be greater than 0, got {value}")
    return number
