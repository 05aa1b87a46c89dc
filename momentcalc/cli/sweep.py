"""The command line's sweep syntax: a single number, a comma list ``0.5,1,2`` or an inclusive
range ``START:STOP:STEP`` of exact decimals (the library only ever sees the numbers)."""

from __future__ import annotations

import math
from fractions import Fraction

from ..engine.numbers import Number, parse_number, quoted
from ..errors import InputError

MAX_SWEEP_POINTS = 100_000


def parse_values(text: str, option: str, *, allow_inf: bool = False, sweep: bool = True) -> list[Number]:
    """A single number, a comma list ``0.5,1,2`` or an inclusive range ``START:STOP:STEP``.

    Ranges are exact: ``0:1:0.1`` has 11 points, the last exactly 1. Empty, reversed,
    zero-step and oversized (> MAX_SWEEP_POINTS) sweeps are refused; so is any sweep syntax
    (even ``1:1:1``) for an option that cannot be swept (``sweep=False``).
    """
    raw = text.strip()
    if not sweep and is_sweep_syntax(raw):
        raise InputError(f"{{{option}}} cannot be swept; give a single value", param=option)
    if ":" in raw:
        parts = raw.split(":")
        if len(parts) != 3:
            raise InputError(f"{{{option}}} range must be START:STOP:STEP, got {quoted(text)}", param=option)
        start, stop, step = (parse_number(p, option) for p in parts)
        if step == 0:
            raise InputError(f"{{{option}}} range step must not be zero, got {quoted(text)}", param=option)
        if (stop - start) * step < 0:
            raise InputError(
                f"{{{option}}} range is empty: STEP goes away from STOP in {quoted(text)}", param=option
            )
        count = math.floor((stop - start) / step) + 1
        if count > MAX_SWEEP_POINTS:
            shown = count if count < 10**15 else "more than 10^15"  # never a 5000-digit count
            raise InputError(
                f"{{{option}}} range has {shown} points; at most {MAX_SWEEP_POINTS} are allowed", param=option
            )
        # start + i·step over one denominator: a Fraction built per point, not two Fraction
        # operations (a 100000-point range took 0.3 s to spell out before it was refused).
        denominator = start.denominator * step.denominator
        first, stride = start.numerator * step.denominator, step.numerator * start.denominator
        return [Fraction(first + i * stride, denominator) for i in range(count)]
    if "," in raw:
        items = list(raw.split(","))
        if any(not p.strip() for p in items):
            raise InputError(f"{{{option}}} list has an empty item: {quoted(text)}", param=option)
        if len(items) > MAX_SWEEP_POINTS:
            raise InputError(
                f"{{{option}}} list has {len(items)} points; at most {MAX_SWEEP_POINTS} are allowed",
                param=option,
            )
        return [parse_number(p, option, allow_inf=allow_inf) for p in items]
    return [parse_number(raw, option, allow_inf=allow_inf)]


def is_sweep_syntax(text: str) -> bool:
    """Is ``text`` written as a sweep (a comma list or a range), whatever number of points it has?"""
    return "," in text or ":" in text


def _top_level_items(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses and brackets (``gelu,max(x,0.5)`` is
    two items)."""
    items, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:index])
            start = index + 1
    items.append(text[start:])
    return items


def parse_texts(text: str, option: str) -> list[str]:
    """A name or expression, or a comma list of them (``gelu,swish,mish``): a text option swept
    like a number (commas inside an expression's parentheses do not split it)."""
    items = _top_level_items(text)
    if len(items) > 1 and any(not item.strip() for item in items):
        raise InputError(f"{{{option}}} list has an empty item: {quoted(text)}", param=option)
    if len(items) > MAX_SWEEP_POINTS:
        raise InputError(
            f"{{{option}}} list has {len(items)} items; at most {MAX_SWEEP_POINTS} are allowed", param=option
        )
    return [item.strip() for item in items] if len(items) > 1 else [text]


def is_text_sweep(text: str) -> bool:
    """Is ``text`` a comma list of names or expressions?"""
    return len(_top_level_items(text)) > 1
