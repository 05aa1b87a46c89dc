"""From balls to a result: evaluate at a precision, decide the rounding at ``digits``, keep
what is proven.

``prove(evaluate, precision)`` calls ``evaluate(bits)`` inside Arb's working precision
``bits`` — first ``precision.start_bits``, then twice that, and so on — until every ball it
returns rounds to one text at ``precision.digits`` digits (``engine.rounding.decide_all``),
and raises PrecisionError (exit 3) past ``precision.max_bits``. Values known exactly (a
rational: a mean that symmetry makes exact) are given as ``exact`` and never evaluated as
balls. The answer is the ``Quantity`` fields of each name: the midpoint as ``value``,
``certified`` and the radius as ``error_bound`` (or the fraction itself as ``exact``).

``certify`` does that and builds the ``Computation`` a command returns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from ..engine.balls import arb_precision, exactly, proven
from ..engine.precision import Precision
from ..engine.rounding import decide_all
from ..result import Computation, Quantity
from .inputs import check_digits

# evaluate(bits) -> {name: arb ball}, computed at ``bits`` bits of Arb precision.
Evaluate = Callable[[int], Mapping[str, Any]]
# Quantity keyword arguments of one proven value (``value``, ``certified``, ``error_bound``, …).
Fields = dict[str, Any]


def precision_of(digits: int | Precision) -> Precision:
    """``digits`` (checked) as a Precision; a Precision as it is."""
    return digits if isinstance(digits, Precision) else Precision(check_digits(digits))


def prove(evaluate: Evaluate | None, digits: int | Precision, *, exact: Mapping[str, Fraction | int] | None = None,
          start_bits: int | None = None, what: str = "the results") -> dict[str, Fields]:
    """The proven Quantity fields of every ball ``evaluate`` returns (and of every ``exact``
    value), by name: the balls' order, then the exact values'."""
    precision = precision_of(digits)
    exact = {} if exact is None else dict(exact)
    fields: dict[str, Fields] = {}
    if evaluate is not None:
        def balls(bits: int) -> dict[str, Any]:
            with arb_precision(bits):
                return {name: ball for name, ball in evaluate(bits).items() if name not in exact}

        decided = decide_all(balls, precision.digits, precision.start_bits if start_bits is None else start_bits,
                             precision.max_bits, what)
        fields = {name: proven(ball) for name, ball in decided.items()}
    fields.update((name, exactly(Fraction(value))) for name, value in exact.items())
    return fields


def quantities(describe: Mapping[str, str], fields: Mapping[str, Fields],
               closed: Mapping[str, tuple[str | None, str | None]] | None = None) -> tuple[Quantity, ...]:
    """One Quantity per name of ``describe`` that has ``fields`` (in ``describe``'s order), with
    its description and, from ``closed``, its (closed form, LaTeX)."""
    closed = {} if closed is None else closed
    return tuple(
        Quantity(name, description=text, **dict(zip(("closed_form", "latex"), closed.get(name, (None, None)))),
                 **fields[name])
        for name, text in describe.items() if name in fields
    )


def certify(command: str, *, inputs: Mapping[str, Any], evaluate: Evaluate | None, digits: int | Precision,
            describe: Mapping[str, str], exact: Mapping[str, Fraction | int] | None = None,
            closed: Mapping[str, tuple[str | None, str | None]] | None = None, notes: Iterable[str] = (),
            derivation: Iterable[tuple[str, str, str]] = (), extra: Mapping[str, Any] | None = None,
            start_bits: int | None = None) -> Computation:
    """The Computation of ``command`` at ``inputs``: every ball of ``evaluate`` and every
    ``exact`` value proven to ``digits`` digits (``prove``), described by ``describe`` (which
    also fixes the order of the results; a name it lists that was not computed is left out)."""
    precision = precision_of(digits)
    fields = prove(evaluate, precision, exact=exact, start_bits=start_bits)
    return Computation(command, dict(inputs), precision.digits, quantities(describe, fields, closed),
                       notes=tuple(notes), derivation=tuple(derivation), extra=dict(extra or {}))
