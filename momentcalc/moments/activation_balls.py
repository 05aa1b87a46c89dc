"""Certified moments of φ(Z), Z ~ N(mean, std²): every value an Arb ball whose radius proves
its digits (``engine.gaussian_balls`` integrates, ``catalog.ball_functions`` and
``catalog.expression_ball`` give φ and φ' on balls).

    mean = E[φ(Z)],  second_moment = E[φ(Z)²],  derivative_second_moment = E[φ'(Z)²],
    variance = second_moment − mean², or, where that cancels (φ nearly constant),
               E[(φ(Z) − c)²] − (mean − c)² with c the midpoint of mean's ball,
    rms = sqrt(second_moment), gain = 1/rms, centered_gain = 1/sqrt(variance).

An odd φ at mean 0 has mean exactly 0 (parity proved from the catalog or the tree) when the
integral converges absolutely (proved for expressions: E[1/X] diverges though 1/x is odd). Each
ball is returned only once it rounds to one text at ``digits`` digits (both ends agree);
otherwise the precision rises, and PrecisionError (exit 3) when it cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction
from typing import NamedTuple, overload

from flint import acb, arb, ctx
import mpmath
from mpmath import mp

from ..catalog import Activation
from ..catalog.expression_ball import (
    compile_ball,
    growth_terms,
    kink_arguments,
    local_bound,
    piece_choices,
    poly_mul,
    polynomial_terms,
    removable,
)
from ..catalog.expression_tree import ZERO, Node
from .monomials import DERIVATIVE_SECOND_MOMENT, MEAN, Monomial, NAMES, SECOND_MOMENT, vanishes
from ..engine.gaussian_balls import (
    BITS_PER_DIGIT,
    Branch,
    ExpTerm,
    Integrand,
    LocalBound,
    Piece,
    Term,
    as_arb,
    bulk_size,
    exact_key,
    exp_poly_expectation,
    exp_poly_product,
    gaussian_expectation_ball,
    integrable_enclosure,
    magnitude_log2,
    narrow,
    normalise,
    pieces_of,
    product,
    tail_start,
)
from ..engine import gaussian_balls
from ..engine.bits import bits_for
from ..engine.mpmath_internals import binary
from ..engine.rounding import ball_text
from .abs_powers import abs_power_ball
from .exact_precision import EXACT_RAISES, exact_precision_bits
from . import tanh_poles, tiny_mean
from .laurent import laurent_ball
from .normal_cdf import normal_cdf_ball
from ..errors import PrecisionError
from ..catalog.ball_functions import BALL_CLOSED_FORMS, BALL_FUNCTIONS, EXP_POLYNOMIALS, STRIP_FUNCTIONS
from ..catalog.expression_calculus import derivative
from ..catalog.expression_domain import zeros
from ..catalog.expression_eval import compile_mpmath
from .exact import exact_expectations, exact_summary


class Branches(NamedTuple):
    """φ and φ' on balls for the x-range [low, high], at the current precision: kinks (balls or
    exact points, ascending), one branch of φ and of φ' per interval between them, and φ, φ'
    themselves (for kinks known only to lie in a ball; None when the kinks are exact)."""

    kinks: Sequence[arb | Fraction]
    values: Sequence[Branch]
    derivatives: Sequence[Branch]
    truth: tuple[Branch, Branch] | None = None


class Model(NamedTuple):
    """An activation on balls: ``branches(low, high)``, and growth bounds of |φ| and |φ'| on
    |x| ≥ r0 (each called at the working precision)."""

    branches: Callable[[arb, arb], Branches]
    growth: Callable[[arb], Sequence[Term]]
    derivative_growth: Callable[[arb], Sequence[Term]]
    # (p, δ) -> local bounds of φ and φ' near a singular break point p (expression_ball.local_bound)
    local: Callable[[arb, arb], tuple[LocalBound | None, LocalBound | None]] | None = None
    # φ' ≡ 0 wherever it is defined (an expression such as x/abs(x), read as sign(x))
    flat: bool = False


def catalog_model(act: Activation) -> Model:
    """The catalog entry's ball functions with its parameters bound."""
    entry = BALL_FUNCTIONS[act.name]
    given = dict(act.values)

    def params() -> dict[str, arb]:
        return {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}

    def branches(low: arb, high: arb) -> Branches:
        p = params()
        values = [(lambda z, a, f=f: f(z, p, a)) for f, _ in entry.branches]
        derivatives = [(lambda z, a, d=d: d(z, p, a)) for _, d in entry.branches]
        return Branches(entry.kinks, values, derivatives)

    return Model(branches, lambda r0: entry.growth(params()), lambda r0: entry.derivative_growth(params()))


def expression_model(node: Node, mean: Fraction) -> Model:
    """A user expression: candidate kinks found by mpmath, their signs proved on balls
    (``expression_ball.piece_choices``), one specialised branch per piece."""
    node = removable(node)
    d_node = derivative(node)
    arguments = kink_arguments(node)
    arguments += [a for a in kink_arguments(d_node) if a not in arguments]
    critical = [compile_mpmath(a) for a in arguments]

    made: dict[tuple[int, ...], Branches] = {}

    def branches(low: arb, high: arb) -> Branches:
        # E[φ], E[φ²] and E[φ'²] ask for the same range at the same precision: the kinks
        # (mpmath's zeros, then their signs proved on balls) are found once.
        key = (ctx.prec, *exact_key(low), *exact_key(high))
        if key not in made:
            if len(made) > 16:
                made.clear()
            made[key] = found(low, high)
        return made[key]

    def found(low: arb, high: arb) -> Branches:
        candidates: list[arb] = []
        with mp.workprec(ctx.prec):
            lo, hi, centre = _mpf(low), _mpf(high), _mpf(as_arb(mean))
            for part in critical:
                candidates += [_from_mpf(r) for r in zeros(part, lo, hi, extra=(mp.zero, centre))]
        candidates.sort(key=lambda c: float(c.mid()))
        size = max((abs(c) for c in candidates), default=arb(1)).max(arb(1))
        margin = arb((size * arb(2) ** (-(ctx.prec - 24))).upper())
        kinks = piece_choices(arguments, _separated(candidates, margin), low, high, margin)
        return Branches(
            kinks.points,
            [compile_ball(node, choices) for choices in kinks.choices],
            [compile_ball(d_node, choices) for choices in kinks.choices],
            (compile_ball(node), compile_ball(d_node)),
        )

    def local(p: arb, delta: arb) -> tuple[LocalBound | None, LocalBound | None]:
        return local_bound(node, p, delta), local_bound(d_node, p, delta)

    return Model(
        branches,
        lambda r0: growth_terms(node, r0),
        lambda r0: growth_terms(d_node, r0),
        local,
        d_node == ZERO,
    )


def _separated(points: list[arb], margin: arb) -> list[arb]:
    """Candidate kinks closer than a few margins merged (one split covers both)."""
    kept: list[arb] = []
    for p in points:
        if kept and not p - kept[-1] > 4 * margin:
            continue
        kept.append(p)
    return kept


def _mpf(value: arb):
    """The midpoint of a ball as an mpf (exactly)."""
    mantissa, exponent = value.mid().man_exp()
    return mpmath.mpf((int(mantissa), int(exponent)))


def _from_mpf(value) -> arb:
    """An mpf as an exact ball."""
    sign, mantissa, exponent, _ = binary(value)
    return arb((-1) ** sign * mantissa) * arb(2) ** exponent if mantissa else arb(0)


# A shape of integrand: a monomial (x^a·φ^b·φ'^c), or with a centre c, (φ − c)².
Shape = tuple[Monomial, arb | None]


def _power(value, exponent: int):
    return value**exponent if exponent != 1 else value


def monomial_value(monomial: Monomial, x, f, d, one):
    """x^a·f^b·d^c at one point, from x, f = φ(x) and d = φ'(x) (each None where its power is
    0), starting from ``one`` (acb(1) or arb(1)) and multiplying in that order."""
    result = one
    for value, power in zip((x, f, d), monomial):
        if power:
            result *= _power(value, power)
    return result


def monomial_branch(monomial: Monomial, f: Branch, d: Branch) -> Branch:
    """z -> z^a·φ(z)^b·φ'(z)^c as ``monomial_value`` computes it (the same operations, so the
    same ball), with the powers it needs chosen once instead of on every evaluation."""
    a, b, c = monomial
    one = acb(1)  # (made here, not on import: a call that makes no complex ball loads no acb)
    if a == 0 and c == 0 and b:
        return lambda z, analytic: one * _power(f(z, analytic), b)
    if a == 0 and b == 0 and c:
        return lambda z, analytic: one * _power(d(z, analytic), c)

    def g(z: acb, analytic: bool) -> acb:
        return monomial_value(monomial, z, f(z, analytic) if b else None, d(z, analytic) if c else None, one)

    return g


@overload
def bound_polynomial(shape: Shape, x_bound: list[arb], f: Sequence[arb], d: Sequence[arb]) -> list[arb]: ...
@overload
def bound_polynomial(
    shape: Shape, x_bound: list[arb], f: Sequence[arb] | None, d: Sequence[arb] | None
) -> list[arb] | None: ...
def bound_polynomial(
    shape: Shape, x_bound: list[arb], f: Sequence[arb] | None, d: Sequence[arb] | None
) -> list[arb] | None:
    """A polynomial (coefficients, constant first, in whatever variable f and d are given in)
    bounding |x^a·φ^b·φ'^c| from bounds ``x_bound`` of |x|^a, f of |φ| and d of |φ'|; with a
    centre, (|φ| + |centre|)² bounding (φ − centre)². None when a bound it needs is None."""
    (_, b, c), centre = shape
    if centre is not None:
        if f is None:
            return None
        shifted = [f[0] + abs(centre), *f[1:]]
        return poly_mul(shifted, shifted)
    result = x_bound
    for factor, power in ((f, b), (d, c)):
        if not power:
            continue
        if factor is None:
            return None
        for _ in range(power):
            result = poly_mul(result, factor)
    return result


def integrand(model: Model, monomial: Monomial, centre: arb | None = None) -> Integrand:
    """The ``Integrand`` of E[x^a·φ^b·φ'^c] for the monomial (a, b, c); with ``centre``, of
    E[(φ − centre)²] (a variance that would cancel as E[φ²] − mean²)."""
    a, b, c = monomial
    built: dict[int, Branches] = {}

    def shape(f: Branch, d: Branch) -> Branch:
        if centre is not None:
            shift = acb(centre)  # exactly, once: not converted on every evaluation

            return lambda z, analytic: (f(z, analytic) - shift) ** 2
        return monomial_branch(monomial, f, d)

    def pieces(low: arb, high: arb) -> Sequence[Piece]:
        br = built[ctx.prec] = model.branches(low, high)
        return pieces_of(br.kinks, [shape(f, d) for f, d in zip(br.values, br.derivatives)])

    def terms(r0: arb) -> Sequence[Term]:
        if centre is not None:
            g = normalise([*model.growth(r0), Term(arb(abs(centre).upper()))])
            return product(g, g)
        result: tuple[Term, ...] = (Term(1),)
        factors: list[tuple[tuple[Term, ...], int]] = [((Term(1, 1),), a)]
        if b:
            factors.append((normalise(model.growth(r0)), b))
        if c:
            factors.append((normalise(model.derivative_growth(r0)), c))
        for bound, power in factors:
            for _ in range(power):
                result = product(result, bound)
        return result

    def truth(z: acb, analytic: bool) -> acb:
        br = built.get(ctx.prec)
        if br is None or br.truth is None:
            return acb(0)  # exact kinks: the branches themselves bound the mismatch
        return shape(*br.truth)(z, analytic)

    def local(p: arb, delta: arb) -> LocalBound | None:
        """|x^a·φ^b·φ'^c| (or (φ − centre)²) near p from the local bounds of φ and φ': the
        powers |x − p|^(−α) multiply (|centre| ≤ |centre|·|x − p|^(−α) as |x − p| < 1)."""
        if model.local is None:
            return None
        f, d = model.local(p, delta)
        poly = bound_polynomial(
            (monomial, centre),
            [arb(((abs(p) + delta) ** a).upper())],
            None if f is None else f.coefficients,
            None if d is None else d.coefficients,
        )
        if poly is None:
            return None
        # poly is None where a bound it needs is None: f with a centre or b > 0, d with c > 0
        f_alpha = 0 if f is None else f.alpha
        d_alpha = 0 if d is None else d.alpha
        alpha = 2 * f_alpha if centre is not None else (b * f_alpha if b else 0) + (c * d_alpha if c else 0)
        return LocalBound(Fraction(alpha), poly)

    return Integrand(pieces, terms, truth, local)


# --- expectations and the summary as proven balls --------------------------------------------

# Extra digits asked of the integrals when a ball does not yet round to one text, in turn.
ROUNDING_EXTRA = (0, 6, 24)
# Then the digits asked double up to this many (or digits + 24 when more), whatever --digits is:
# the precision a proof may use does not shrink with --digits, so a value answered at 30 digits
# is answered at 3 (sigmoid's variance at mean 100, 6.5e-87, cancels 87 digits at every --digits).
ROUNDING_TARGET_LIMIT = 320


def rounding_targets(digits: int) -> Iterator[int]:
    """The digits asked of the integrals in turn until every ball rounds at ``digits`` digits."""
    target = digits
    for extra in ROUNDING_EXTRA:
        target = digits + extra
        yield target
    limit = max(target, ROUNDING_TARGET_LIMIT)
    while target < limit:
        target = min(2 * target, limit)
        yield target


def model_of(act: Activation, mean: Fraction) -> Model:
    """The ball model of φ: an expression's, the catalog entry's ball functions, or for an entry
    without them its defining expression's (``catalog.formulas.tree_of``)."""
    if act.expression:
        return expression_model(act.tree, mean)
    if act.name not in BALL_FUNCTIONS:
        from ..catalog.formulas import tree_of

        tree = tree_of(act)
        if tree is not None:
            return expression_model(tree, mean)
    return catalog_model(act)


def _closed_form(
    act: Activation, monomial: Monomial, mean: Fraction, std: Fraction, digits: int
) -> arb | None:
    """A closed form under N(0, 1) that is exact: a rational number in the catalog (selu's 0
    and 1, relu's 1/2), or one the catalog gives on balls (leaky_relu's, 0 at slope 1).
    Others are integrated: their mpmath value is not a proof."""
    key = NAMES.get(monomial)
    if mean != 0 or std != 1 or key is None:
        return None
    if key in BALL_CLOSED_FORMS.get(act.name, {}) and not act.expression:
        given = dict(act.values)
        with ctx.workprec(bits_for(digits + 10) + 64):
            params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}
            return BALL_CLOSED_FORMS[act.name][key](params)
    if key not in act.closed_forms:
        return None
    try:
        return as_arb(Fraction(act.closed_forms[key].text))
    except ValueError:
        return None


def exp_poly_ball(
    act: Activation, monomial: Monomial, mean: Fraction, std: Fraction, digits: int, centre: arb | None = None
) -> arb | None:
    """E[x^a·φ^b·φ'^c] (or E[(φ − centre)²]) exactly, for a catalog entry that is a piecewise
    exp-polynomial (relu, elu, selu…; ``ball_functions.EXP_POLYNOMIALS``), at a precision
    raised until the ball is narrow; None for other activations."""
    if act.expression:
        return _polynomial_ball(act, monomial, mean, std, digits, centre)
    if act.name not in EXP_POLYNOMIALS:
        return None
    kinks = BALL_FUNCTIONS[act.name].kinks
    given = dict(act.values)
    edges = [None, *kinks, None]

    def pieces() -> list:
        params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}
        values, derivatives = EXP_POLYNOMIALS[act.name](params)
        return [
            (edges[i], edges[i + 1], exp_poly_shape((monomial, centre), f, d))
            for i, (f, d) in enumerate(zip(values, derivatives))
        ]

    return _exact_ball(pieces, mean, std, digits)


def exp_poly_shape(shape: Shape, f: Sequence, d: Sequence) -> tuple:
    """x^a·φ^b·φ'^c (or (φ − centre)²) as an exp-polynomial (``engine.gaussian_balls.ExpTerm``s),
    from φ and φ' as exp-polynomials."""
    (a, b, c), centre = shape
    if centre is not None:
        shifted = (*f, ExpTerm(-centre))
        return exp_poly_product(shifted, shifted)
    g: tuple[ExpTerm, ...] = (ExpTerm(1, a),)
    for factor, power in ((f, b), (d, c)):
        for _ in range(power):
            g = exp_poly_product(g, factor)
    return g


def _exact_ball(pieces: Callable[[], list | None], mean: Fraction, std: Fraction, digits: int) -> arb | None:
    """E[g(X)] exactly for the piecewise exp-polynomial g that ``pieces()`` builds at the
    working precision ((low, high, terms) each; None: not one), at a precision doubled until
    the ball is narrow against its value; PrecisionError when it stays around 0."""
    bits = exact_precision_bits(digits, mean, std)
    for _ in range(EXACT_RAISES):
        with ctx.workprec(bits):
            built = pieces()
            if built is None:
                return None
            ball = exp_poly_expectation(built, as_arb(mean), as_arb(std))
        if narrow(ball, digits):
            return ball
        bits *= 2
    raise PrecisionError(
        f"the expectation cancels to below {digits} significant digits (it may be exactly 0)"
    )


def _polynomial_ball(
    act: Activation, monomial: Monomial, mean: Fraction, std: Fraction, digits: int, centre: arb | None
) -> arb | None:
    """An expression that is a polynomial (x**1000, x**3 - 2*x): its expectations exactly,
    as a one-piece exp-polynomial; None for other expressions."""

    def pieces() -> list | None:
        f = polynomial_terms(act.tree)
        d = polynomial_terms(derivative(act.tree)) if monomial[2] else {}
        if f is None or d is None:
            return None
        f_terms = tuple(ExpTerm(coefficient, power) for power, coefficient in f.items())
        d_terms = tuple(ExpTerm(coefficient, power) for power, coefficient in d.items())
        return [(None, None, exp_poly_shape((monomial, centre), f_terms, d_terms))]

    return _exact_ball(pieces, mean, std, digits)


def _exactly_zero(act: Activation, model: Model, monomial: Monomial, mean: Fraction, std: Fraction) -> bool:
    """Is E[x^a·φ^b·φ'^c] exactly 0 without integrating? When φ' ≡ 0 (x/abs(x), as sign(x))
    and c > 0; or when the integrand is odd (``monomials.vanishes``) under a centred Gaussian
    and its integral converges absolutely: catalog entries are bounded by their growth
    bounds and have no singular points; for an expression (1/x is odd, E[1/X] diverges),
    ``engine.gaussian_balls.integrable_enclosure`` proves it or raises NotCertified or
    UnboundedTail (the caller then decides whether the integral diverges)."""
    if act.expression and monomial[2] and model.flat:
        return True
    if mean != 0 or not vanishes(monomial, act.parity):
        return False
    if act.expression:
        integrable_enclosure(integrand(model, monomial), mean=mean, std=std)
    return True


def expectation_balls(
    act: Activation, monomials: Sequence[Monomial], mean: Fraction, std: Fraction, digits: int
) -> list[arb]:
    """E[x^a·φ^b·φ'^c] for each monomial as balls with relative radius ≤ 10^−(digits+3) (or
    exactly 0 by symmetry, or an exact closed form). Raises NotCertified, UnboundedTail and
    PrecisionError from the engine."""
    model = model_of(act, mean)
    tiny = tiny_mean.is_tiny(mean, std, digits)  # looked up here: tests replace it
    found: list[arb | None] = []
    for monomial in monomials:
        powers = abs_power_ball(act, monomial, mean, std, digits)  # before parity: no enclosure near 0
        if powers is not None:
            found.append(powers)
            continue
        if _exactly_zero(act, model, monomial, mean, std):
            found.append(arb(0))
            continue
        if tiny:  # |mean|/std below the digits' reach: from mean 0 and a proven remainder
            ball = tiny_mean.tiny_mean_ball(
                lambda shapes, d: expectation_balls(act, shapes, Fraction(0), std, d),
                lambda m=monomial: integrand(model_of(act, Fraction(0)), m).terms(arb(0)),
                monomial,
                mean,
                std,
                digits,
            )
            if ball is not None:
                found.append(ball)
                continue
        found.append(
            next(
                (
                    ball
                    for route in SINGLE_ROUTES
                    if (ball := route(act, monomial, mean, std, digits)) is not None
                ),
                None,
            )
        )
    pending = [i for i, ball in enumerate(found) if ball is None]
    if pending and not act.expression and tanh_poles.applies(act.name, act.values, mean, digits):
        # tanh's A, S, B (and E[φ']) from one rule over sech² less its poles: a third of the nodes
        poles = tanh_poles.pole_balls([monomials[i] for i in pending], std, digits)
        for i in pending:
            found[i] = poles.get(monomials[i])
        pending = [i for i in pending if found[i] is None]
    if pending:
        shared = trapezoid_balls(act, [(monomials[i], None) for i in pending], mean, std, digits)
        unproven: list[arb | None] = [None] * len(pending)
        for i, ball in zip(pending, shared or unproven):
            found[i] = (
                ball
                if ball is not None
                else gaussian_expectation_ball(
                    integrand(model, monomials[i]), mean=mean, std=std, digits=digits
                )
            )
    return _filled(found)


def _filled(balls: list[arb | None]) -> list[arb]:
    """The balls of a list whose every slot has been filled (the loops above leave none None)."""
    done = [ball for ball in balls if ball is not None]
    assert len(done) == len(balls)
    return done


# The routes that give one monomial's expectation by itself, tried in this order: each returns
# its ball, or None where it does not apply (the catalog's closed forms; Φ-moments of the
# normal-cdf family; piecewise exp-polynomials; Laurent series). What none of them covers goes to
# the trapezoidal rule shared by all pending monomials, then to Arb's integration of one.
SINGLE_ROUTES: tuple[Callable[[Activation, Monomial, Fraction, Fraction, int], arb | None], ...] = (
    _closed_form,
    normal_cdf_ball,
    exp_poly_ball,
    laurent_ball,
)


def trapezoid_balls(
    act: Activation, shapes: Sequence[Shape], mean: Fraction, std: Fraction, digits: int
) -> list[arb] | None:
    """E[shape(X)] for catalog activations analytic in a strip (``ball_functions.STRIP_FUNCTIONS``:
    sigmoid, tanh, swish, softplus, mish, gelu_tanh), all shapes from one set of trapezoidal nodes
    (``engine.trapezoid``), each with relative radius ≤ 10^−(digits+3); None for other
    activations, or when the rule would need too many nodes (a very large std)."""
    from ..engine.trapezoid import trapezoid_expectations, working_bits

    spec = None if act.expression else STRIP_FUNCTIONS.get(act.name)
    if spec is None:
        return None
    model = catalog_model(act)
    sizes = []
    with ctx.workprec(64):
        m, s = as_arb(mean), as_arb(std)
        for terms in shared_growth_terms(model, shapes, tail_start(8, m, s), range(len(shapes))):
            size = bulk_size(normalise(terms), m, s)
            sizes.append(max(magnitude_log2(size), -(10**6)) if size > 0 else 0.0)
    wanted = (digits + 3) * BITS_PER_DIGIT
    goals = [size - wanted - 4 for size in sizes]
    floors = [size - (digits + 3 + gaussian_balls.MAX_CANCELLATION_DIGITS) * BITS_PER_DIGIT for size in sizes]
    results: list[arb | None] = [None] * len(shapes)
    pending = list(range(len(shapes)))
    while pending:
        goal = min(goals[j] for j in pending)
        with ctx.workprec(
            working_bits(max(sizes[j] for j in pending), goal, degree=len(spec.exponent()) - 1)
        ):
            width = spec.width()
            value_bound, slope_bound = spec.value_bound(width), spec.slope_bound(width)
            todo = [shapes[j] for j in pending]
            # |x|^a bounded on the strip by |z|^a: the polynomial z^a
            strips = [
                bound_polynomial(shape, [arb(0)] * shape[0][0] + [arb(1)], value_bound, slope_bound)
                for shape in todo
            ]

            products = _products_at(todo)

            def values(
                x: arb, ex: arb, products: Callable[[arb, arb, arb], list[arb]] = products
            ) -> list[arb]:
                f, d = spec.at(x, ex)
                return products(x, f, d)

            balls = trapezoid_expectations(
                values,
                strips,
                width,
                shared_growth_terms(model, shapes, arb(0), pending),
                mean,
                std,
                goal,
                spec.exponent(),
                even=mean == 0 and all(_even(act, shape) for shape in todo),
            )
        if balls is None:
            return None
        still = []
        for j, ball in zip(pending, balls):
            if narrow(ball, digits):
                results[j] = ball
                continue
            if goals[j] <= floors[j]:
                raise PrecisionError(
                    f"the expectation cancels to below {digits} significant digits (it may be exactly 0) "
                    f"within {gaussian_balls.MAX_CANCELLATION_DIGITS} digits below the integrand's size"
                )
            if abs(ball.mid()) > 4 * ball.rad():
                goals[j] = max(min(goals[j] - 8, magnitude_log2(abs(ball)) - wanted - 4), floors[j])
            else:
                goals[j] = max(sizes[j] - (sizes[j] - goals[j]) * 2, floors[j])
            still.append(j)
        pending = still
    return _filled(results)


def shared_growth_terms(
    model: Model, shapes: Sequence[Shape], r0: arb, which: Iterable[int]
) -> list[tuple[Term, ...]]:
    """``integrand(model, monomial, centre).terms(r0)`` for each ``shapes[j]``, j in ``which``:
    the same products in the same order (|x|, then φ's bound, then φ''s, each ``power`` times),
    each product x^i·φ^j·φ'^k made once for all the shapes (gau-scale's Hermite table asks for
    30 monomials, x^a·φ^b with a ≤ 4 and b ≤ 8, from one rule)."""
    made: dict[tuple[int, int, int], tuple[Term, ...]] = {}
    bounds: dict[int, tuple[Term, ...]] = {0: (Term(1, 1),)}
    found = []
    for j in which:
        monomial, centre = shapes[j]
        if centre is not None:
            found.append(tuple(integrand(model, monomial, centre).terms(r0)))
            continue
        result: tuple[Term, ...] = (Term(1),)
        key = [0, 0, 0]
        for axis, power in enumerate(monomial):
            if not power:
                continue
            if axis not in bounds:
                bounds[axis] = normalise(model.growth(r0) if axis == 1 else model.derivative_growth(r0))
            for _ in range(power):
                key[axis] += 1
                done = made.get((key[0], key[1], key[2]))
                if done is None:
                    done = made[key[0], key[1], key[2]] = product(result, bounds[axis])
                result = done
        found.append(result)
    return found


def _even(act: Activation, shape: Shape) -> bool:
    """Is the integrand of ``shape`` even (by the catalog's parity of φ)?"""
    monomial, centre = shape
    if act.parity is None:
        return False
    if centre is not None:  # (φ − centre)²
        return act.parity == "even" or centre == 0
    # x^a·φ^b·φ'^c is odd or even by φ's parity: even where it does not vanish by symmetry
    return not vanishes(monomial, act.parity)


def _products_at(shapes: Sequence[Shape]) -> Callable[[arb, arb, arb], list[arb]]:
    """Every shape's ``_product_at`` from (x, f, d) at once. With more than a few shapes (gau-scale's
    30 monomials x^a·φ^b) each product is the same left-to-right chain of multiplications as
    ``_product_at``'s, and a chain's every prefix (x^i·φ^j…) is multiplied once for all the
    shapes that share it: the same balls, from about a quarter of the multiplications."""
    singles = [_product_at(shape) for shape in shapes]
    if len(shapes) <= 3:
        return lambda x, f, d: [product(x, f, d) for product in singles]
    slots: dict[tuple[int, ...], int] = {}
    steps: list[tuple[int, int]] = []  # (the slot of the prefix one factor shorter, or -1; the factor)
    outputs: list[int | Callable[[arb, arb, arb], arb]] = []
    for shape, single in zip(shapes, singles):
        (a, b, c), centre = shape
        factors = (0,) * a + (1,) * b + (2,) * c
        if centre is not None or not factors:
            outputs.append(single)
            continue
        for n in range(1, len(factors) + 1):
            if factors[:n] not in slots:
                slots[factors[:n]] = len(steps)
                steps.append((slots[factors[: n - 1]] if n > 1 else -1, factors[n - 1]))
        outputs.append(slots[factors])

    def products(x: arb, f: arb, d: arb) -> list[arb]:
        point = (x, f, d)
        made: list[arb] = []
        for parent, factor in steps:
            made.append(point[factor] if parent < 0 else made[parent] * point[factor])
        return [made[o] if isinstance(o, int) else o(x, f, d) for o in outputs]

    return products


def _product_at(shape: Shape) -> Callable[[arb, arb, arb], arb]:
    """x^a·f^b·d^c (or (f − centre)²) from (x, f, d) by multiplications alone, no leading 1:
    the trapezoidal rule evaluates it at tens of thousands of nodes."""
    (a, b, c), centre = shape
    if centre is not None:
        return lambda x, f, d: (f - centre) * (f - centre)
    factors = [0] * a + [1] * b + [2] * c
    if not factors:
        return lambda x, f, d: arb(1)
    common = _COMMON_PRODUCTS.get(tuple(factors))
    if common is not None:
        return common

    def product(x: arb, f: arb, d: arb) -> arb:
        point = (x, f, d)
        result = point[factors[0]]
        for i in factors[1:]:
            result = result * point[i]
        return result

    return product


# The products of the moments every command asks for, written out (the same multiplications
# in the same order as the loop in ``_product_at``): x·φ·φ', φ, φ², φ'², φ⁴.
_COMMON_PRODUCTS: dict[tuple[int, ...], Callable[[arb, arb, arb], arb]] = {
    (1,): lambda x, f, d: f,
    (2,): lambda x, f, d: d,
    (1, 1): lambda x, f, d: f * f,
    (2, 2): lambda x, f, d: d * d,
    (0, 1, 2): lambda x, f, d: x * f * d,
    (1, 1, 1, 1): lambda x, f, d: f * f * f * f,
}


def rounds(balls: Sequence[arb], digits: int) -> bool:
    """Does every ball round to one text at ``digits`` digits (a proven rounding)?"""
    return all(ball_text(b, digits) is not None for b in balls)


def proven_expectations(
    act: Activation, monomials: Sequence[Monomial], mean: Fraction, std: Fraction, digits: int
) -> list[arb]:
    """``expectation_balls`` narrowed until each rounds to one text at ``digits`` digits, but
    for the rational ones (``exact.exact_expectations``: a tie is rounded from the fraction)."""
    exact = exact_expectations(act, monomials, mean, std)
    for target in rounding_targets(digits):
        balls = expectation_balls(act, monomials, mean, std, target)
        if rounds([b for m, b in zip(monomials, balls) if m not in exact], digits):
            return balls
    raise PrecisionError(
        f"{digits} digits cannot be proven within the precision limit (a value on a rounding tie, "
        "or digits lost to cancellation)"
    )


def summary_balls(
    act: Activation, mean: Fraction, std: Fraction, digits: int, derivative: bool
) -> dict[str, arb]:
    """mean, second_moment, variance, rms, gain, centered_gain (and derivative_second_moment)
    as balls that each round to one text at ``digits`` digits, but for the rational ones
    (``exact.exact_summary``: a tie is rounded from the fraction).

    variance = second_moment − mean² where that loses at most a digit, otherwise
    E[(φ − c)²] − (mean − c)² with c the midpoint of mean's ball (φ nearly constant)."""
    exact = exact_summary(act, mean, std)

    wanted = (MEAN, SECOND_MOMENT, DERIVATIVE_SECOND_MOMENT) if derivative else (MEAN, SECOND_MOMENT)
    for target in rounding_targets(digits):
        found = expectation_balls(act, wanted, mean, std, target)
        m, m2 = found[0], found[1]
        with ctx.workprec(max(_bits(m), _bits(m2), bits_for(target + 10) + 64)):
            if m * m <= m2 * 9 / 10:
                variance = m2 - m * m
            elif (about := variance_about_constant(act, mean, std, target)) is not None:
                variance = about
            else:
                centre = arb(m.mid())
                central = exp_poly_ball(act, MEAN, mean, std, target, centre)
                if central is None:
                    central = laurent_ball(act, MEAN, mean, std, target, centre)
                if central is None:
                    central = abs_power_ball(act, MEAN, mean, std, target, centre)
                if central is None:
                    shared = trapezoid_balls(act, [(MEAN, centre)], mean, std, target)
                    central = shared[0] if shared else None
                if central is None:
                    central = gaussian_expectation_ball(
                        integrand(model_of(act, mean), MEAN, centre), mean=mean, std=std, digits=target
                    )
                shift = m - centre
                variance = central - arb(0, (shift * shift).upper())
            rms = m2.sqrt()
            values = {
                "mean": m,
                "second_moment": m2,
                "variance": variance,
                "rms": rms,
                "gain": 1 / rms,
                "centered_gain": 1 / variance.sqrt(),
            }
        if derivative:
            values["derivative_second_moment"] = found[2]
        if rounds([ball for name, ball in values.items() if name not in exact], digits):
            return values
    raise PrecisionError(
        f"{digits} digits cannot be proven within the precision limit (a value on a rounding tie, "
        "or digits lost to cancellation)"
    )


def _constant_of(terms: Sequence[ExpTerm]) -> Fraction | None:
    """The value of an exp-polynomial piece that is a rational constant, else None."""
    if any(t.power or t.rate for t in terms):
        return None
    total = Fraction(0)
    for t in terms:
        if not isinstance(t.c, (int, Fraction)):
            return None
        total += Fraction(t.c)
    return total


def _combined(terms: Sequence[ExpTerm]) -> tuple[ExpTerm, ...]:
    """Like terms (same power of x, same rational rate) added with their rational coefficients
    summed exactly, zero terms dropped: a constant piece minus its own value is no term at all,
    where 1·P − 1·P in balls would leave a radius of 2^−prec·P."""
    exact: dict[tuple[int, Fraction], Fraction] = {}
    rest: list[ExpTerm] = []
    for term in terms:
        if isinstance(term.c, (int, Fraction)) and isinstance(term.rate, (int, Fraction)):
            key = (term.power, Fraction(term.rate))
            exact[key] = exact.get(key, Fraction(0)) + Fraction(term.c)
        else:
            rest.append(term)
    return tuple(ExpTerm(c, power, rate) for (power, rate), c in exact.items() if c) + tuple(rest)


def variance_about_constant(act: Activation, mean: Fraction, std: Fraction, digits: int) -> arb | None:
    """Var φ(X) = E[(φ − c)²] − E[φ − c]² for a piecewise exp-polynomial catalog entry whose
    piece around the mean is a rational constant c (hardtanh, hard_sigmoid, relu6 saturated):
    φ − c vanishes there exactly, so both expectations are integrals over the other pieces alone,
    each to its own relative precision, and E[φ − c]² ≤ P·E[(φ − c)²] (Cauchy–Schwarz, P the
    probability off the constant piece) is far below the first term. At hardtanh's mean 5.5,
    std 0.01 the variance is about e^(−10⁵), which E[(φ − mean)²] − (mean − c)² could reach only
    with the mean to 44,000 digits. None when the route does not apply or does not narrow."""
    if act.expression or act.name not in EXP_POLYNOMIALS:
        return None
    kinks = BALL_FUNCTIONS[act.name].kinks
    if not all(isinstance(k, (int, Fraction)) for k in kinks) or mean in kinks:
        return None
    given = dict(act.values)
    edges = [None, *kinks, None]
    index = sum(1 for k in kinks if k < mean)

    def parts() -> tuple[list, list] | None:
        params = {p.name: as_arb(Fraction(given.get(p.name, p.default))) for p in act.params}
        values, _ = EXP_POLYNOMIALS[act.name](params)
        c = _constant_of(values[index])
        if c is None:
            return None
        first, second = [], []
        for i, f in enumerate(values):
            shifted = _combined((*f, ExpTerm(-c)))
            if shifted:
                first.append((edges[i], edges[i + 1], shifted))
                second.append((edges[i], edges[i + 1], _combined(exp_poly_product(shifted, shifted))))
        return first, second

    bits = exact_precision_bits(digits, mean, std)
    for _ in range(EXACT_RAISES):
        with ctx.workprec(bits):
            built = parts()
            if built is None:
                return None
            if not built[0]:
                return arb(0)
            d1 = exp_poly_expectation(built[0], as_arb(mean), as_arb(std))
            d2 = exp_poly_expectation(built[1], as_arb(mean), as_arb(std))
            variance = d2 - d1 * d1
        if narrow(variance, digits):
            return variance
        bits *= 2
    return None


def _bits(ball: arb) -> int:
    """Enough bits to hold a ball's midpoint and radius without rounding them."""
    mantissa, _ = ball.mid().man_exp()
    return max(64, int(mantissa).bit_length() + 64)
