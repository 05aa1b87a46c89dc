"""``identify VALUE...``: which initialization constant a number, as written, is (the rules are
``identification``'s, shared with ``audit``; the index is ``constant_index``'s).

For each value: the constants its digits identify, best first — nearest first, each with its
exact value, ``digits_correct``/``digits_written``, ``ulps_off``, the relative error, the double
to paste and a verdict (``ok``, ``inexact``, ``wrong``) — or ``no match`` with the reason: an
exact simple number (2, 0.5), a generic number that is not in the index (3.14159 is π), or no
constant near enough; when no constant is identified but some are nearer than chance would put
them, those are listed as ``near`` rows without a verdict. Exit 1 when a value has no match or
its first candidate is wrong (``strict``: or inexact).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..tier import InputError, Listing
from .constant_index import Constant, index
from .identification import Context, Match, candidates, identify_literal
from .literals import Literal, digits_correct, paste, parse_literal, round_sig

if TYPE_CHECKING:
    from .code_context import Found

__all__ = [
    "Constant",
    "Context",
    "Literal",
    "Match",
    "digits_correct",
    "exact_text",
    "finding_fields",
    "identify",
    "identify_literal",
    "index",
    "index_listing",
    "parse_literal",
]

COMMANDS = {"identify": "identify"}
DEFAULT_DIGITS = 17


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


def _shown_digits(literal: Literal, digits: int | None) -> int:
    return digits if digits is not None else min(38, max(DEFAULT_DIGITS, literal.digits + 2))


def _relative(x: Decimal) -> float:
    return float(f"{float(x):.2e}")


def match_fields(literal: Literal, m: Match, digits: int) -> dict:
    """The fields of a match that ``identify`` rows and ``audit`` findings share."""
    fields: dict[str, Any] = {
        "digits_written": literal.digits,
        "digits_correct": m.digits_correct,
        "ulps_off": m.ulps_off,
        "rel_error": _relative(m.rel_error),
        "paste": paste(m.constant.value),
        "float32": m.float32,
    }
    if m.verdict is not None:
        fields["verdict"] = m.verdict
    if m.mistake is not None:
        fields["mistake"] = {"id": m.mistake.id, "name": m.mistake.name, "formula": m.mistake.formula}
    return fields


def finding_fields(found: Found) -> dict:
    """An ``audit`` finding's fields but its place (path, line, column)."""
    literal, m = found.literal, found.match
    digits = min(38, max(17, literal.digits + 2))
    return {
        "literal": found.text,
        "match": m.how,
        "constant": {
            "id": m.constant.id,
            "name": m.constant.name,
            "formula": m.constant.formula,
            "exact": exact_text(m.constant, digits),
            "heuristic": m.constant.heuristic,
            "kind": m.constant.kind,
        },
        **match_fields(literal, m, digits),
        "test_data": found.context.data,
    }


def identify(
    values: list[str],
    *,
    digits: int | None = None,
    limit: int = 8,
    strict: bool = False,
    name: str | None = None,
) -> Listing:
    """The candidates of each VALUE, best first (``limit`` each); ``name``: the name the value
    is written under in code (``relu_gamma``), judged as ``audit`` judges a key."""
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
    rows, no_match, failed = [], [], []
    worst = ("inexact", "wrong") if strict else ("wrong",)
    for literal in literals:
        shown = _shown_digits(literal, digits)
        if name is not None:
            found = identify_literal(literal, Context(keys=(name,), names=(name,), text=name))
            outcome_matches, reason = found[:1], None if found else "the name names no constant it can be"
        else:
            outcome = candidates(literal)
            outcome_matches, reason = outcome.matches, outcome.no_match
        identified = [m for m in outcome_matches if m.how != "near"]
        for rank, m in enumerate(outcome_matches[:limit], 1):
            rows.append(_row(literal, m, shown) | {"rank": rank})
        if not identified:
            no_match.append({"literal": literal.text, "reason": reason or "no constant of the index"})
        elif identified[0].verdict in worst:
            failed.append(literal.text)
    return Listing(
        "identify",
        ("literal", "id", "exact", "digits", "ulps_off", "rel_error", "match", "verdict", "note"),
        tuple(rows),
        title="identify: the constants of momentcalc's index each value can be, best first",
        extra={"ok": not no_match and not failed, "no_match": no_match},
        labels={"digits": "digits correct/written", "rel_error": "rel. error"},
        failures=tuple(f"{entry['literal']}: no match ({entry['reason']})" for entry in no_match),
    )


def _row(literal: Literal, m: Match, digits: int) -> dict:
    row = {
        "literal": literal.text,
        "id": m.constant.id,
        "name": m.constant.name,
        "formula": m.constant.formula,
        "exact": exact_text(m.constant, digits),
        "heuristic": m.constant.heuristic,
        "kind": m.constant.kind,
        "match": "nearest" if m.how == "near" else m.how,
        "digits": f"{m.digits_correct}/{literal.digits}",
        **match_fields(literal, m, digits),
    }
    notes = []
    if m.equals is not None:
        row["equals"] = m.equals
        if m.equals != m.constant.name:
            notes.append(f"= {m.equals}")
    if m.float32 and m.verdict is not None:
        notes.append("judged as float32")
    if m.mistake is not None:
        notes.append(f"the literal is {m.mistake.formula}: {m.mistake.name}")
    if notes:
        row["note"] = "; ".join(notes)
    return row


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
                Constant(
                    cid,
                    name,
                    formula,
                    (),
                    frozenset(),
                    kind,
                    params,
                    correct,
                    decimal,
                    Decimal(decimal).copy_abs(),
                    0,
                ),
                shown,
            )
            if Decimal(decimal)
            else "0",
            "heuristic": kind == "heuristic",
            "kind": kind,
            "subjects": list(subjects),
            "quantities": list(quantities),
        }
        for cid, name, formula, subjects, quantities, kind, params, correct, decimal in ROWS
    )
    return Listing(
        "identify",
        ("id", "exact", "formula", "name"),
        rows,
        title="the index of initialization constants (identify, audit)",
    )
