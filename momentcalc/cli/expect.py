"""``--expect NAME=VALUE``, ``--rtol`` and ``--atol``: compare a computed result with a written value.

VALUE is read as a correctly rounded published value: it passes when |result − VALUE| is at
most half a unit in VALUE's last written digit (``gamma=0.7737413`` accepts 0.77374125 …
0.77374135, ``x=1.5e-3`` accepts 1.45e-3 … 1.55e-3). A VALUE with fewer than
MIN_SIGNIFICANT significant digits is refused unless ``--rtol``/``--atol`` gives the tolerance:
``std=0.02`` would accept BERT's actual 0.0176, the very mistake the check exists to catch.
With ``--rtol R`` and/or ``--atol A`` the tolerance is A + R·|VALUE| instead (as numpy's isclose).

A zero has no significant digits to count: it is read like any VALUE, as ± half a unit in its
last written digit, and needs at least MIN_SIGNIFICANT decimals (``mean=0.000`` passes within
±0.0005; ``mean=0`` would pass anything within ±0.5, so it is refused with that hint, or give
``--atol``). ``inf`` and ``-inf`` pass only an infinite result of that sign (``depth_scale_c=inf``
at the edge of chaos).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath import mp

from ..engine.numbers import decimal_text, parse_number, to_mpf
from ..engine.precision import MAX_DIGITS, to_decimal, working_dps
from ..engine.written import last_digit_unit as _last_digit_unit
from ..engine.written import significant_digits
from ..errors import InputError
from ..result import Check, Computation, replace
from ..engine.numbers import to_text

MIN_SIGNIFICANT = 3
# The found value of a failed check is shown to this many more digits than VALUE has, so
# that the two never look equal.
EXTRA_FOUND_DIGITS = 2


@dataclass(frozen=True)
class Expectation:
    """One parsed ``--expect NAME=VALUE``."""

    name: str
    written: str
    value: Fraction


@dataclass(frozen=True)
class Tolerance:
    """``--rtol``/``--atol``: None for both means half a unit in VALUE's last digit."""

    rtol: Fraction | None = None
    atol: Fraction | None = None

    @property
    def explicit(self) -> bool:
        return self.rtol is not None or self.atol is not None

    def bound(self, expected: Expectation) -> tuple[Fraction, str]:
        """The absolute tolerance for ``expected`` and the rule it comes from."""
        if not self.explicit:
            return last_digit_unit(expected.written) / 2, "half a unit in the last digit"
        rtol, atol = self.rtol or Fraction(0), self.atol or Fraction(0)
        rule = " + ".join(
            part
            for part, given in (
                (f"atol {decimal_text(atol)}", self.atol is not None),
                (f"rtol {decimal_text(rtol)}", self.rtol is not None),
            )
            if given
        )
        return atol + rtol * abs(expected.value), rule


def last_digit_unit(written: str) -> Fraction:
    """One unit in VALUE's last written digit (errors name ``--expect``)."""
    return _last_digit_unit(written, "expect")


def parse_expect(text: str, tolerance: Tolerance | None = None) -> Expectation:
    """Split ``NAME=VALUE``, check VALUE is a number written with enough digits."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name or not value:
        raise InputError(
            f"{{expect}} must look like NAME=VALUE (e.g. gamma=0.7737413), got {text!r}",
            param="expect",
            allowed="NAME=VALUE",
            got=repr(text),
        )
    number = _expected_number(value, name)
    if isinstance(number, float):  # ±inf: passes only an infinite result of that sign
        return Expectation(name, value, number)
    if number == 0 and tolerance is not None and not tolerance.explicit:
        if last_digit_unit(value) > Fraction(1, 10**MIN_SIGNIFICANT):
            raise InputError(
                f"{{expect}} {name}={value}: a zero is read as ± half a unit in its last written digit, so "
                f"{value} would pass anything within ±{decimal_text(last_digit_unit(value) / 2)}; write the "
                f"decimals that matter (e.g. {name}=0.000, within ±0.0005) or give {{atol}} A",
                param="expect",
                params=("atol",),
            )
        return Expectation(name, value, number)
    if tolerance is not None and not tolerance.explicit and significant_digits(value) < MIN_SIGNIFICANT:
        count = significant_digits(value)
        raise InputError(
            f"{{expect}} {name}={value}: VALUE has {count} significant digit{'s' if count > 1 else ''}, so it would "
            f"accept anything that rounds to it; write at least {MIN_SIGNIFICANT} as published (e.g. "
            f"{_padded(value)}), or give the tolerance with {{rtol}} R or {{atol}} A",
            param="expect",
            params=("rtol", "atol"),
        )
    return Expectation(name, value, number)


def _expected_number(text: str, name: str) -> Fraction:
    """VALUE of ``--expect NAME=VALUE``; errors say which NAME."""
    try:
        return parse_number(text, "expect", allow_inf=True)
    except InputError as error:
        raise error.with_template(error.template.replace("{expect}", "{expect} " + name, 1)) from None


def _padded(value: str) -> str:
    """``0.02`` → ``0.0200``: the hint shows what three significant digits look like."""
    mantissa, e, exponent = value.lower().partition("e")
    missing = MIN_SIGNIFICANT - significant_digits(value)
    if float(Fraction(mantissa)) == 0:
        return value
    return mantissa + ("" if "." in mantissa else ".") + "0" * missing + (e + exponent if e else "")


def parse_tolerance(rtol: str | None, atol: str | None) -> Tolerance:
    """``--rtol R`` (relative) and ``--atol A`` (absolute), each ≥ 0."""
    parsed = []
    for option, text in (("rtol", rtol), ("atol", atol)):
        if text is None:
            parsed.append(None)
            continue
        value = parse_number(text, option)
        if value < 0:
            raise InputError(param=option, allowed="at least 0", got=repr(text))
        parsed.append(value)
    return Tolerance(*parsed)


def needed_digits(expects: list[Expectation], digits: int) -> int:
    """Digits to compute at so that a found value can be shown two digits past VALUE's (at most
    MAX_DIGITS: a longer VALUE is still compared exactly, its found value shown to MAX_DIGITS)."""
    return min(
        MAX_DIGITS,
        max(
            [
                digits,
                *(
                    significant_digits(e.written) + EXTRA_FOUND_DIGITS
                    for e in expects
                    if not isinstance(e.value, float)
                ),
            ]
        ),
    )


def apply_expectations(
    computation: Computation, expects: list[Expectation], tolerance: Tolerance
) -> Computation:
    """The computation with its ``checks`` filled in (one Check per expectation).

    ``found`` carries at least two digits more than VALUE (and at least ``computation.digits``):
    the computation must have been made with ``needed_digits`` for that to be exact.
    """
    from ..render.document import shown_digits

    checks = []
    for expected in expects:
        if expected.name not in computation.names:
            raise computation.not_here("expect", expected.name)
        quantity = computation[expected.name]
        if quantity.is_list:
            raise InputError(
                f"{{expect}} cannot check {expected.name!r}: it is a list of values", param="expect"
            )
        digits = needed_digits([expected], computation.digits)
        if isinstance(expected.value, float):  # ±inf
            bound, rule = Fraction(0), "an infinite result of that sign"
            ok = bool(mpmath.isinf(quantity.value) and (quantity.value > 0) == (expected.value > 0))
        else:
            bound, rule = tolerance.bound(expected)
            with mp.workdps(working_dps(digits) + len(expected.written)):
                found = quantity.value
                ok = bool(mpmath.isfinite(found) and abs(found - to_mpf(expected.value)) <= to_mpf(bound))
        shown = (
            quantity.decimal(shown_digits(quantity, digits))
            if quantity.outward
            else to_decimal(quantity.rounded_from, shown_digits(quantity, digits))
        )
        if quantity.stderr is not None:
            shown += f" ± {to_decimal(quantity.stderr, 2)}"
        checks.append(Check(expected.name, expected.written, shown, ok, decimal_text(bound), rule))
    return replace(computation, checks=tuple(checks))


def mismatch_line(check: Check, at: dict[str, object] | None = None) -> str:
    """The one stderr line of a failed check: expected value, tolerance, found value (and the
    sweep point)."""

    where = ""
    if at:
        where = " at " + ", ".join(f"{k}={v if isinstance(v, str) else to_text(v)}" for k, v in at.items())
    return (
        f"momentcalc: --expect {check.name} failed{where}: expected {check.expected} "
        f"± {check.tolerance} ({check.rule}), found {check.found}"
    )
