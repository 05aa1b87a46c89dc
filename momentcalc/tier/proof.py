"""From balls to a result: evaluate at a precision, decide the rounding at ``digits``, keep
what is proven.

``prove(evaluate, precision)`` calls ``evaluate(bits)`` inside Arb's working precision
``bits`` — first ``precision.start_bits``, then twice that, and so on — until every ball it
returns rounds to one text at ``precision.digits`` digits (``engine.rounding.ball_text``),
and raises PrecisionError (exit 3) past ``precision.max_bits``. Values known exactly (a
rational: a mean that symmetry makes exact) are given as ``exact`` and never evaluated as
balls. The answer is the ``Quantity`` fields of each name: the midpoint as ``value``,
``certified`` and the radius as ``error_bound`` (or the fraction itself as ``exact``).

A value ``evaluate`` returns may also be a list of balls (a list result: per-layer correlations,
Hermite coefficients; proven when every ball rounds, its ``error_bound`` the largest radius) or
``INFINITY``, a value the computation has proven to be +∞ by its own argument (C''(1) of an
activation whose derivative jumps), which is printed as ``inf``.

Computations whose routines take decimal digits rather than bits (the bivariate kernels'
quadratures) pass ``extra_digits``: ``evaluate`` is then called with ``digits + extra`` for each
``extra`` in turn and sets its own Arb precision.

A value that is a bound (``outward``: name -> "up" for an upper bound, "down" for a lower one)
is printed rounded outward, the true bound rounded towards +∞ (or −∞) at ``digits`` digits
(``engine.rounding.directed_ball_text``): it is decided when both ends of its ball round so, and
its Quantity carries ``rounding``.

``certify`` does that and builds the ``Computation`` a command returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath

from ..engine.balls import arb_precision, ball_midpoint, ball_radius, exactly, proven
from ..engine.precision import Precision
from ..engine.rounding import ball_text, directed_ball_text
from ..errors import InputError, MomentcalcError, PrecisionError
from ..result import Computation, Quantity
from .inputs import check_digits

# evaluate(bits) -> {name: arb ball, list of arb balls, or INFINITY}, computed at ``bits`` bits
# of Arb precision (or at working digits, with ``extra_digits``).
Evaluate = Callable[[int], Mapping[str, Any]]
# Quantity keyword arguments of one proven value (``value``, ``certified``, ``error_bound``, …).
Fields = dict[str, Any]


class _Infinity:
    """The type of ``INFINITY``: one value, printed as ``inf``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "INFINITY"


# A result proven to be +∞ by the computation's own argument (not a ball: Arb's +inf is no proof).
INFINITY = _Infinity()


def precision_of(digits: int | Precision) -> Precision:
    """``digits`` (checked) as a Precision; a Precision as it is."""
    return digits if isinstance(digits, Precision) else Precision(check_digits(digits))


def prove(
    evaluate: Evaluate | None,
    digits: int | Precision,
    *,
    exact: Mapping[str, Any] | None = None,
    start_bits: int | None = None,
    extra_digits: Sequence[int] | None = None,
    raises: int | None = None,
    outward: Mapping[str, str] | None = None,
) -> dict[str, Fields]:
    """The proven Quantity fields of every value ``evaluate`` returns (and of every ``exact``
    value: a rational, or INFINITY), by name: the balls' order, then the exact values'.

    With ``raises``, the precision is doubled at most that many times and what has rounded by
    then is returned, each value from the first evaluation where it rounded, the others left out
    (for a caller that keeps another route's value, uncertified, rather than hold every result
    back); an evaluation that fails (MomentcalcError) ends the attempts the same way.

    ``outward`` names the bounds (name -> "up" or "down"): each is decided when its ball rounds
    outward to one text, and its fields carry that ``rounding``."""
    precision = precision_of(digits)
    exact = {} if exact is None else dict(exact)
    outward = {} if outward is None else dict(outward)
    fields: dict[str, Fields] = {}
    if evaluate is not None:
        start = precision.start_bits if start_bits is None else start_bits
        if raises is not None:
            decided = _partial(evaluate, precision.digits, start, exact, raises, outward)
        elif extra_digits is None:
            decided = _by_bits(evaluate, precision, start, exact, outward)
        else:
            decided = _by_digits(evaluate, precision.digits, extra_digits, exact, outward)
        fields = {name: fields_of(value) for name, value in decided.items()}
    fields.update(
        (name, fields_of(value if value is INFINITY else Fraction(value))) for name, value in exact.items()
    )
    for name, direction in outward.items():
        if name in fields:
            fields[name]["rounding"] = direction
    return fields


def rounds(ball: Any, digits: int, direction: str | None = None) -> bool:
    """Whether every point of ``ball`` prints as one text at ``digits`` digits: rounded to the
    nearest, or ``direction`` "up"/"down" for a bound."""
    if direction is None or direction == "nearest":
        return ball_text(ball, digits) is not None
    return directed_ball_text(ball, digits, direction == "up") is not None


def _undecided(values: Mapping[str, Any], digits: int, outward: Mapping[str, str] | None = None) -> list[str]:
    """The names whose value does not round to one text at ``digits`` digits yet (a bound named
    in ``outward``: outward)."""
    outward = {} if outward is None else outward
    return [
        name
        for name, value in values.items()
        if value is not INFINITY
        and not all(
            rounds(ball, digits, outward.get(name))
            for ball in (value if isinstance(value, list) else [value])
        )
    ]


def _by_bits(
    evaluate: Evaluate,
    precision: Precision,
    start: int,
    exact: Mapping[str, Any],
    outward: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``evaluate(bits)`` inside Arb precision ``bits``, doubled from ``start`` until every value
    rounds; PrecisionError past ``precision.max_bits``."""
    bits = start
    while True:
        try:
            with arb_precision(bits):
                values = {name: value for name, value in evaluate(bits).items() if name not in exact}
        except InputError as error:
            if bits == start or error.param != "digits":
                raise
            # a part asked for more digits than any route gives: past the limit, not bad input
            # (init-report's 15 digits reached 1563 where a part's ball stayed too wide)
            raise PrecisionError(
                f"could not reach {precision.digits} correct digits within the working precision's limit"
            ) from None
        undecided = _undecided(values, precision.digits, outward)
        if not undecided:
            return values
        if bits >= precision.max_bits:
            raise PrecisionError(
                f"could not reach {precision.digits} correct digits of {', '.join(undecided)} "
                f"within {precision.max_bits} bits of working precision"
            )
        bits = min(2 * bits, precision.max_bits)


def _partial(
    evaluate: Evaluate,
    digits: int,
    start: int,
    exact: Mapping[str, Any],
    raises: int,
    outward: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Each value of ``evaluate(bits)`` from the first of ``raises`` + 1 doublings where it rounds."""
    decided: dict[str, Any] = {}
    bits = start
    for _ in range(raises + 1):
        try:
            with arb_precision(bits):
                values = {name: value for name, value in evaluate(bits).items() if name not in exact}
        except MomentcalcError:
            break
        undecided = set(_undecided(values, digits, outward))
        decided.update(
            (name, value) for name, value in values.items() if name not in decided and name not in undecided
        )
        if len(decided) == len(values):
            break
        bits *= 2
    return decided


def _by_digits(
    evaluate: Evaluate,
    digits: int,
    extra_digits: Sequence[int],
    exact: Mapping[str, Any],
    outward: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``evaluate(digits + extra)`` for each of ``extra_digits`` until every value rounds."""
    for extra in extra_digits:
        values = {name: value for name, value in evaluate(digits + extra).items() if name not in exact}
        if not _undecided(values, digits, outward):
            return values
    raise PrecisionError(
        f"{digits} digits cannot be proven within the precision limit (a value on a rounding tie, "
        "a value that is 0 without a proof of it, or digits lost in a deep composition)"
    )


def fields_of(value: Any) -> Fields:
    """The Quantity fields of a value already decided: a ball, a list of balls, INFINITY, or an
    exact rational (a ``Fraction``)."""
    if isinstance(value, Fraction):
        return exactly(value)
    if value is INFINITY:
        return {"value": mpmath.inf, "certified": True, "error_bound": mpmath.mpf(0)}
    if isinstance(value, list):
        return {
            "value": [ball_midpoint(ball) for ball in value],
            "certified": True,
            "error_bound": max(ball_radius(ball) for ball in value),
        }
    return proven(value)


def quantities(
    describe: Mapping[str, str],
    fields: Mapping[str, Fields],
    closed: Mapping[str, tuple[str | None, str | None]] | None = None,
) -> tuple[Quantity, ...]:
    """One Quantity per name of ``describe`` that has ``fields`` (in ``describe``'s order), with
    its description and, from ``closed``, its (closed form, LaTeX)."""
    closed = {} if closed is None else closed
    return tuple(
        Quantity(
            name,
            description=text,
            **dict(zip(("closed_form", "latex"), closed.get(name, (None, None)))),
            **fields[name],
        )
        for name, text in describe.items()
        if name in fields
    )


def certify(
    command: str,
    *,
    inputs: Mapping[str, Any],
    evaluate: Evaluate | None,
    digits: int | Precision,
    describe: Mapping[str, str],
    exact: Mapping[str, Fraction | int] | None = None,
    closed: Mapping[str, tuple[str | None, str | None]] | None = None,
    notes: Iterable[str] = (),
    derivation: Iterable[tuple[str, str, str]] = (),
    extra: Mapping[str, Any] | None = None,
    start_bits: int | None = None,
    extra_digits: Sequence[int] | None = None,
    outward: Mapping[str, str] | None = None,
) -> Computation:
    """The Computation of ``command`` (the computing function's name: the CLI shows its command's)
    at ``inputs``: every ball of ``evaluate`` and every
    ``exact`` value proven to ``digits`` digits (``prove``), described by ``describe`` (which
    also fixes the order of the results; a name it lists that was not computed is left out);
    ``outward`` names the results that are bounds, printed rounded outward (``prove``)."""
    precision = precision_of(digits)
    fields = prove(
        evaluate, precision, exact=exact, start_bits=start_bits, extra_digits=extra_digits, outward=outward
    )
    return Computation(
        command,
        dict(inputs),
        precision.digits,
        quantities(describe, fields, closed),
        notes=tuple(notes),
        derivation=tuple(derivation),
        extra=dict(extra or {}),
    )
