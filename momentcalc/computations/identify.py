"""``identify VALUE...``: which initialization constant a number, as written, is; and the
matching rules ``audit`` applies to every literal it finds.

For a literal with ``digits_written`` significant digits (trailing zeros after the point count)
and a constant of the index (``generated_constant_index``, proven decimals the engine wrote):

* ``digits_correct`` = the largest k ≤ digits_written at which literal and constant round to the
  same k significant digits (half away from zero, as every momentcalc decimal);
* ``ulps_off`` = for a literal of ≥ 15 digits, how many IEEE doubles its double lies from the
  constant's correctly rounded double (signed: negative below); for a literal that is a
  float32's shortest repr (6 to 9 digits), the same in float32; else None;
* ``verdict``: ``ok`` when every written digit is correct or it is the same double (a literal of
  ≥ 17 digits denotes one double: there the ulps decide), ``inexact`` when 1–4 ulps off or one
  digit short, ``wrong`` otherwise.

A literal is identified *by value* when ≥ 8 significant digits agree, or when it equals the
constant's correct rounding at ≥ 5 written digits; *by context* when ≥ 2 digits agree and its
context names the constant's subject (``subject_named``) and the literal is within 1 % of it
(two rounded digits alone would let 0.9953 stand for 1.0476). A constant that is an ordinary
number — within 6 digits of a rational with a denominator ≤ 12 (1, 0.5, 0.75, 5/3) — is matched only by context and
by literals of ≥ 4 digits (code is full of numbers near 1 and 1/2 that are no initialization
constant: ``0.9999999997`` in a test is a tolerance, not a wrong identity gain), and 0 never;
``identify`` still lists it as a candidate.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from fractions import Fraction
from typing import NamedTuple

from ..tier import InputError, Listing

_CONTEXT = Context(prec=120)
# Words that name no subject by themselves: dropped from a dict key before it is compared.
GENERIC = frozenset(
    {
        "gamma",
        "gain",
        "gains",
        "const",
        "constant",
        "constants",
        "scale",
        "std",
        "init",
        "nonlin",
        "act",
        "activation",
        "factor",
        "value",
        "val",
        "nn",
        "f",
        "torch",
        "jax",
        "tf",
        "default",
        "fn",
    }
)
_LITERAL = re.compile(r"^[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?$")
BY_VALUE_DIGITS = 8
ROUNDING_DIGITS = 5
CONTEXT_DIGITS = 2
ORDINARY_LITERAL_DIGITS = 4
COMMANDS = {"identify": "identify"}


class Literal(NamedTuple):
    text: str
    value: Decimal  # |value|
    digits: int  # significant digits written


class Constant(NamedTuple):
    id: str
    name: str
    formula: str
    subjects: tuple[tuple[str, ...], ...]  # token sequences
    heuristic: bool
    decimal: str  # proven, DIGITS significant digits
    value: Decimal  # |value|
    ordinary: bool  # a rational with a small denominator (1, 0.5, 5/3)
    order: int


class Match(NamedTuple):
    constant: Constant
    digits_correct: int
    ulps_off: int | None
    verdict: str
    how: str  # "value" or "context"


def parse_literal(text: str) -> Literal | None:
    """A decimal literal (Python/C spelling, ``_`` separators, a trailing f/F/d/D/L suffix) as
    (text, |value|, significant digits written); None for anything else or for 0."""
    body = text.strip().rstrip("fFdDlL") if not text.strip().lower().startswith("0x") else ""
    if not body or not _LITERAL.match(body):
        return None
    body = body.replace("_", "").lstrip("+-")
    mantissa = re.split(r"[eE]", body)[0]
    digits = mantissa.replace(".", "").lstrip("0")
    if not digits:
        return None
    try:
        value = Decimal(body)
    except InvalidOperation:
        return None
    return Literal(text.strip(), abs(value), len(digits))


def round_sig(value: Decimal, k: int) -> Decimal:
    """value rounded to k significant digits, half away from zero."""
    if not value:
        return value
    exponent = value.adjusted() - k + 1
    return value.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP, context=_CONTEXT)


def digits_correct(literal: Literal, exact: Decimal) -> int:
    for k in range(min(literal.digits, 38), 0, -1):
        if round_sig(literal.value, k) == round_sig(exact, k):
            return k
    return 0


def _nearest(x: Fraction, bits: int) -> tuple[int, int]:
    """The binary float with ``bits`` bits of mantissa nearest x > 0 (ties to even): (m, s),
    value m·2^s."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    shift = e - bits + 1
    scaled = x / (Fraction(2) ** shift)
    m = scaled.numerator // scaled.denominator
    rest = scaled - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2):
        m += 1
    if m == 1 << bits:
        m, shift = m >> 1, shift + 1
    return m, shift


def _ulps(literal: Decimal, exact: Decimal, bits: int) -> int:
    lm, ls = _nearest(Fraction(literal), bits)
    cm, cs = _nearest(Fraction(exact), bits)
    return round((Fraction(lm) * Fraction(2) ** ls - Fraction(cm) * Fraction(2) ** cs) / Fraction(2) ** cs)


def _float32_shortest(literal: Literal) -> bool:
    """Is the literal the shortest decimal that reads back as its float32?"""
    m, s = _nearest(Fraction(literal.value), 24)
    x = Decimal(m) * (Decimal(2) ** s if s >= 0 else Decimal(1) / Decimal(2) ** -s)
    for k in range(1, 10):
        r = round_sig(x.normalize(_CONTEXT), k)
        if _nearest(Fraction(r), 24) == (m, s):
            return r == literal.value and k == literal.digits
    return False


def ulps_off(literal: Literal, exact: Decimal) -> int | None:
    if literal.digits >= 15:
        return _ulps(literal.value, exact, 53)
    if 6 <= literal.digits <= 9 and _float32_shortest(literal):
        return _ulps(literal.value, exact, 24)
    return None


def verdict(literal: Literal, correct: int, ulps: int | None) -> str:
    if ulps is not None and literal.digits >= 17:
        if ulps == 0:
            return "ok"
        if abs(ulps) <= 4:
            return "inexact"
    # Every written digit correct is ok even when the literal also reads as a float32 a few
    # ulps from the constant's: 0.894427 is √0.8 correctly rounded, not a float32 off by one.
    if correct >= literal.digits or ulps == 0:
        return "ok"
    if correct == literal.digits - 1 or (ulps is not None and abs(ulps) <= 4):
        return "inexact"
    return "wrong"


def match(literal: Literal, constant: Constant, how: str) -> Match:
    correct = digits_correct(literal, constant.value)
    ulps = ulps_off(literal, constant.value)
    return Match(constant, correct, ulps, verdict(literal, correct, ulps), how)


# --- the index ---------------------------------------------------------------------------------


ORDINARY_DENOMINATOR = 12
ORDINARY_AGREEMENT = 6
CONTEXT_RELATIVE = Decimal("0.01")


def _ordinary(value: Decimal) -> bool:
    """Is the constant, to 6 digits, a rational with a small denominator? (relu6's second
    moment is 1/2 − 2e-9: a literal near 1/2 no more names it than it names 1/2.)"""
    near = Fraction(value).limit_denominator(ORDINARY_DENOMINATOR)
    return abs(Fraction(value) - near) <= abs(near) * Fraction(1, 10**ORDINARY_AGREEMENT)


@functools.cache
def index() -> tuple[Constant, ...]:
    """The index, from the generated decimals (no quadrature, no Arb)."""
    from .generated_constant_index import ROWS

    return tuple(
        Constant(
            cid,
            name,
            formula,
            tuple(tuple(s.split("_")) for s in subjects),
            heuristic,
            decimal,
            abs(Decimal(decimal)),
            _ordinary(Decimal(decimal)),
            order,
        )
        for order, (cid, name, formula, subjects, heuristic, decimal) in enumerate(ROWS)
        if Decimal(decimal) != 0
    )


@functools.cache
def _sorted() -> tuple[list[Decimal], list[Constant]]:
    ordered = sorted(index(), key=lambda c: c.value)
    return [c.value for c in ordered], ordered


@functools.cache
def _by_subject() -> dict[tuple[str, ...], list[Constant]]:
    found: dict[tuple[str, ...], list[Constant]] = {}
    for c in index():
        for s in c.subjects:
            found.setdefault(s, []).append(c)
    return found


@functools.cache
def subject_words() -> frozenset[str]:
    """Every word of every subject (the cheap pass of ``audit``)."""
    return frozenset(word for subject in _by_subject() for word in subject)


def near(literal: Literal, digits: int) -> list[Constant]:
    """Constants within a relative 10^(1 − digits) of the literal (a superset of those that
    agree to ``digits`` significant digits)."""
    values, ordered = _sorted()
    width = literal.value * Decimal(10) ** (1 - digits) * 2
    return ordered[bisect_left(values, literal.value - width) : bisect_right(values, literal.value + width)]


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@functools.cache
def _subjects_by_first_word() -> dict[str, tuple[tuple[str, ...], ...]]:
    found: dict[str, list[tuple[str, ...]]] = {}
    for subject in _by_subject():
        found.setdefault(subject[0], []).append(subject)
    return {word: tuple(subjects) for word, subjects in found.items()}


def _named_in(words: list[str]) -> list[tuple[str, ...]]:
    """The subjects that occur in ``words`` as consecutive words (one dictionary lookup per
    word, not one scan per subject: ``audit`` calls this for every literal it reads)."""
    starting = _subjects_by_first_word()
    found = []
    for i, word in enumerate(words):
        for subject in starting.get(word, ()):
            if tuple(words[i : i + len(subject)]) == subject:
                found.append(subject)
    return found


def subjects_named(key: str | None, names: list[str]) -> list[tuple[str, ...]]:
    """The subjects the context names: a dict key or keyword decides alone (``relu6=`` names
    relu6, ``shifted_softplus_1=`` names nothing, not softplus), unless it is only generic words
    (``gamma=``); otherwise any subject contained in the assigned name or the line."""
    known = _by_subject()
    if key is not None:
        words = [w for w in tokens(key) if w not in GENERIC]
        if words:
            return [tuple(words)] if tuple(words) in known else []
    found = []
    for text in names:
        found += _named_in(tokens(text))
    return found


def identify_literal(literal: Literal, subjects: list[tuple[str, ...]] | None = None) -> list[Match]:
    """Every constant the literal is identified as (by value, or by context when ``subjects``
    are named), best first."""
    found: dict[str, Match] = {}
    if literal.digits >= ROUNDING_DIGITS:
        for c in near(literal, min(literal.digits, BY_VALUE_DIGITS)):
            if c.ordinary:
                continue
            m = match(literal, c, "value")
            if m.digits_correct >= BY_VALUE_DIGITS or m.digits_correct == literal.digits:
                found[c.id] = m
    if subjects and literal.digits >= CONTEXT_DIGITS:
        table = _by_subject()
        for s in subjects:
            for c in table.get(s, ()):
                if c.id in found or (c.ordinary and literal.digits < ORDINARY_LITERAL_DIGITS):
                    continue
                m = match(literal, c, "context")
                if (
                    m.digits_correct >= CONTEXT_DIGITS
                    and abs(literal.value - c.value) <= c.value * CONTEXT_RELATIVE
                ):
                    found[c.id] = m
    named = set(subjects or ())
    return sorted(
        found.values(),
        key=lambda m: (
            not (set(m.constant.subjects) & named),
            -m.digits_correct,
            m.constant.heuristic,
            m.constant.order,
        ),
    )


def candidates(literal: Literal) -> list[Match]:
    """``identify``: the constants a number can be, with no context: by value, else every
    constant agreeing to ≥ 2 digits (at most 3 digits short of the best)."""
    strict = identify_literal(literal)
    if strict:
        return strict
    loose = [match(literal, c, "value") for c in near(literal, 2)]
    loose = [
        m
        for m in loose
        if m.digits_correct >= min(2, literal.digits)
        and not (m.constant.ordinary and literal.digits < ORDINARY_LITERAL_DIGITS)
    ]
    if not loose:
        return []
    best = max(m.digits_correct for m in loose)
    loose = [m for m in loose if m.digits_correct >= best - 3]
    return sorted(loose, key=lambda m: (-m.digits_correct, m.constant.heuristic, m.constant.order))


def exact_text(constant: Constant, digits: int) -> str:
    """The constant to ``digits`` significant digits, from its proven decimals (recomputed by
    the engine beyond them)."""
    from .generated_constant_index import DIGITS

    if digits <= DIGITS - 2:
        value = Decimal(constant.decimal)
        tail = constant.decimal.replace(".", "").lstrip("0-")[digits:]
        if not tail.rstrip("0") or tail[:8] not in ("50000000", "49999999"):  # not near a tie
            return _plain(round_sig(value, digits) if value else value, digits)
    from .constant_recipes import compute

    return compute(digits, lambda key: key == constant.id)[constant.id]


def _plain(value: Decimal, digits: int) -> str:
    text = format(value, "f")
    if "." not in text and len(text.lstrip("-0")) < digits:
        text += "." + "0" * (digits - len(text.lstrip("-0")))
    return text


DEFAULT_DIGITS = 17


def identify(values: list[str], *, digits: int | None = None, limit: int = 8) -> Listing:
    """The candidates of each VALUE, best first (``limit`` each)."""
    from .common import check_digits

    if not values:
        raise InputError(
            "{value} is required: give one or more numbers as written",
            param="value",
            allowed="decimal numbers such as 1.7139588594436646",
        )
    literals = []
    for text in values:
        literal = parse_literal(text)
        if literal is None:
            raise InputError(
                f"{{value}} must be a nonzero decimal number as written, got {text!r}",
                param="value",
                allowed="decimal numbers such as 1.7139588594436646",
            )
        literals.append(literal)
    if digits is not None:
        digits = check_digits(digits)
    rows = []
    for literal in literals:
        shown = digits if digits is not None else min(38, max(DEFAULT_DIGITS, literal.digits + 2))
        for rank, m in enumerate(candidates(literal)[:limit], 1):
            rows.append(_row(literal, m, shown) | {"rank": rank})
    found = {row["literal"] for row in rows}
    missing = [lit.text for lit in literals if lit.text not in found]
    return Listing(
        "identify",
        ("literal", "id", "exact", "digits", "ulps_off", "verdict", "name"),
        tuple(rows),
        title="identify: the constants of momentcalc's index each value can be, best first",
        labels={"digits": "digits correct/written"},
        failures=tuple(
            f"momentcalc: {text}: no constant of the index agrees to 2 digits" for text in missing
        ),
    )


def _row(literal: Literal, m: Match, digits: int) -> dict:
    return {
        "literal": literal.text,
        "id": m.constant.id,
        "name": m.constant.name,
        "formula": m.constant.formula,
        "exact": exact_text(m.constant, digits),
        "digits_written": literal.digits,
        "digits_correct": m.digits_correct,
        "ulps_off": m.ulps_off,
        "verdict": m.verdict,
        "heuristic": m.constant.heuristic,
        "digits": f"{m.digits_correct}/{literal.digits}",
    }


def index_listing(digits: int | None = None) -> Listing:
    """``identify --list``: every constant of the index."""
    from .common import check_digits

    shown = DEFAULT_DIGITS if digits is None else check_digits(digits)
    from .generated_constant_index import ROWS

    rows = tuple(
        {
            "id": cid,
            "name": name,
            "formula": formula,
            "exact": exact_text(
                Constant(cid, name, formula, (), heuristic, decimal, abs(Decimal(decimal)), False, 0), shown
            )
            if Decimal(decimal)
            else "0",
            "heuristic": heuristic,
            "subjects": list(subjects),
        }
        for cid, name, formula, subjects, heuristic, decimal in ROWS
    )
    return Listing(
        "identify",
        ("id", "exact", "formula", "name"),
        rows,
        title="the index of initialization constants (identify, audit)",
    )
