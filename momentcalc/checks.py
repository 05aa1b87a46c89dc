"""``--expect NAME=VALUE`` and ``--rtol``: compare a computed result with a written value.

The default tolerance is one unit in the last digit written: ``gamma=0.7737413`` accepts
anything within 1e-7 of 0.7737413, ``x=1.5e-3`` within 1e-4, ``n=100`` within 1.
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

import mpmath
from mpmath import mp

from .engine.numbers import parse_number, to_mpf
from .engine.precision import to_decimal, working_dps
from .errors import InputError
from .result import Check, Computation

_WRITTEN = re.compile(r"[+-]?(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?")


def parse_expect(text: str) -> tuple[str, str]:
    """Split ``NAME=VALUE`` and check VALUE is a number; returns (name, value text)."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name or not value:
        raise InputError(f"--expect must look like NAME=VALUE (e.g. gamma=0.7737413), got {text!r}")
    parse_number(value, f"--expect {name}")
    return name, value


def last_digit_unit(written: str) -> Fraction:
    """One unit in the last digit written: ``0.7737413`` → 1e-7, ``1.5e-3`` → 1e-4."""
    match = _WRITTEN.fullmatch(written.strip())
    if match is None:
        raise InputError(f"--expect value must be a decimal number, got {written!r}")
    decimals = len(match.group("frac") or "")
    exponent = int(match.group("exp") or 0)
    return Fraction(10) ** (exponent - decimals)


def parse_rtol(text: str | None) -> Fraction | None:
    """``--rtol R``: a relative tolerance, R ≥ 0."""
    if text is None:
        return None
    rtol = parse_number(text, "--rtol")
    if rtol < 0:
        raise InputError(f"--rtol must be at least 0, got {text!r}")
    return rtol


def apply_expectations(
    computation: Computation, expects: list[tuple[str, str]], rtol: Fraction | None
) -> Computation:
    """The computation with its ``checks`` filled in (one Check per expectation)."""
    checks = []
    for name, written in expects:
        if name not in computation.names:
            allowed = ", ".join(computation.names)
            raise InputError(f"--expect names an unknown result {name!r}; results are: {allowed}")
        quantity = computation[name]
        if quantity.is_list:
            raise InputError(f"--expect cannot check {name!r}: it is a list of values")
        expected = parse_number(written, f"--expect {name}")
        with mp.workdps(working_dps(computation.digits) + len(written)):
            found = quantity.value
            target = to_mpf(expected)
            if rtol is None:
                tolerance = last_digit_unit(written)
                bound = to_mpf(tolerance)
                label = f"±{mpmath.nstr(bound, 3)}"
            else:
                bound = to_mpf(rtol) * abs(target)
                label = f"rtol {mpmath.nstr(to_mpf(rtol), 3)}"
            ok = bool(abs(found - target) <= bound)
        checks.append(Check(name, written, to_decimal(found, computation.digits), ok, label))
    return replace(computation, checks=tuple(checks))
