"""The index of initialization constants, as ``identify`` and ``audit`` read it, and the generic
numbers every literal is also weighed against.

The index is ``generated_constant_index`` (proven decimals the engine wrote, see
``constant_recipes``). Each constant carries the word sequences that name its subject in code
(``leaky_relu``, ``soft_sign``), the words that name its quantity (``gamma``, ``std``), its kind
and the activation parameters it is at.

*Generic numbers* are the numbers code is full of for reasons of its own: simple fractions p/q
(q ≤ 12), square roots √(p/q) (p, q ≤ 16) and the π forms √(r·π^j) (r = p/q, p, q ≤ 8,
j = ±1, ±2: √(2/π), 1/√(2π), π, 2/π, ...). A literal that is one of them (to ≥ 5 written digits)
is that number — a QR factor 0.81649658 is √(2/3), a Bessel coefficient 0.39894228 is 1/√(2π),
3.14159 is π — and names an index constant of the same value (relu2's gain, relu's mean) only
when its context names that constant. π comes from the index's own proven 2/π.
"""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_left, bisect_right
from decimal import Context, Decimal
from fractions import Fraction
from typing import NamedTuple

from .literals import HIGHEST, LOWEST, SIMPLE_DENOMINATOR

_CONTEXT = Context(prec=60)
# A constant within 6 digits of a simple fraction (relu6's second moment is 1/2 − 2e-9) is an
# ordinary number: matched only by context.
ORDINARY_AGREEMENT = 6
ROOT_BOUND = 16  # sqrt(p/q), p, q <= 16
PI_BOUND = 8  # sqrt(r*pi^j), r = p/q, p, q <= 8
# Words that name no subject by themselves: dropped from a dict key before it is compared.
GENERIC_WORDS = frozenset(
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


class Constant(NamedTuple):
    id: str
    name: str
    formula: str
    subjects: tuple[tuple[str, ...], ...]  # token sequences
    quantities: frozenset[str]
    kind: str  # derived, heuristic, published, mistake
    params: str  # "slope=0.2"
    correct: str  # for a mistake: the id of the right constant
    decimal: str  # proven, DIGITS significant digits
    value: Decimal  # |value|
    order: int

    @property
    def heuristic(self) -> bool:
        return self.kind == "heuristic"

    @property
    def ordinary(self) -> bool:
        """Within 6 digits of a simple fraction (1, 0.5, 5/3)?"""
        return _ordinary(self.value)


_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """The lower-case words of a name or a line (``relu_gamma`` → relu, gamma)."""
    return _WORD.findall(text.lower())


@functools.lru_cache(maxsize=1024)
def _ordinary(value: Decimal) -> bool:
    near = Fraction(value).limit_denominator(SIMPLE_DENOMINATOR)
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
            frozenset(quantities),
            kind,
            params,
            correct,
            decimal,
            Decimal(decimal).copy_abs(),
            order,
        )
        for order, (cid, name, formula, subjects, quantities, kind, params, correct, decimal) in enumerate(
            ROWS
        )
        if Decimal(decimal) != 0
    )


@functools.cache
def by_id() -> dict[str, Constant]:
    return {c.id: c for c in index()}


@functools.cache
def _sorted() -> tuple[list[Decimal], list[Constant]]:
    ordered = sorted(index(), key=lambda c: c.value)
    return [c.value for c in ordered], ordered


@functools.cache
def float_values() -> tuple[list[float], list[Constant]]:
    """The index's values as floats, ascending, with their constants (a cheap first cut for
    ``audit``; Decimal decides)."""
    values, ordered = _sorted()
    return [float(v) for v in values], ordered


def within(value: Decimal, relative: Decimal) -> list[Constant]:
    """Constants c with |c − value| ≤ relative·value."""
    if not LOWEST < value < HIGHEST:
        return []  # no constant is of this size (and 1e1000000 never meets Decimal arithmetic)
    values, ordered = _sorted()
    width = value * relative
    return ordered[bisect_left(values, value - width) : bisect_right(values, value + width)]


def near(value: Decimal, digits: int) -> list[Constant]:
    """Constants within a relative 2·10^(1 − digits) of the value (a superset of those that
    agree to ``digits`` significant digits)."""
    return within(value, Decimal(2) * Decimal(10) ** (1 - digits))


DENSITY_WINDOW = 0.1  # ±10 % in log scale


def density(value: Decimal) -> float:
    """Distinct constant values per unit of log(value) within ±10 % of it: how many constants a
    number this near one of them meets by chance."""
    values, _ = _sorted()
    x = float(value)
    low = bisect_left(values, Decimal(repr(x * math.exp(-DENSITY_WINDOW))))
    high = bisect_right(values, Decimal(repr(x * math.exp(DENSITY_WINDOW))))
    distinct = len({v.quantize(Decimal("1e-12")) if v >= 1 else round(v, 14) for v in values[low:high]})
    return distinct / (2 * DENSITY_WINDOW)


# --- subjects ----------------------------------------------------------------------------------


@functools.cache
def by_subject() -> dict[tuple[str, ...], list[Constant]]:
    found: dict[tuple[str, ...], list[Constant]] = {}
    for c in index():
        for s in c.subjects:
            found.setdefault(s, []).append(c)
    return found


@functools.cache
def subject_words() -> frozenset[str]:
    """Every word of every subject (the cheap pass of ``audit``)."""
    return frozenset(word for subject in by_subject() for word in subject)


@functools.cache
def quantity_words() -> frozenset[str]:
    return frozenset(word for c in index() for word in c.quantities)


@functools.cache
def _subjects_by_first_word() -> dict[str, tuple[tuple[str, ...], ...]]:
    found: dict[str, list[tuple[str, ...]]] = {}
    for subject in by_subject():
        found.setdefault(subject[0], []).append(subject)
    return {word: tuple(sorted(subjects, key=len, reverse=True)) for word, subjects in found.items()}


def named_in(words: list[str]) -> list[tuple[str, ...]]:
    """The subjects that occur in ``words`` as consecutive words, longest first at each place and
    none inside a longer one (``leaky_relu`` names leaky_relu, not relu; ``quick_gelu`` names
    quick_gelu, not gelu)."""
    starting = _subjects_by_first_word()
    found = []
    i = 0
    while i < len(words):
        for subject in starting.get(words[i], ()):
            if tuple(words[i : i + len(subject)]) == subject:
                found.append(subject)
                i += len(subject)
                break
        else:
            i += 1
    return found


def _stem(word: str) -> str:
    """A word without the number it ends in (``gamma2`` → gamma): a name's index or version,
    which does not change what the word says."""
    return word.rstrip("0123456789") or word


def key_subject(key: str) -> tuple[str, ...] | None:
    """The subject a dict key or keyword names on its own, its quantity words aside
    (``relu6=`` and ``selu_lambda=`` name relu6 and selu, ``gamma_relu_2=`` names relu,
    ``shifted_softplus_1=`` names nothing, ``gamma=`` is only generic words: None)."""
    quantities = quantity_words()
    words = [w for w in tokens(key) if _stem(w) not in GENERIC_WORDS and _stem(w) not in quantities]
    if not words:
        return None
    subjects = by_subject()
    if tuple(words) in subjects:
        return tuple(words)
    while words and words[-1].isdigit():  # a trailing index: relu_2 is relu (relu_6 is relu6, above)
        words.pop()
    return tuple(words) if words and tuple(words) in subjects else ()


def quantities_in(words: list[str]) -> frozenset[str]:
    """The quantity words among ``words`` (plurals count: gammas, stds; and numbered ones: gamma2)."""
    known = quantity_words()
    found = set()
    for w in set(words):  # (a minified line repeats its words: each is looked at once)
        for form in (w, _stem(w)):
            if form in known:
                found.add(form)
            elif form.endswith("s") and form[:-1] in known:
                found.add(form[:-1])
    return frozenset(found)


# --- generic numbers ---------------------------------------------------------------------------


class Generic(NamedTuple):
    label: str  # "sqrt(2/3)", "pi", "1/2"
    value: Decimal


@functools.cache
def _pi() -> Decimal:
    two_over_pi = by_id()["closed.two_over_pi"].value
    return _CONTEXT.divide(Decimal(2), two_over_pi)


def _fraction_label(r: Fraction) -> str:
    return str(r.numerator) if r.denominator == 1 else f"{r.numerator}/{r.denominator}"


def generic_near(value: Decimal, tolerance: Decimal) -> Generic | None:
    """The generic number within ``tolerance`` of ``value`` (the simplest form first), or None."""
    if not value or value > 10**6 or value < Decimal("1e-6"):
        return None
    r = Fraction(value).limit_denominator(SIMPLE_DENOMINATOR)
    if r and abs(_CONTEXT.divide(Decimal(r.numerator), Decimal(r.denominator)) - value) <= tolerance:
        return Generic(_fraction_label(r), _CONTEXT.divide(Decimal(r.numerator), Decimal(r.denominator)))
    square = _CONTEXT.multiply(value, value)
    pi = _pi()
    for j, bound in ((0, ROOT_BOUND), (-1, PI_BOUND), (1, PI_BOUND), (-2, PI_BOUND), (2, PI_BOUND)):
        power = _CONTEXT.power(pi, j)
        r = Fraction(_CONTEXT.divide(square, power)).limit_denominator(bound)
        if not r or r.numerator > bound or (j == 0 and _perfect_square(r)):
            continue
        exact = _CONTEXT.multiply(_CONTEXT.divide(Decimal(r.numerator), Decimal(r.denominator)), power).sqrt(
            _CONTEXT
        )
        if abs(_CONTEXT.subtract(exact, value)) <= tolerance:
            return Generic(_generic_label(r, j), exact)
    return None


def _perfect_square(r: Fraction) -> bool:
    return math.isqrt(r.numerator) ** 2 == r.numerator and math.isqrt(r.denominator) ** 2 == r.denominator


def _generic_label(r: Fraction, j: int) -> str:
    """sqrt(r*pi^j) as one writes it: sqrt(2/3), sqrt(2/pi), 1/sqrt(2*pi), 2/pi, pi."""
    p, q = r.numerator, r.denominator
    if j in (2, -2) and _perfect_square(r):
        p, q = math.isqrt(p), math.isqrt(q)
        if j == 2:
            return ("pi" if p == 1 else f"{p}*pi") + ("" if q == 1 else f"/{q}")
        return f"{p}/" + ("pi" if q == 1 else f"({q}*pi)")
    top = {0: f"{p}", 1: f"{p}*pi", -1: f"{p}", 2: f"{p}*pi^2", -2: f"{p}"}[j].replace("1*", "")
    bottom = {0: f"{q}", 1: f"{q}", -1: f"{q}*pi", 2: f"{q}", -2: f"{q}*pi^2"}[j].replace("1*", "")
    if bottom == "1":
        return f"sqrt({top})"
    if top == "1":
        return f"1/sqrt({bottom})"
    return f"sqrt({top}/{bottom})" if "*" not in bottom else f"sqrt({top}/({bottom}))"


@functools.cache
def generic_value(constant_id: str) -> Generic | None:
    """Is the constant itself a generic number (relu2's gain is √(2/3), relu's mean 1/√(2π))?"""
    c = by_id()[constant_id]
    return generic_near(c.value, c.value * Decimal("1e-30"))
