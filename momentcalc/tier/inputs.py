"""Input checks of the public tier: each turns a Python argument into an exact number (a
``Fraction``) or a checked choice, or raises ``InputError`` naming the argument by its Python
name (``std``) with what is allowed; the CLI shows the name as its option (``--std``).

>>> positive("0.02", "std")
Fraction(1, 50)
>>> probability("1.5", "p")
Traceback (most recent call last):
    ...
momentcalc.errors.InputError: p must be a number from 0 to 1, got 1.5
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal, overload

from ..engine.numbers import Number, as_number, to_text
from ..engine.precision import MAX_DIGITS
from ..errors import InputError


def check_digits(digits: object) -> int:
    """``digits``: a whole number from 1 to MAX_DIGITS."""
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= MAX_DIGITS:
        raise InputError(param="digits", allowed=f"a whole number from 1 to {MAX_DIGITS}", got=repr(digits))
    return digits


@overload
def number(value: object, name: str, *, allow_inf: Literal[False] = False) -> Fraction: ...
@overload
def number(value: object, name: str, *, allow_inf: bool) -> Number: ...
def number(value: object, name: str, *, allow_inf: bool = False) -> Number:
    """Any finite number (int, Fraction, decimal text, Decimal, float by its shortest repr),
    taken exactly; ±inf too with ``allow_inf``."""
    return as_number(value, name, allow_inf=allow_inf)


def positive(value: object, option: str) -> Fraction:
    """A finite number > 0 (a std, a size)."""
    number = as_number(value, option)
    if number <= 0:
        raise InputError(param=option, allowed="greater than 0", got=to_text(number))
    return number


def whole(value: object, option: str, minimum: int = 1) -> Fraction:
    """A whole number ≥ ``minimum`` (a fan, a dimension, a count), given exactly."""
    number = as_number(value, option)
    if number.denominator != 1 or number < minimum:
        raise InputError(param=option, allowed=f"a whole number >= {minimum}", got=to_text(number))
    return number


def probability(value: object, name: str, *, zero: bool = True, one: bool = True) -> Fraction:
    """A probability: a number from 0 to 1, without 0 when ``zero`` is False and without 1
    when ``one`` is False (a dropout rate ``p`` < 1: ``probability(p, "p", one=False)``)."""
    number = as_number(value, name)
    if not ((number >= 0 if zero else number > 0) and (number <= 1 if one else number < 1)):
        low, high = (">= 0" if zero else "> 0"), ("<= 1" if one else "< 1")
        allowed = "a number from 0 to 1" if zero and one else f"a number {low} and {high}"
        raise InputError(param=name, allowed=allowed, got=to_text(number))
    return number


def choice(value: object, option: str, allowed: tuple[str, ...]) -> str:
    """One of ``allowed`` (case-insensitive), else InputError listing them."""
    text = str(value).strip().lower()
    if text not in allowed:
        raise InputError(param=option, allowed=f"one of {', '.join(allowed)}", got=repr(value))
    return text
