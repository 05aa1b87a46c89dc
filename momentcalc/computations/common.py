"""Argument handling shared by every computation: digits, number normalisation."""

from __future__ import annotations

from fractions import Fraction

from ..engine.numbers import Number, as_number, to_text
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
        raise InputError(f"{option} must be greater than 0, got {to_text(number)}")
    return number


def whole(value: object, option: str, minimum: int = 1) -> Fraction:
    """A whole number ≥ ``minimum`` (a fan, a dimension, a count), given exactly."""
    number = as_number(value, option)
    if number.denominator != 1 or number < minimum:
        raise InputError(f"{option} must be a whole number >= {minimum}, got {to_text(number)}")
    return number


def choice(value: object, option: str, allowed: tuple[str, ...]) -> str:
    """One of ``allowed`` (case-insensitive), else InputError listing them."""
    text = str(value).strip().lower()
    if text not in allowed:
        raise InputError(f"{option} must be one of {', '.join(allowed)}, got {value!r}")
    return text
