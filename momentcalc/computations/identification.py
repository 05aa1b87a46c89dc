"""What a literal is: the rules ``identify`` and ``audit`` share.

A literal L with d significant digits written is weighed against every constant c of the index
(``constant_index``) and against the generic numbers (simple fractions, √(p/q), π forms):

* **by value** — c explains L's digits beyond chance: every written digit right at d ≥ 5 (where
  a rounding that close is met by chance at most once in 1000 literals: ``_rounding_is_rare``), or
  ≥ 8 significant digits agree, or L is a float32 print (``literals.float32_print``) within 4
  float32 ulps of c's float32 rounding (0 ulps: ok). A *generic* explanation that is as near (both within L's own rounding, or
  nearer) wins over an index constant: 0.39894228 is 1/√(2π), not relu6's mean 0.3989422802…
  Constants whose value is generic or within 6 digits of a simple fraction (relu's gain √2,
  identity's 1, relu6's second moment 1/2 − 2e-9) are this literal only when the context names
  them. Among the constants that explain L the nearest wins (then the context, then derived
  before heuristic).
* **by context** — when nothing explains L by value, the code around it may name a constant:
  its *subject* (an activation, the truncated normal, SELU, ...: named by the call the literal
  multiplies, a dict key or keyword, the assigned name or enclosing def/class, or the line) and
  its *quantity* (gamma, gain, std, mean, ...: a word of a name, key or the line; or the
  operator joining the literal to the activation's call: ``act(x) * L`` is an output scale,
  ``act(x) / L`` a std, ``act(x) - L`` a mean; or the form every entry of a table of named
  activations agrees with). With subject *and* quantity named (strong context) a literal within
  1 % of the constant and agreeing to ≥ 2 digits is that constant, however many digits are
  wrong: ``_nonlin_gamma = dict(relu=1.7139588594436646)`` is relu's gamma, wrong. With only
  the subject named (weak context) it must be right to all but its last digit, and no other
  constant of the index may fit its digits better: ``"softplus": 0.5205088334781294`` (a test's
  expected output) is unidentified, and quick_gelu's 1.702 near the word gelu is not gelu's
  gamma. A literal that is exactly a simple fraction (2, 0.5, 1.0) is never any other constant.
* **the verdict** — ``ok`` when every written digit is right or it is the same double (or, for a
  float32 print, the same float32); ``inexact`` when 1–4 ulps off or one digit short; ``wrong``
  otherwise. A known mistaken formula of the index (``kind == "mistake"``: jax's complex
  truncated-normal std without its normalisation) identified by value is reported as a
  ``wrong`` value of the correct constant.
* **test data** — a literal in a test's expectation or in generated data (``Context.data``)
  gets no strong context (names there describe data); by-value findings are kept and marked.

A by-value candidate set is ranked by nearness (the relative error |L − c|/c), ties within L's
own rounding broken by the context, then by kind. ``candidates`` (``identify``, no context)
also lists, when nothing explains L, the *nearest* constants a number that near would meet by
chance at most one time in four (twice the relative error times the index's local density of
values ≤ 0.25) — marked ``near``, not identified, never labelled wrong.
"""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import NamedTuple

from .constant_index import (
    Constant,
    Generic,
    by_id,
    by_subject,
    density,
    generic_near,
    generic_value,
    key_subject,
    named_in,
    near,
    quantities_in,
    tokens,
    within,
)
from .literals import (
    Literal,
    consistent,
    digits_correct,
    float32_print,
    half_unit,
    in_range,
    rel_error,
    resolution,
    simple_fraction,
    ulps_off,
)

BY_VALUE_DIGITS = 8  # significant digits that agree
ROUNDING_DIGITS = 5  # a correct rounding this long is identified by value
CONTEXT_DIGITS = 2
CONTEXT_RELATIVE = Decimal("0.01")
ORDINARY_LITERAL_DIGITS = 4
PUBLISHED_DIGITS = 3  # a published coefficient written out exactly
# In prose a subject names what a sentence or a table row is about, not each number in it: a
# literal this short is a constant there only when its quantity is named too (strong context).
PROSE_WEAK_DIGITS = 3
BY_VALUE_CHANCE = 1e-3
FLOAT32_ULPS = 4  # a float32 print this near the constant's float32 is it, computed in float32
ROUND_NUMBER_DIGITS = 4  # a constant with this few digits (0.52, 0.545) is nobody's approximation
NEAR_CHANCE = 0.25  # identify's nearest constants: met by chance at most 1 time in 4
# The operator joining a literal to an activation's call names a quantity.
OPERATOR_QUANTITIES = {"*": ("gamma", "gain", "scale"), "/": ("std", "rms"), "-": ("mean",), "+": ("mean",)}
# Subject levels, strongest first.
LEVELS = ("call", "key", "name", "line")


class Call(NamedTuple):
    """The activation call a literal is joined to by ``op`` (``jax.nn.leaky_relu(x) * L``):
    the subjects it names and the parameters it runs at (None: not known)."""

    subjects: tuple[tuple[str, ...], ...]
    params: str | None
    op: str


class Context(NamedTuple):
    """What the code around a literal says."""

    keys: tuple[str, ...] = ()  # dict keys / keywords the literal is under, innermost first
    names: tuple[str, ...] = ()  # the assigned name, the enclosing def and class
    text: str = ""  # the line, and the comment lines just above it
    call: Call | None = None
    table: str | None = None  # the form (``centered_gain``) a table of named activations agrees with
    data: bool = False  # a test expectation or generated data
    prose: bool = False  # a line of prose (Markdown): its words say what a sentence or row is about


NO_CONTEXT = Context()


class Match(NamedTuple):
    constant: Constant  # the constant the literal is judged against
    digits_correct: int
    ulps_off: int | None
    verdict: str | None  # None for identify's nearest constants (not identified)
    how: str  # "value", "context" or "near"
    float32: bool  # judged as a float32 print
    rel_error: Decimal
    mistake: Constant | None = None  # the known mistaken formula the literal is
    equals: str | None = None  # the generic number the constant is (sqrt(2), 1/sqrt(2*pi))


class Outcome(NamedTuple):
    """identify's answer for one literal: its matches (best first) and, when none is
    identified, why (``no_match``)."""

    matches: list[Match]
    no_match: str | None


def judge(literal: Literal, constant: Constant, how: str, float32: bool | None = None) -> Match:
    """The verdict of the literal as this constant (a mistake entry: as the correct one)."""
    mistake = None
    if constant.kind == "mistake":
        mistake, constant = constant, by_id()[constant.correct]
    exact = constant.value
    f32 = float32_print(literal) if float32 is None else float32
    correct = digits_correct(literal, exact)
    double = ulps_off(literal, exact, False)
    verdict, judged_f32, ulps = _verdict(literal, exact, correct, double, f32)
    if mistake is not None:
        verdict = "wrong"
    generic = generic_value(constant.id)
    return Match(
        constant,
        correct,
        ulps,
        verdict,
        how,
        judged_f32,
        rel_error(literal, exact),
        mistake,
        generic.label if generic else None,
    )


def _verdict(
    literal: Literal, exact: Decimal, correct: int, double: int | None, f32: bool
) -> tuple[str, bool, int | None]:
    """(verdict, judged as float32, ulps off): ulps in doubles for a literal of ≥ 15 digits,
    in float32 for a shorter float32 print (the verdict of a float32 print compares float32s)."""
    if correct >= literal.digits or double == 0:
        return "ok", False, double
    if f32:
        single = ulps_off(literal, exact, True)
        assert single is not None  # a float32 print is always judged in float32 ulps
        shown = double if double is not None else single
        if single == 0:
            return "ok", True, shown
        return ("inexact" if abs(single) <= 4 else "wrong"), True, shown
    if double is not None and abs(double) <= 4:
        return "inexact", False, double
    if correct == literal.digits - 1:
        return "inexact", False, double
    return "wrong", False, double


# --- by value ----------------------------------------------------------------------------------


def _explains(
    literal: Literal, exact: Decimal, f32: bool, published: bool = False, rounding_counts: bool = True
) -> bool:
    """Do the literal's digits say it is this number (beyond chance)? (A published coefficient,
    exact by definition and short, is written exactly: 1.702, 0.044715.)"""
    if rounding_counts and literal.digits >= ROUNDING_DIGITS and consistent(literal, exact):
        return True
    if published and literal.digits >= PUBLISHED_DIGITS and literal.value == exact:
        return True
    if digits_correct(literal, exact) >= BY_VALUE_DIGITS:
        return True
    if not (f32 and literal.digits >= 6):
        return False
    single = ulps_off(literal, exact, True)
    return single is not None and abs(single) <= FLOAT32_ULPS


def _rounding_is_rare(literal: Literal) -> bool:
    """Is a correct rounding at the literal's digits rare enough to identify it? A number of d
    digits lands within its own rounding of some constant by chance with probability about
    2·(half unit / value)·(the index's local density of values): at most 1 in 1000 (1.6306, a
    test's optimizer step, is no leaky_relu gamma; the truncated normal's std ratio to 8 digits is)."""
    chance = 2 * float(half_unit(literal) / literal.value) * density(literal.value)
    return chance <= BY_VALUE_CHANCE


def generic_explanation(literal: Literal) -> Generic | None:
    """The generic number the literal is by value (3.14159 is π, 0.81649658 is √(2/3))."""
    if literal.digits < ROUNDING_DIGITS:
        return None
    f32 = float32_print(literal)
    tolerance = max(half_unit(literal), literal.value * Decimal(10) ** (1 - BY_VALUE_DIGITS) / 2)
    if f32:  # within 4 float32 ulps
        tolerance = max(tolerance, 2 * FLOAT32_ULPS * resolution(literal))
    g = generic_near(literal.value, tolerance)
    if g is None or not _explains(literal, g.value, f32):
        return None
    return g


def _needs_context(c: Constant) -> bool:
    return c.ordinary or generic_value(c.id) is not None


def by_value(literal: Literal) -> list[Constant]:
    """The constants the literal's digits identify."""
    return list(_by_value(literal))


@functools.lru_cache(maxsize=1 << 16)  # a codebase writes the same literals again and again
def _by_value(literal: Literal) -> tuple[Constant, ...]:
    if literal.digits < PUBLISHED_DIGITS or not in_range(literal):
        return ()
    # A first cut before any exact work: both reaches below are at least min(digits, 6) digits,
    # so a literal with no constant that near has none in either (most numbers of a data file).
    if not near(literal.value, min(literal.digits, 6)) or simple_fraction(literal) is not None:
        return ()
    f32 = float32_print(literal)
    reach = near(literal.value, 6 if f32 else min(literal.digits, BY_VALUE_DIGITS))
    if not reach:
        return ()
    rare = _rounding_is_rare(literal)
    return tuple(c for c in reach if _explains(literal, c.value, f32, c.kind == "published", rare))


def value_alone(literal: Literal) -> tuple[bool, tuple[Constant, ...]]:
    """What the literal's digits say whatever the context: (True, ()) when they identify a
    constant on their own (``identify_literal`` returns it, or a nearer one, with any context);
    else (False, the constants they reach that only a context naming them identifies). The
    cheap pass of ``audit`` asks this before it reads any context."""
    found = _by_value(literal)
    if not found:
        return False, ()
    generic = generic_explanation(literal)
    if any(not _needs_context(c) and not _explained_away(literal, c, generic) for c in found):
        return True, ()
    return False, found


def _explained_away(literal: Literal, c: Constant, g: Generic | None) -> bool:
    """Does the generic number explain the literal at least as well as c (which is not it)?"""
    if g is None or abs(c.value - g.value) <= c.value * Decimal("1e-30"):
        return False
    return abs(literal.value - g.value) <= abs(literal.value - c.value) + resolution(literal)


# --- context -----------------------------------------------------------------------------------


def _subject_levels(context: Context) -> dict[tuple[str, ...], str]:
    """Each subject the context names, at its strongest level."""
    found: dict[tuple[str, ...], str] = {}
    if context.call is not None and context.call.subjects:
        for s in context.call.subjects:
            found.setdefault(s, "call")
        return found
    for key in context.keys:
        subject = key_subject(key)
        if subject is None:
            continue
        if subject:
            found.setdefault(subject, "key")
        return found  # a key that names a subject, or names nothing, decides alone
    for name in context.names:
        for s in _words(name)[0]:
            found.setdefault(s, "name")
    for s in _words(context.text)[0]:
        found.setdefault(s, "line")
    return found


@functools.lru_cache(maxsize=256)
def _words(text: str) -> tuple[tuple[tuple[str, ...], ...], frozenset[str]]:
    """The subjects and the quantity words a text names (once per line: every number of a long
    line shares its line's text)."""
    words = tokens(text)
    return tuple(named_in(words)), quantities_in(words)


def _quantities(context: Context) -> frozenset[str]:
    found: set[str] = set()
    for text in (*context.keys, *context.names, context.text):
        found.update(_words(text)[1])
    if context.call is not None:
        found.update(OPERATOR_QUANTITIES.get(context.call.op, ()))
    return frozenset(found)


def _params_fit(c: Constant, context: Context) -> bool:
    """A call at known parameters names only the constants at those parameters."""
    call = context.call
    return call is None or call.params is None or not c.params or c.params == call.params


def _named(context: Context) -> list[tuple[Constant, str, bool]]:
    """(constant, level, strong) for every constant whose subject the context names."""
    levels = _subject_levels(context)
    if not levels:
        return []
    quantities = _quantities(context) if not context.data else frozenset()
    table = context.table if not context.data else None
    out: dict[str, tuple[Constant, str, bool]] = {}
    subjects = by_subject()
    for s, level in levels.items():
        for c in subjects.get(s, ()):
            if not _params_fit(c, context):
                continue
            strong = bool(c.quantities & quantities) or (table is not None and c.id.endswith("." + table))
            if c.id not in out or LEVELS.index(level) < LEVELS.index(out[c.id][1]):
                out[c.id] = (c, level, strong)
    return list(out.values())


def _fits_better(literal: Literal, c: Constant) -> bool:
    """Does some other constant of the index fit every written digit where c does not?"""
    if consistent(literal, c.value):
        return False
    return any(
        other.id != c.id and consistent(literal, other.value) for other in near(literal.value, literal.digits)
    )


def by_context(literal: Literal, context: Context) -> list[Match]:
    """The constants the context names that the literal can be (best first)."""
    if literal.digits < CONTEXT_DIGITS or not in_range(literal):
        return []
    simple = simple_fraction(literal)
    found = []
    for c, level, strong in _named(context):
        if simple is not None and c.value != simple:
            continue  # an exact simple fraction is never a constant that is not it
        if c.ordinary and literal.digits < ORDINARY_LITERAL_DIGITS:
            continue
        if abs(literal.value - c.value) > c.value * CONTEXT_RELATIVE:
            continue
        m = judge(literal, c, "context")
        if m.digits_correct < CONTEXT_DIGITS:
            continue
        if not strong and (m.digits_correct < literal.digits - 1 or _fits_better(literal, c)):
            continue
        if not strong and context.prose and literal.digits <= PROSE_WEAK_DIGITS:
            continue  # a timing or a score in a row about SELU is not SELU's lambda
        found.append((m, level, strong))
    found.sort(key=lambda t: (not t[2], LEVELS.index(t[1]), abs(t[0].rel_error), _kind_rank(t[0].constant)))
    return [m for m, _, _ in found]


def _kind_rank(c: Constant) -> int:
    return {"mistake": 0, "derived": 1, "published": 1, "heuristic": 2}.get(c.kind, 3)


# --- the answer --------------------------------------------------------------------------------


def identify_literal(literal: Literal, context: Context = NO_CONTEXT) -> list[Match]:
    """What the literal is, best first (``audit`` reports the first): by value, else by
    context; [] when it is unidentified."""
    found = by_value(literal)
    if not found:
        return by_context(literal, context)
    generic = generic_explanation(literal)
    named = {c.id for c, _, _ in _named(context)}
    own = [c for c in found if not _needs_context(c) and not _explained_away(literal, c, generic)]
    if own:
        return _ranked(literal, own, named)
    own = [c for c in found if c.id in named]  # the value alone is a generic number: the context names it
    if own:
        return [m._replace(how="context") for m in _ranked(literal, own, named)]
    return by_context(literal, context)


def _ranked(literal: Literal, constants: list[Constant], named: set[str]) -> list[Match]:
    """Nearest first (within the literal's own rounding a tie), then named by the context, then
    the generic closed form, then by kind. A literal that is one constant (verdict ok) is no
    wrong copy of a farther one: those are left out."""
    h = resolution(literal)
    matches = sorted(
        (judge(literal, c, "value") for c in constants),
        key=lambda m: (
            max(abs(literal.value - (m.mistake or m.constant).value), h),
            (m.mistake or m.constant).id not in named,
            m.equals is None,
            not m.constant.id.startswith("closed."),
            _kind_rank(m.mistake or m.constant),
            (m.mistake or m.constant).order,
        ),
    )
    if matches and matches[0].verdict == "ok":
        matches = [m for m in matches if m.verdict != "wrong"]
    return matches


def candidates(literal: Literal) -> Outcome:
    """``identify``: the constants a number can be, with no context: those its digits identify
    (generic-valued ones too), else the nearest ones (``near``), else why there is no match."""
    if not in_range(literal):
        return Outcome([], "no constant of the index is of this size")
    simple = simple_fraction(literal)
    if simple is not None:
        shown = (
            str(simple.numerator) if simple.denominator == 1 else f"{simple.numerator}/{simple.denominator}"
        )
        return Outcome([], f"an exact simple number ({shown}) is no initialization constant by itself")
    found = [c for c in by_value(literal) if not c.ordinary]
    if found:
        return Outcome(_ranked(literal, found, set()), None)
    generic = generic_explanation(literal)
    if generic is not None:
        return Outcome([], f"it is {generic.label} to {literal.digits} digits, which is not in the index")
    limit = min(CONTEXT_RELATIVE, Decimal(repr(NEAR_CHANCE / (2 * max(density(literal.value), 1.0)))))
    nearest = [  # not a coefficient exact by definition, a known mistake, nor a round number (0.52)
        c
        for c in within(literal.value, limit)
        if not _needs_context(c)
        and c.kind in ("derived", "heuristic")
        and len(c.decimal.replace(".", "").strip("-0")) > ROUND_NUMBER_DIGITS
    ]
    if not nearest:
        return Outcome([], "no constant of the index is near enough to tell")
    matches = sorted(
        (judge(literal, c, "near") for c in nearest),
        key=lambda m: (float(f"{abs(m.rel_error):.2e}"), m.constant.order),
    )
    best = matches[0]
    return Outcome(
        [m._replace(verdict=None) for m in matches],
        f"the nearest constant, {best.constant.id}, is {float(abs(best.rel_error)):.1e} away "
        f"({best.digits_correct} of {literal.digits} digits): not identified",
    )
