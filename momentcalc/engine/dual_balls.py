"""Forward-mode derivatives on Arb balls: a formula evaluated at ``Dual(x, 1)`` gives its value
and its derivative, each enclosing every point of the ball x.

A dual number a + b·ε (ε² = 0) carries f(x) and f'(x) through the chain rule:
(f·g)' = f'g + fg', (f/g)' = (f'g − fg')/g², (√f)' = f'/(2√f), (asin f)' = f'/√(1 − f²),
(acos f)' = −f'/√(1 − f²). Both parts are Arb balls, so at a ball x the second part encloses
f'(t) for every t in x: the slope bound a mean-value form f(m) + f'(x)·(x − m) needs, with no
derivative written out by hand. A plain number (an int or an arb) in an operation is a
constant (derivative 0).
"""

from __future__ import annotations

from typing import Any


class Dual:
    """value + slope·ε over Arb balls (python-flint ``arb``)."""

    __slots__ = ("slope", "value")

    def __init__(self, value: Any, slope: Any) -> None:
        self.value = value
        self.slope = slope

    @staticmethod
    def _parts(other: Any) -> tuple[Any, Any]:
        if isinstance(other, Dual):
            return other.value, other.slope
        return other, 0

    def __add__(self, other: Any) -> Dual:
        value, slope = self._parts(other)
        return Dual(self.value + value, self.slope + slope)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Dual:
        value, slope = self._parts(other)
        return Dual(self.value - value, self.slope - slope)

    def __rsub__(self, other: Any) -> Dual:
        return Dual(other - self.value, -self.slope)

    def __neg__(self) -> Dual:
        return Dual(-self.value, -self.slope)

    def __mul__(self, other: Any) -> Dual:
        value, slope = self._parts(other)
        return Dual(self.value * value, self.slope * value + self.value * slope)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Dual:
        value, slope = self._parts(other)
        return Dual(self.value / value, (self.slope * value - self.value * slope) / (value * value))

    def __rtruediv__(self, other: Any) -> Dual:
        return Dual(other / self.value, -other * self.slope / (self.value * self.value))

    def __pow__(self, power: int) -> Dual:
        if not isinstance(power, int) or power < 1:
            raise TypeError("Dual ** takes a positive whole power")
        return Dual(self.value**power, power * self.value ** (power - 1) * self.slope)

    def sqrt(self) -> Dual:
        root = self.value.sqrt()
        return Dual(root, self.slope / (2 * root))

    def asin(self) -> Dual:
        return Dual(self.value.asin(), self.slope / (1 - self.value * self.value).sqrt())

    def acos(self) -> Dual:
        return Dual(self.value.acos(), -self.slope / (1 - self.value * self.value).sqrt())


def value_and_slope(result: Any) -> tuple[Any, Any]:
    """(value, derivative) of a formula's result, a constant's derivative 0."""
    return Dual._parts(result)


__all__ = ["Dual", "value_and_slope"]
