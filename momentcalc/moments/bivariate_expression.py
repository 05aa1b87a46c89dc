"""What the certified bivariate expectations (``engine.bivariate_balls``) need of a user
expression, from its tree on Arb balls (``catalog.expression_ball.compile_ball``):

* real-line bounds |φ(x)| ≤ P(|x|) and |φ'(x)| ≤ P₁(|x|), P, P₁ polynomials with non-negative
  coefficients: the tree's growth bound on |x| ≥ R0 (``expression_ball.growth_terms``; only
  polynomial growth is accepted) plus, as a constant, the largest |φ| on real balls covering
  [−R0, R0] (a decaying factor e^{a|x| + b·x²}, a, b ≤ 0, of a growth term bounded by 1);
* a strip |Im z| ≤ width in which φ and φ' are analytic, with upper bounds of |φ| and |φ'| on
  the rectangle |Re z| ≤ X, |Im z| ≤ width (the inner rule's error is bounded on that finite
  rectangle alone, ``bivariate_balls._rectangle_error``): φ and φ' evaluated on complex boxes
  covering it, in the tree's analytic mode. A finite enclosure of a box proves φ bounded, so
  free of poles, there; the analytic mode refuses boxes that meet a branch cut (log, sqrt,
  fractional powers) or a kink (abs, max, min, sign), where Arb returns no finite value. So an
  expression with a kink, a pole or a branch point near the real line gets no route (None:
  its values stay uncertified), never a wrong bound.

The widths tried are ``WIDTHS``, widest first (fewer inner nodes), the first whose boxes are all
finite over the means and spreads the call will need; near c = 1 the outer rule may take wider
rectangles (``Strip.wider``: for an entire φ a wider strip allows a wider step; a box that is
not finite refuses the width).

Near c = 1 the inner rule is node by node and the outer step comes from the rectangles
(``engine.bivariate_balls._box_step``), so the cost stays bounded as c → 1 (``kernel 'sin(x)'
--rho 0.999999999999``). Not reached: φ' whose tree's growth bound is exponential on the real
line (``x*tanh(log(1 + exp(x)))``: the derivative of log(1 + e^x) is bounded by e^{|x|}; write
``softplus(x)``), and at 100 digits near c = 1 an expression whose strip is narrow (a singular
point near the real line: x·tanh(softplus(x)) has one at Im z ≈ 2.36 and gets width 2), whose
outer rule then needs more nodes than the default CPU budget allows (about 4.3 s; 30 digits
take 0.6 s).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from flint import acb, arb, ctx

from ..catalog.expression_tree import Node
from ..catalog.expression_ball import compile_ball, growth_terms, removable
from ..catalog.expression_calculus import derivative
from ..engine.bivariate_balls import Strip
from ..engine.gaussian_balls import NotCertified, as_arb

# Real-line bounds: the growth bound from |x| ≥ R0, boxes within.
R0 = 2
# Half the real width of each box.
TILE = Fraction(1, 4)
WIDTHS = (Fraction(2), Fraction(1), Fraction(1, 2), Fraction(1, 4), Fraction(1, 8))
# A box whose enclosure is not finite is covered by sub-boxes of this side, up to this width.
FINE = Fraction(1, 8)
FINE_MAX_WIDTH = 4
# Boxes are evaluated at this precision: only upper bounds are wanted from them.
BOX_BITS = 64
# Routes kept (by tree) across the calls of one meanfield run.
CACHE_SIZE = 8


class ExpressionRoute:
    """φ and φ' of one expression tree on balls, with the bounds above (cached per box)."""

    def __init__(self, tree: Node) -> None:
        node = removable(tree)
        d_node = derivative(node)
        self.nodes = (node, d_node)
        self.functions = (compile_ball(node), compile_ball(d_node))
        self._boxes: dict[tuple[Fraction, int], tuple[arb, arb] | None] = {}
        self.polys = self._real_polys()

    def _real_polys(self) -> list[list[arb]] | None:
        out = []
        with ctx.workprec(BOX_BITS):
            inside = self._sup(Fraction(0), R0)
            if inside is None:
                return None
            for node, top in zip(self.nodes, inside):
                try:
                    terms = growth_terms(node, arb(R0))
                except NotCertified:
                    return None
                poly = [arb(top.upper())]
                for term in terms:
                    if not (as_arb(term.a) <= 0 and as_arb(term.b) <= 0):
                        return None  # exponential growth: the outer rule needs polynomials
                    # c·|x|^k·e^{a|x| + b·x²} ≤ c·|x|^k for a, b ≤ 0
                    poly += [arb(0)] * (term.k + 1 - len(poly))
                    poly[term.k] += as_arb(term.c).upper()
                out.append([arb(x.upper()) for x in poly])
        return out

    def _box(self, width: Fraction, k: int) -> tuple[arb, arb] | None:
        """Upper bounds of |φ| and |φ'| on the box |Re z − 2k·TILE| ≤ TILE, |Im z| ≤ width
        (width 0: the real segment, where kinks are allowed). Where one box's enclosure is not
        finite (interval arithmetic over a tall box overestimates: x·tanh(softplus(x)) at
        width 2), sub-boxes of side FINE cover it, up to width FINE_MAX_WIDTH."""
        key = (width, k)
        if key not in self._boxes:
            with ctx.workprec(BOX_BITS):
                centre = 2 * k * TILE
                found = self._enclose(centre, TILE, Fraction(0), width)
                if found is None and 0 < width <= FINE_MAX_WIDTH:
                    found = [arb(0), arb(0)]
                    for i in range(int(2 * width / FINE)):
                        for j in range(int(2 * TILE / FINE)):
                            part = self._enclose(
                                centre - TILE + FINE * j + FINE / 2,
                                FINE / 2,
                                -width + FINE * i + FINE / 2,
                                FINE / 2,
                            )
                            if part is None:
                                found = None
                                break
                            found = [t.max(v) for t, v in zip(found, part)]
                        if found is None:
                            break
            self._boxes[key] = None if found is None else (found[0], found[1])
        return self._boxes[key]

    def _enclose(self, re: Fraction, re_half: Fraction, im: Fraction, im_half: Fraction) -> list[arb] | None:
        """Upper bounds of |φ| and |φ'| on [re ± re_half] + i·[im ± im_half] (im_half 0 and im 0:
        the real segment), None where an enclosure is not finite."""
        analytic = im_half != 0
        z = (
            acb(arb(as_arb(re), as_arb(re_half)), arb(as_arb(im), as_arb(im_half)))
            if analytic
            else acb(arb(as_arb(re), as_arb(re_half)))
        )
        found = []
        for f in self.functions:
            value = f(z, analytic)
            if not value.is_finite():
                return None
            found.append(arb(value.abs_upper()))
        return found

    def _sup(self, width: Fraction, X: float) -> tuple[arb, arb] | None:
        """Upper bounds of |φ| and |φ'| on |Re z| ≤ X, |Im z| ≤ width (boxes of real width
        2·TILE centred at 2k·TILE, |k| ≤ n, (2n + 1)·TILE ≥ X)."""
        n = max(0, math.ceil((X / float(TILE) - 1) / 2))
        top = [arb(0), arb(0)]
        # from the centre out: a pole or branch point near 0 (the usual place) refuses the width soonest
        for k in sorted(range(-n, n + 1), key=abs):
            found = self._box(width, k)
            if found is None:
                return None
            top = [t.max(v) for t, v in zip(top, found)]
        return top[0], top[1]

    def strip(self, reach: float):
        """The widest strip of ``WIDTHS`` whose boxes are finite on |Re z| ≤ ``reach``, None if
        none is; its ``wider`` gives the rectangles of another width (None where a box is not
        finite: a pole or branch point there), which the outer rule tries near c = 1."""
        for width in WIDTHS:
            if self._sup(width, reach) is None:
                continue
            return self._strip_at(width)
        return None

    def _strip_at(self, width: Fraction):
        def box(X: arb, width: Fraction = width) -> Sequence[arb] | None:
            # a double at or above X (float() may round down and leave a sliver uncovered)
            return self._sup(width, math.nextafter(float(X.upper()), math.inf))

        def wider(w: arb) -> Strip:
            mantissa, exponent = w.mid().man_exp()
            return self._strip_at(Fraction(int(mantissa)) * Fraction(2) ** int(exponent))

        return Strip(as_arb(width), ((), ()), self.at, box, wider=wider)

    def at(self, x: arb, ex: arb) -> list[arb]:
        """φ(x) and φ'(x) at a real ball x (real parts: the values are real)."""
        z = acb(x)
        return [f(z, False).real for f in self.functions]


_ROUTES: dict[Node, ExpressionRoute] = {}


def expression_route(tree: Node) -> ExpressionRoute:
    """The (cached) route of an expression tree."""
    route = _ROUTES.get(tree)
    if route is None:
        if len(_ROUTES) >= CACHE_SIZE:
            _ROUTES.pop(next(iter(_ROUTES)))
        route = _ROUTES[tree] = ExpressionRoute(tree)
    return route


def reach(q: arb, digits: int) -> float:
    """A generous |Re z| the strip must cover for variance q at ``digits``: the outer means
    reach about sqrt(q·c)·L and the inner spread sqrt(q·(1 − c))·L, each L about
    sqrt(2·ln 10·(digits + 8)) (tails below the goal), and a margin."""
    L = math.sqrt(2 * math.log(10) * (digits + 8)) + 2
    return 2 * math.sqrt(float(q.upper())) * L + 2
