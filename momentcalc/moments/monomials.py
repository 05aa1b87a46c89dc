"""Integrands as monomials x^a·φ(x)^b·φ'(x)^c, written as tuples ``(a, b, c)``.

The moments the commands need are such monomials: E[φ] = (0, 1, 0), E[φ²] = (0, 2, 0),
E[φ'²] = (0, 0, 2), and mean-field theory's E[x·φ·φ'] = (1, 1, 1) (with Stein's lemma,
E[φ·φ''] = E[X·φ·φ']/q − E[φ'²] under N(0, q)); GAU's E[φ⁴] = (0, 4, 0).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import mpmath

Monomial = tuple[int, int, int]

MEAN: Monomial = (0, 1, 0)
SECOND_MOMENT: Monomial = (0, 2, 0)
DERIVATIVE_SECOND_MOMENT: Monomial = (0, 0, 2)

# The catalog's closed forms (under N(0, 1)) are keyed by these names.
NAMES: dict[Monomial, str] = {
    MEAN: "mean",
    SECOND_MOMENT: "second_moment",
    DERIVATIVE_SECOND_MOMENT: "derivative_second_moment",
}


def checked(monomials: Sequence[object]) -> tuple[Monomial, ...]:
    """The monomials as tuples of three whole numbers >= 0 (TypeError/ValueError otherwise)."""
    result = []
    for item in monomials:
        powers: tuple[Any, ...] = tuple(item)  # type: ignore[arg-type]  # not iterable: the TypeError the docstring promises
        if len(powers) != 3 or not all(
            isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in powers
        ):
            raise ValueError(
                f"a monomial is (a, b, c) with whole a, b, c >= 0 for x^a*phi^b*phi'^c, got {item!r}"
            )
        result.append(powers)
    return tuple(result)


def name(monomial: Monomial) -> str:
    """How errors call the expectation: ``mean``, ``second_moment``, … or ``E[x*phi*phi'^2]``."""
    if monomial in NAMES:
        return NAMES[monomial]
    parts = [
        f"{base}^{power}" if power > 1 else base
        for base, power in zip(("x", "phi", "phi'"), monomial)
        if power
    ]
    return "E[" + ("*".join(parts) or "1") + "]"


def vanishes(monomial: Monomial, parity: str | None) -> bool:
    """Is E[x^a·φ^b·φ'^c] exactly 0 under a centred Gaussian, by symmetry? For odd φ (φ' even)
    the integrand is odd when a + b is odd; for even φ (φ' odd), when a + c is odd."""
    a, b, c = monomial
    if parity == "odd":
        return (a + b) % 2 == 1
    if parity == "even":
        return (a + c) % 2 == 1
    return False


def integrand(
    monomials: Sequence[Monomial], values: Callable[[mpmath.mpf], tuple[mpmath.mpf, mpmath.mpf]]
) -> Callable[[mpmath.mpf], tuple[mpmath.mpf, ...]]:
    """x -> (x^a·φ^b·φ'^c for each monomial), with ``values(x) = (φ(x), φ'(x))`` called once.

    Each term is x^a, then ·φ^b, then ·φ'^c, each power a left-to-right product (v·v·v), as
    written out; the powers and partial products the monomials have in common are computed
    once per x.
    """
    # A register machine: registers 0, 1, 2 hold x, φ, φ'; each step appends the product of
    # two registers (the powers v^k = v^(k−1)·v, then the partial products in turn).
    steps: list[tuple[int, int]] = []
    register: dict[object, int] = {(0, 1): 0, (1, 1): 1, (2, 1): 2}

    def product(key: object, left: int, right: int) -> int:
        if key not in register:
            register[key] = 3 + len(steps)
            steps.append((left, right))
        return register[key]

    def power(index: int, exponent: int) -> int:
        if (index, exponent) not in register:
            product((index, exponent), power(index, exponent - 1), index)
        return register[index, exponent]

    outputs: list[int] = []  # per monomial, its register (-1: the constant 1)
    for monomial in monomials:
        prefix: tuple[tuple[int, int], ...] = ()
        slot = -1
        for index, exponent in enumerate(monomial):
            if exponent:
                prefix += ((index, exponent),)
                part = power(index, exponent)
                slot = part if slot < 0 else product(prefix, slot, part)
        outputs.append(slot)

    one = -1 in outputs  # the constant 1 goes last, where register -1 finds it
    pick = operator.itemgetter(*outputs) if len(outputs) > 1 else lambda registers: (registers[outputs[0]],)

    def evaluate(x: mpmath.mpf) -> tuple[mpmath.mpf, ...]:
        f, d = values(x)
        registers = [x, f, d]
        for left, right in steps:
            registers.append(registers[left] * registers[right])
        if one:
            registers.append(mpmath.mpf(1))
        return pick(registers)

    return evaluate


def needs_derivative(monomials: Sequence[Monomial]) -> bool:
    return any(m[2] for m in monomials)
