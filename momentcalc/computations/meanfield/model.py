"""The maps of mean-field signal propagation for one activation (Poole et al. 2016,
"Exponential expressivity in deep neural networks through transient chaos"; Schoenholz et al.
2017, "Deep information propagation"), evaluated at the current working precision.

A fully connected layer h' = W·φ(h) + b with W_ij ~ N(0, σ_w²/fan_in), b_i ~ N(0, σ_b²):

    length map       V(q) = σ_w²·A(q) + σ_b²,       A(q) = E[φ(√q·Z)²]
    its slope        V'(q) = σ_w²·E[X·φ(X)·φ'(X)]/q = σ_w²·(E[φ'²] + E[φ·φ''])   (X = √q·Z, Stein)
    χ₁               σ_w²·B(q),                      B(q) = E[φ'(√q·Z)²]
    correlation map  R(c) = (σ_w²·K(q, c) + σ_b²)/V(q),  K = E[φ(u₁)φ(u₂)]
    its slope        σ_w²·q·K'(q, c)/V(q),           K' = E[φ'(u₁)φ'(u₂)]  (Price's theorem)

(u₁, u₂ of variance q and correlation c). Univariate expectations come from the moments
package, bivariate ones from the catalog's closed-form kernels where they exist, else from
the midpoints of ``moments.bivariate_certified``'s balls (0 < c < 1, activations analytic in
a strip or piecewise exp-polynomial, expressions analytic near the real line), else from
``moments.bivariate_quadrature``'s quadrature.
"""

from __future__ import annotations

from typing import NamedTuple

import mpmath
from mpmath import mp

from ...catalog import Activation
from ...catalog.kernels import Kernel, kernel
from ...moments import expectations

SECOND, STEIN, DERIV2, X2_DERIV2, DERIV = (0, 2, 0), (1, 1, 1), (0, 0, 2), (2, 0, 2), (0, 0, 1)


class Length(NamedTuple):
    """At one q: A = E[φ²], S = E[X·φ·φ']/q = dA/dq, B = E[φ'²]."""

    A: mpmath.mpf
    S: mpmath.mpf
    B: mpmath.mpf


class Model:
    """One activation with its parameters: the expectations the maps need, at ``digits``."""

    def __init__(self, act: Activation, text: str, params: dict[str, object]) -> None:
        self.act = act
        self.text = text  # name or expression, for the moments package's cache
        self.params = params
        self.kernel: Kernel | None = None if act.expression else kernel(act.name)

    def _values(self) -> dict[str, mpmath.mpf]:
        return self.act.param_values()

    def length(self, q: mpmath.mpf, digits: int) -> Length:
        """A(q), A'(q) and B(q) for q > 0."""
        if self.kernel is not None:
            p = self._values()
            k = self.kernel
            return Length(k.cross(q, mp.one, p), k.slope(q, p), k.derivative_cross(q, mp.one, p))
        a, xs, b = expectations(
            self.text, [SECOND, STEIN, DERIV2], std=mpmath.sqrt(q), digits=digits, params=self.params
        )
        return Length(a, xs / q, b)

    def second(self, q: mpmath.mpf, digits: int) -> mpmath.mpf:
        """A(q) = E[φ(√q·Z)²] alone (``find_fixed_point``'s probes need only V(q) − q's sign)."""
        if self.kernel is not None:
            return self.kernel.cross(q, mp.one, self._values())
        (a,) = expectations(self.text, [SECOND], std=mpmath.sqrt(q), digits=digits, params=self.params)
        return a

    def length_and_b_slope(self, q: mpmath.mpf, digits: int) -> tuple[Length, mpmath.mpf]:
        """``length`` and ``b_slope`` together (one quadrature for the four expectations)."""
        if self.kernel is not None:
            return self.length(q, digits), self.b_slope(q, digits)
        a, xs, b, x2b = expectations(
            self.text,
            [SECOND, STEIN, DERIV2, X2_DERIV2],
            std=mpmath.sqrt(q),
            digits=digits,
            params=self.params,
        )
        return Length(a, xs / q, b), (x2b / q - b) / (2 * q)

    def length_parts(self, q: mpmath.mpf, digits: int, slope_digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(A(q) to ``digits``, S(q) = A'(q) to ``slope_digits``): the length map's Newton step."""
        if self.kernel is not None:
            length = self.length(q, digits)
            return length.A, length.S
        std = mpmath.sqrt(q)
        (a,) = expectations(self.text, [SECOND], std=std, digits=digits, params=self.params)
        (xs,) = expectations(self.text, [STEIN], std=std, digits=slope_digits, params=self.params)
        return a, xs / q

    def critical_parts(
        self, q: mpmath.mpf, digits: int, slope_digits: int
    ) -> tuple[tuple[mpmath.mpf, mpmath.mpf], tuple[mpmath.mpf, mpmath.mpf]]:
        """((A, B) to ``digits``, (A', B') to ``slope_digits``) at q: the critical line's Newton step."""
        if self.kernel is not None:
            length, db = self.length_and_b_slope(q, digits)
            return (length.A, length.B), (length.S, db)
        std = mpmath.sqrt(q)
        a, b = expectations(self.text, [SECOND, DERIV2], std=std, digits=digits, params=self.params)
        xs, x2b = expectations(
            self.text, [STEIN, X2_DERIV2], std=std, digits=slope_digits, params=self.params
        )
        return (a, b), (xs / q, (x2b / q - b) / (2 * q))

    def length_at(self, std: mpmath.mpf, monomials: tuple, digits: int) -> tuple[mpmath.mpf, Length]:
        """(q, Length at q) for q = std² exactly, from the expectations of ``monomials`` (which
        start with A's, S's and B's) at that std: the same call as the proof's, so cached."""
        q = std * std
        a, xs, b = expectations(self.text, list(monomials), std=std, digits=digits, params=self.params)[:3]
        return q, Length(a, xs / q, b)

    def b_slope(self, q: mpmath.mpf, digits: int) -> mpmath.mpf:
        """dB/dq = (E[X²·φ'²]/q − B)/(2q) (differentiating the Gaussian density in q)."""
        if self.kernel is not None:
            h = q * mpmath.mpf(10) ** (-(mp.dps // 3))
            p = self._values()
            f = self.kernel.derivative_cross
            return (f(q + h, mp.one, p) - f(q - h, mp.one, p)) / (2 * h)
        x2b, b = expectations(
            self.text, [X2_DERIV2, DERIV2], std=mpmath.sqrt(q), digits=digits, params=self.params
        )
        return (x2b / q - b) / (2 * q)

    def derivative_mean(self, q: mpmath.mpf, digits: int) -> mpmath.mpf:
        """E[φ'(√q·Z)] (the correlation map's slope at c = 0 is σ_w²·E[φ']²)."""
        if self.kernel is not None and self.act.parity == "odd":
            # K'(q, 0) = E[φ']² for the kernels; E[φ'] > 0 for these monotone φ.
            return mpmath.sqrt(self.kernel.derivative_cross(q, mp.zero, self._values()))
        return expectations(self.text, [DERIV], std=mpmath.sqrt(q), digits=digits, params=self.params)[0]

    def cross(
        self, q: mpmath.mpf, c: mpmath.mpf, digits: int, slope_digits: int | None = None
    ) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(K(q, c), K'(q, c)) = (E[φ(u₁)φ(u₂)], E[φ'(u₁)φ'(u₂)]); K' to ``slope_digits`` where
        given (a Newton step's slope) and the certified route applies, else to ``digits``."""
        if self.kernel is not None:
            p = self._values()
            return self.kernel.cross(q, c, p), self.kernel.derivative_cross(q, c, p)
        if 0 < c < 1:  # the certified route's balls where it applies: much faster than quadrature
            from ...moments.bivariate_certified import cross_values

            found = cross_values(self.act, q, c, digits, slope_digits)
            if found is not None:
                return found
        from ...moments.bivariate_quadrature import cross_expectations

        return cross_expectations(self.act, q, c, digits)

    def at_zero(self) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
        """(φ(0), φ'(0−), φ'(0+)): one-sided slopes at 0 for the limit q -> 0 (φ' is taken at
        ±2^−(2·prec), where a φ' smooth on each side of 0 is its one-sided limit to the
        working precision)."""
        p = self._values()
        eps = mpmath.ldexp(1, -2 * mp.prec)
        d = self.act.derivative
        # Richardson's step 2·φ'(±ε/2) − φ'(±ε) removes the term linear in ε: a φ' that is linear on
        # either side of 0 (relu2, x**2: φ'(0±) = 0) gives its one-sided limit exactly, not 2ε.
        return (self.act.fn(mp.zero, p), 2 * d(-eps / 2, p) - d(-eps, p), 2 * d(eps / 2, p) - d(eps, p))
