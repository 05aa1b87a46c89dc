"""One evaluation of Gaussian expectations of an activation at a fixed working precision.

``Evaluation`` holds what the integrands need — φ and φ' (or the catalog's shared pair) with
the parameters at the precision in use, and the break points where the Gaussian integral is
split — and integrates any monomials with ``engine.gaussian_quadrature``. Closed forms (under N(0, 1))
and exact zeros by symmetry are taken from the catalog instead of integrating.

Part of the mpmath route, which no proven digit comes from: what it is for is written once, in
``engine.gaussian_quadrature``'s docstring.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import mpmath
from mpmath import mp

from ..catalog import Activation
from ..engine.gaussian_quadrature import DivergentIntegral, gaussian_edge, gaussian_expectations
from ..engine.mpmath_internals import to_raw
from ..engine.numbers import Number, to_mpf
from ..errors import PrecisionError
from .monomials import NAMES, Monomial, integrand, needs_derivative, vanishes

# Kinks and singular points of expressions are searched for within mean ± this many
# Gaussian edges (beyond, the density is below 10^-(dps+5)).
BREAK_REACH = 1
# Above this std, the points where a catalog activation turns steeply are split at too.
STEEP_STD = 2


class Divergent(Exception):
    """The expectation of ``monomial`` (or the ``"variance"``) is infinite."""

    def __init__(self, what: Monomial | str) -> None:
        super().__init__(what)
        self.what = what


class WorkSpent(PrecisionError):
    """An Evaluation's optional work budget (integrand evaluations) is spent."""


class Evaluation:
    """Expectations under N(mean, std²) of an activation, to ``digits`` digits, computed at
    ``dps`` decimal digits (the quadrature raises them where a sum cancels)."""

    def __init__(
        self, act: Activation, mean: Number, std: Number, digits: int, dps: int, work: int | None = None
    ) -> None:
        self.act, self.mean, self.std, self.digits, self.dps = act, mean, std, digits, dps
        # An optional work budget: at most this many integrand evaluations, then WorkSpent.
        self.work = work
        self._spent = 0
        self._params_at: dict[int, dict[str, mpmath.mpf]] = {}
        self._steep = tuple(act.steep) if std > STEEP_STD else ()
        self._checked = not act.expression
        # (φ, φ') by (precision, x): the direct variance integrates over the nodes the
        # moments have just been integrated over.
        self._values_at: dict[tuple[int, tuple], tuple[mpmath.mpf, mpmath.mpf]] = {}
        self._breaks_at: dict[int, tuple[mpmath.mpf, ...]] = {}

    def params(self) -> dict[str, mpmath.mpf]:
        """The bound parameters at the current precision (recomputed when it is raised)."""
        if mp.prec not in self._params_at:
            self._params_at[mp.prec] = self.act.param_values()
        return self._params_at[mp.prec]

    def values(self, x: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(φ(x), φ'(x))."""
        key = mp.prec, to_raw(x)
        found = self._values_at.get(key)
        if found is None:
            p = self.params()
            if self.act.pair is not None:
                found = self.act.pair(x, p)
            else:
                found = self.act.fn(x, p), self.act.derivative(x, p)
            self._values_at[key] = found
        return found

    def value_only(self, x: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(φ(x), 0): for integrands without φ' (the shared pair, where there is one, keeps
        the values identical to ``values``)."""
        if self.act.pair is not None and not self.act.pair_exact:
            return self.values(x)
        return self.act.fn(x, self.params()), mp.zero

    def breaks(self) -> tuple[mpmath.mpf, ...]:
        """The break points at the current precision (found once per precision: the direct
        variance is split where the moments were)."""
        found = self._breaks_at.get(mp.prec)
        if found is None:
            mu, sigma = to_mpf(self.mean), to_mpf(self.std)
            found = self.act.breaks(self.params(), mu, sigma, BREAK_REACH * gaussian_edge(mp.dps))
            found = self._breaks_at[mp.prec] = found + tuple(mpmath.mpf(b) for b in self._steep)
        return found

    def known(self, monomials: Sequence[Monomial]) -> dict[Monomial, mpmath.mpf]:
        """The expectations that need no integral: closed forms, zeros by symmetry."""
        act = self.act
        found: dict[Monomial, mpmath.mpf] = {}
        params = self.params()
        standard = self.mean == 0 and self.std == 1
        for monomial in monomials:
            key = NAMES.get(monomial)
            if standard and key in act.closed_forms:
                found[monomial] = act.closed_forms[key].value(params)
            elif self.mean == 0 and vanishes(monomial, act.parity):
                found[monomial] = mp.zero
        return found

    def integrate(
        self, evaluate: Callable[[mpmath.mpf], Sequence[mpmath.mpf]], count: int
    ) -> list[mpmath.mpf]:
        """E[g_i(X)] of the components of ``evaluate``; raises DivergentIntegral."""
        if not self._checked:
            from ..catalog.expressions import check_defined

            params = self.params()
            check_defined(lambda x: self.act.fn(x, params), to_mpf(self.mean), to_mpf(self.std))
            self._checked = True
        if self.work is not None:
            evaluate = self._counted(evaluate)
        return gaussian_expectations(
            evaluate, count, mean=self.mean, std=self.std, breaks=self.breaks, digits=self.digits, dps=mp.dps
        )

    def _counted(
        self, evaluate: Callable[[mpmath.mpf], Sequence[mpmath.mpf]]
    ) -> Callable[[mpmath.mpf], Sequence[mpmath.mpf]]:
        budget = self.work if self.work is not None else math.inf

        def counted(x: mpmath.mpf) -> Sequence[mpmath.mpf]:
            self._spent += 1
            if self._spent > budget:
                raise WorkSpent(f"the quadrature used its work budget of {self.work} evaluations")
            return evaluate(x)

        return counted

    def expectations(self, monomials: Sequence[Monomial]) -> list[mpmath.mpf]:
        """E[x^a·φ^b·φ'^c] for each monomial, at the current precision."""
        known = self.known(monomials)
        wanted = [m for m in monomials if m not in known]
        if wanted:
            values = self.values if needs_derivative(wanted) else self.value_only
            try:
                sums = self.integrate(integrand(wanted, values), len(wanted))
            except DivergentIntegral as error:
                raise Divergent(wanted[error.index]) from None
            known.update(zip(wanted, sums))
        return [known[m] for m in monomials]

    def central_second_moment(self, mean: mpmath.mpf) -> mpmath.mpf:
        """E[(φ − mean)²] directly (for a variance that would cancel as E[φ²] − mean²)."""
        try:
            return self.integrate(lambda x: ((self.values(x)[0] - mean) ** 2,), 1)[0]
        except DivergentIntegral:
            raise Divergent("variance") from None
