"""Certified bivariate Gaussian expectations (moments.bivariate_certified): the balls against
the closed-form kernels (relu's arc-cosine, erf's arcsine) and against independent mpmath
routes, radii that must hold the exact value and be small; meanfield's chaotic c* and
depth_scale_c proven from them."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import resolve
from momentcalc.catalog.kernels import kernel
from momentcalc.computations.meanfield import meanfield
from momentcalc.moments.bivariate_quadrature import cross_expectations
from momentcalc.moments.bivariate_certified import cross_balls

Q, C = Fraction(13, 10), Fraction(3, 5)


def _mpf(ball: arb) -> mpmath.mpf:
    mantissa, exponent = ball.mid().man_exp()
    return mpmath.ldexp(mpmath.mpf(int(mantissa)), int(exponent))


def _holds(ball: arb, value: mpmath.mpf, digits: int) -> None:
    """``ball`` holds ``value`` (known far beyond the ball's radius) and its radius proves
    ``digits`` + 3 digits."""
    with mp.workdps(digits + 40):
        mid, rad = _mpf(ball), _mpf(arb(ball.rad()))
        assert abs(mid - value) <= rad, (mid, value, rad)
        assert rad <= abs(value) * mpmath.mpf(10) ** -(digits + 3), (rad, value)


@pytest.mark.parametrize("name, digits", [("erf", 50), ("relu", 50), ("erf", 15), ("relu", 200)])
def test_balls_hold_the_closed_form_kernels(name, digits):
    """The strip route (erf) and the closed-form smoothing route (relu) against the arcsine and
    arc-cosine kernels, evaluated 40 digits further: the exact value lies in every ball, and
    the radius proves the digits asked for (a radius too small, or a bound left out, fails)."""
    k, k1 = cross_balls(resolve(name, {}), Q, C, digits)
    closed = kernel(name)
    with mp.workdps(digits + 40):
        q, c = mpmath.mpf(Q.numerator) / Q.denominator, mpmath.mpf(C.numerator) / C.denominator
        _holds(k, closed.cross(q, c, {}), digits)
        _holds(k1, closed.derivative_cross(q, c, {}), digits)


@pytest.mark.parametrize("name, digits", [("tanh", 20), ("sigmoid", 30), ("mish", 20)])
def test_balls_agree_with_quadrature(name, digits):
    """Strip-analytic activations against the bivariate quadrature of ``moments.bivariate_quadrature``
    (mpmath, to ``digits``), and the ball at ``digits`` holds the one at ``digits`` + 25."""
    act = resolve(name, {})
    k, k1 = cross_balls(act, Q, C, digits)
    finer = cross_balls(act, Q, C, digits + 25)
    with mp.workdps(digits + 10):
        q, c = mpmath.mpf(Q.numerator) / Q.denominator, mpmath.mpf(C.numerator) / C.denominator
        reference = cross_expectations(act, q, c, digits)
    for ball, fine, ref in zip((k, k1), finer, reference):
        with mp.workdps(digits + 40):
            _holds(ball, _mpf(fine), digits)
        with mp.workdps(digits + 10):
            assert abs(_mpf(ball) - ref) <= abs(ref) * mpmath.mpf(10) ** -digits, (name, ball, ref)


def _elu_smoothing(m: mpmath.mpf, b: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(E[elu(m + bV)], E[elu'(m + bV)]) by hand: m·Φ(m/b) + b·ϕ(m/b) + e^{m + b²/2}·Φ(−m/b − b)
    − Φ(−m/b), and Φ(m/b) + e^{m + b²/2}·Φ(−m/b − b)."""
    cdf = lambda x: mpmath.erfc(-x / mpmath.sqrt(2)) / 2
    t = m / b
    shifted = mpmath.exp(m + b * b / 2) * cdf(-t - b)
    return (m * cdf(t) + b * mpmath.npdf(t) + shifted - cdf(-t), cdf(t) + shifted)


def test_exp_polynomial_route_against_one_dimensional_quadrature():
    """elu (no kernel): E[g(u1)g(u2)] = E_W[psi(aW)^2] with psi in closed form by hand, the outer
    integral by mpmath's quadrature at 30 digits; the balls at 15 digits hold it."""
    k, k1 = cross_balls(resolve("elu", {}), Q, C, 15)
    with mp.workdps(30):
        q, c = mpmath.mpf(Q.numerator) / Q.denominator, mpmath.mpf(C.numerator) / C.denominator
        a, b = mpmath.sqrt(q * c), mpmath.sqrt(q * (1 - c))
        for i, ball in enumerate((k, k1)):
            want = mpmath.quad(
                lambda w: _elu_smoothing(a * w, b)[i] ** 2 * mpmath.npdf(w), [-mpmath.inf, 0, mpmath.inf]
            )
            _holds(ball, want, 15)


def test_a_ball_q_holds_every_q_in_it():
    """q as a ball (meanfield's q*): the result holds the expectations at both ends."""
    act = resolve("tanh", {})
    with ctx.workprec(200):
        q = arb(Q.numerator) / Q.denominator + arb(0, 1e-30)
        k, _ = cross_balls(act, q, C, 20)
        for end in (
            arb(Q.numerator) / Q.denominator - arb(1e-30),
            arb(Q.numerator) / Q.denominator + arb(1e-30),
        ):
            k_end, _ = cross_balls(act, arb(end.mid()), C, 20)
            assert k.overlaps(k_end) and k.rad() < arb(1e-25)


def test_outside_the_route():
    """Exponential growth, c outside (0, 1): None (the caller keeps its uncertified value)."""
    assert cross_balls(resolve("x*exp(x)", {}), Q, C, 15) is None
    assert cross_balls(resolve("tanh", {}), Q, Fraction(1), 15) is None
    assert cross_balls(resolve("tanh", {}), Q, Fraction(-1, 2), 15) is None


# --- meanfield ---------------------------------------------------------------------------------


def test_tanh_chaotic_c_star_certified_and_against_quadrature():
    """tanh at sigma_w2 = 2.5, sigma_b2 = 0.05 (chaotic): every result certified at 15 and 50
    digits; the quadrature route (moments.bivariate_quadrature, mpmath) finds the correlation map's
    R(c) - c changing sign across the certified c* +- 1e-15, and its slope there gives the
    same depth_scale_c to 15 digits."""
    from momentcalc.engine.precision import to_decimal

    from .certified_checks import assert_certified

    r15 = meanfield("tanh", sigma_w2="2.5", sigma_b2="0.05")
    r50 = meanfield("tanh", sigma_w2="2.5", sigma_b2="0.05", digits=50)
    for r, digits in ((r15, 15), (r50, 50)):
        assert all(assert_certified(q, digits) for q in r.results)
    assert to_decimal(r50["c_star"].rounded_from, 15) == to_decimal(r15["c_star"].rounded_from, 15)
    act = resolve("tanh", {})
    with mp.workdps(28):
        q, c = +r50.value("q_star"), +r50.value("c_star")
        w, b = mpmath.mpf("2.5"), mpmath.mpf("0.05")
        signs = []
        for end in (c - mpmath.mpf(10) ** -15, c + mpmath.mpf(10) ** -15):
            k, k1 = cross_expectations(act, q, end, 18)
            signs.append((w * k + b) / q - end)
        assert signs[0] > 0 > signs[1]
        assert to_decimal(r15["depth_scale_c"].rounded_from, 15) == to_decimal(-1 / mpmath.log(w * k1), 15)


@pytest.mark.parametrize("name, w, b", [("selu", "1.5", "0.1"), ("elu", "1.8", "0.2"), ("tanh", "4", "0.3")])
def test_other_chaotic_points_certified(name, w, b):
    """Piecewise exp-polynomials (selu; elu with c* near 1) and tanh with a larger bias: every
    result proven."""
    from .certified_checks import assert_certified

    r = meanfield(name, sigma_w2=w, sigma_b2=b)
    assert 0 < r.value("c_star") < 1
    assert all(assert_certified(q, 15) for q in r.results)


def test_an_unproven_c_star_exits_3_naming_it(monkeypatch):
    """When the proof cannot be reached for an activation it covers (here: made to fail), no
    unproven digit is printed: PrecisionError (exit 3) naming c_star and depth_scale_c."""
    from momentcalc.computations.meanfield import correlation_proof as meanfield_correlation_proof
    from momentcalc.errors import PrecisionError

    monkeypatch.setattr(meanfield_correlation_proof, "prove_correlation", lambda *args: None)
    with pytest.raises(PrecisionError, match="c_star, depth_scale_c could not be proven"):
        meanfield("tanh", sigma_w2="2.5", sigma_b2="0.05", digits=30)


def test_fixed_point_convolution_holds_every_value_in_the_balls():
    """engine.convolution: Σ_k w_k·g_{n−k} by one exact integer product holds the convolution
    of any values inside the input balls (here points a quarter-radius off the midpoints,
    summed in exact rationals), with a radius near the inputs' own."""
    from flint import arb, ctx, fmpq

    from momentcalc.engine.convolution import FixedWeights

    with ctx.workprec(200):
        weights = [arb(fmpq(k * k + 1, 7 + k)) * arb(2) ** -k + arb(0, arb(2) ** -170) for k in range(9)]
        values = [arb(fmpq((-1) ** n * (n + 3), 11)) + arb(0, arb(2) ** -185) for n in range(40)]
        positions = list(range(0, 48, 3))
        got = FixedWeights(weights, ctx.prec).convolve(values, positions)

        def inside(ball):  # an exact rational inside the ball, off its midpoint
            mantissa, exponent = ball.mid().man_exp()
            r_m, r_e = ball.rad().mid().man_exp()
            return fmpq(int(mantissa)) * fmpq(2) ** int(exponent) + fmpq(int(r_m), 4) * fmpq(2) ** int(r_e)

        w_exact, g_exact = [inside(w) for w in weights], [inside(g) for g in values]
        for n, ball in zip(positions, got):
            want = sum(
                (w_exact[k] * g_exact[n - k] for k in range(len(w_exact)) if 0 <= n - k < len(g_exact)),
                fmpq(0),
            )
            assert ball.contains(arb(want)), n
            assert ball.rad() < arb(2) ** -160


def test_one_cross_ball_is_that_of_both():
    """``cross_ball`` (one integrand's lattice product) gives the ball of ``cross_balls``."""
    from momentcalc.moments.bivariate_certified import cross_ball

    act = resolve("tanh", {})
    both = cross_balls(act, Q, C, 30)
    for which in (0, 1):
        one = cross_ball(act, Q, C, 30, which)
        assert one.overlaps(both[which]) and one.rad() < abs(one.mid()) * arb(10) ** -33


def test_lattice_sums_from_one_side_by_parity():
    """tanh is odd and sech² even: the lattice sums from the points right of −(inner reach)
    alone, ψ(−m) = ∓ψ(m), give the balls of the whole lattice (no parity) to 40 digits."""
    from flint import ctx

    from momentcalc.engine.bivariate_balls import bivariate_balls
    from momentcalc.moments.bivariate_certified import _polys, _strip

    act = resolve("tanh", {})
    with ctx.workprec(200):
        strip, polys = _strip(act), _polys(act)
        assert tuple(strip.parity) == (-1, 1)
        one_side = bivariate_balls(
            polys, arb(Q.numerator) / Q.denominator, arb(C.numerator) / C.denominator, -150, strip=strip
        )
        whole = bivariate_balls(
            polys,
            arb(Q.numerator) / Q.denominator,
            arb(C.numerator) / C.denominator,
            -150,
            strip=strip._replace(parity=None),
        )
    for a, b in zip(one_side, whole):
        assert a.overlaps(b) and a.rad() < abs(a.mid()) * arb(10) ** -40


def test_cross_values_with_a_slope_to_fewer_digits():
    """A rough Newton stage's (K to 40 digits, K' to 25): each agrees with the 40-digit pair
    to its own digits, and the fewer digits show in K' alone."""
    from momentcalc.moments.bivariate_certified import cross_values

    act = resolve("tanh", {})
    with mp.workdps(60):
        q, c = mpmath.mpf(13) / 10, mpmath.mpf(3) / 5
        k, k1 = cross_values(act, q, c, 40)
        lean_k, lean_k1 = cross_values(act, q, c, 40, 25)
        assert abs(lean_k - k) <= mpmath.mpf(10) ** -42 * k
        assert abs(lean_k1 - k1) <= mpmath.mpf(10) ** -27 * k1 and lean_k1 != k1


@pytest.mark.reference  # the nested 40-digit quadrature took 95 s of CPU in the default run
def test_second_derivative_ball_against_quadrature():
    """E[tanh''(u₁)·tanh''(u₂)] (``which`` 2, the slope's Taylor term of meanfield's correlation
    proof) holds mpmath's nested quadrature of tanh'' = −2·tanh·sech² to 25 digits; an activation
    without φ'' gets None."""
    from momentcalc.moments.bivariate_certified import cross_ball

    act = resolve("tanh", {})
    ball = cross_ball(act, Q, C, 25, 2)
    with mp.workdps(40):
        q, c = mpmath.mpf(Q.numerator) / Q.denominator, mpmath.mpf(C.numerator) / C.denominator
        a, b = mpmath.sqrt(q * c), mpmath.sqrt(q * (1 - c))

        def second(x):
            return -2 * mpmath.tanh(x) * mpmath.sech(x) ** 2

        def psi(m):
            return mpmath.quad(lambda v: second(m + b * v) * mpmath.npdf(v), [-mpmath.inf, 0, mpmath.inf])

        value = mpmath.quad(lambda w: mpmath.npdf(w) * psi(a * w) ** 2, [-mpmath.inf, 0, mpmath.inf])
    _holds(ball, value, 25)
    assert cross_ball(resolve("swish", {}), Q, C, 15, 2) is None


@pytest.mark.parametrize("digits", [30, 120])
def test_shared_lattice_slope_agrees_with_the_integral_at_c1(monkeypatch, digits):
    """tanh's correlation proof takes K and K₁ from one lattice at c₀ and the slope at c* by
    Taylor's theorem with K₂ (``correlation_proof._shared_lattice``); the route it replaced
    (K₁ once more at c₁) gives balls that overlap it, both radii proving every digit."""
    from momentcalc.computations.meanfield import correlation_proof

    found = {}
    original = correlation_proof.prove_correlation

    def keep(*args, **kwargs):
        found["args"] = args, kwargs
        return original(*args, **kwargs)

    monkeypatch.setattr(correlation_proof, "prove_correlation", keep)
    meanfield("tanh", sigma_w2="2.5", sigma_b2="0.05", digits=digits)
    args, kwargs = found["args"]
    with ctx.workprec(_bits(digits)):
        shared = original(*args, **kwargs)
        monkeypatch.setattr(correlation_proof, "has_second", lambda act: False)
        alone = original(*args, **kwargs)
        assert shared is not None and alone is not None
        for mine, theirs in zip(shared, alone):
            assert mine.overlaps(theirs)
            assert mine.rad() <= abs(mine.mid()) * arb(10) ** -(digits + 3)


@pytest.mark.parametrize(
    "w, third", [("2.5", True), pytest.param("4", True, marks=pytest.mark.reference), ("1.8", False)]
)
def test_third_order_step_agrees_with_the_newton_route(monkeypatch, w, third):
    """c*'s proof from a c₀ right to a third of the digits (``correlation_proof._third_lattice``:
    Halley's step, K₂ and K₃ from the cardinal series), forced at 40 digits: it is taken, and the
    printed results are those of the default route (rough stages to half the digits, Newton's
    step), every one certified; its two balls overlap those of the Newton route from the same
    c₀ brought nearer first (``_refined``), both proving every digit. At c* = 0.95 (σ_w² 1.8,
    above ``THIRD_C``) the rough stages go to half the digits and the route is not taken."""
    from momentcalc.computations.meanfield import correlation_proof
    from momentcalc.engine import bivariate_balls

    digits = 40
    default = meanfield("tanh", sigma_w2=w, sigma_b2="0.05", digits=digits)
    monkeypatch.setattr(correlation_proof, "THIRD_FROM", 0)
    monkeypatch.setattr(bivariate_balls, "CARDINAL_FROM_BITS", 0)
    monkeypatch.setattr(bivariate_balls, "CARDINAL_NODE_COST", 0)
    found, taken = {}, []
    original, third_step = correlation_proof.prove_correlation, correlation_proof._third_lattice

    def keep(*args, **kwargs):
        found["args"] = args, kwargs
        return original(*args, **kwargs)

    def counted(*args, **kwargs):
        result = third_step(*args, **kwargs)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(correlation_proof, "prove_correlation", keep)
    monkeypatch.setattr(correlation_proof, "_third_lattice", counted)
    forced = meanfield("tanh", sigma_w2=w, sigma_b2="0.05", digits=digits)
    assert taken == ([True] if third else [])
    for name in ("q_star", "chi1", "c_star", "depth_scale_q", "depth_scale_c"):
        assert forced[name].certified and default[name].certified
        with mp.workdps(digits + 20):
            assert mpmath.nstr(forced.value(name), digits) == mpmath.nstr(default.value(name), digits)
    args, kwargs = found["args"]
    if not third:
        assert args[-1] is None  # the rough stages went to half the digits
        return
    assert args[-1] is not None  # centre_digits: the rough stages stopped near a third
    with ctx.workprec(_bits(digits)):
        mine = original(*args, **kwargs)
        monkeypatch.setattr(correlation_proof, "has_third", lambda act: False)
        theirs = original(*args, **kwargs)
        assert mine is not None and theirs is not None
        for x, y in zip(mine, theirs):
            assert x.overlaps(y)
            assert x.rad() <= abs(x.mid()) * arb(10) ** -(digits + 3)


def _bits(digits: int) -> int:
    from momentcalc.tier import Precision

    return Precision(digits + 40, guard=0).bits


def test_tanh_less_its_poles_holds_the_same_expectations(monkeypatch):
    """The lattice rule of tanh less its poles at ±iπ/2 plus their smoothing by Faddeeva's
    function (``bivariate_certified._tanh_subtracted``, taken at large q* from 1024 bits on), here
    forced at 50 digits: K, K' and K'' overlap the plain strip's balls, both proving every digit,
    at a small c (q* = 16, the case it is for) and at c = 0.45 and 0.9."""
    from momentcalc.engine import bivariate_balls
    from momentcalc.moments import bivariate_certified
    from momentcalc.moments.bivariate_certified import cross_ball

    act = resolve("tanh", {})
    cases = [
        (Fraction(1618, 100), Fraction(123, 10000)),
        (Fraction(106, 100), Fraction(45, 100)),
        (Q, Fraction(9, 10)),
    ]
    plain = [[cross_ball(act, q, c, 50, which) for which in (0, 1, 2)] for q, c in cases]
    monkeypatch.setattr(bivariate_certified, "TANH_NEAR_POLES_BITS", 0)
    monkeypatch.setattr(bivariate_balls, "POLE_COST", 0.0)
    used = []
    with_poles = bivariate_balls._with_poles
    monkeypatch.setattr(bivariate_balls, "_with_poles", lambda *args: used.append(1) or with_poles(*args))
    for (q, c), balls in zip(cases, plain):
        for which, ball in enumerate(balls):
            other = cross_ball(act, q, c, 50, which)
            assert other.overlaps(ball), (q, c, which)
            for b in (ball, other):
                assert b.rad() <= abs(b.mid()) * arb(10) ** -53
    assert len(used) == 3 * len(cases)


def test_tanh_poles_smoothing_and_strip_bounds():
    """The closed forms of E[P(m + bV)], E[P'(m + bV)] and E[P''(m + bV)], P(x) = 2x/(x² + π²/4),
    against mpmath's quadrature to 30 digits; |tanh − P| and its two derivatives on a grid of
    the strip |Im z| ≤ W below the constants the rule assumes (maximum modulus)."""
    from momentcalc.moments.bivariate_certified import _tanh_subtracted

    with ctx.workprec(200):
        strip = _tanh_subtracted((-1, 1), second=True)
        for m, b in ((Fraction(7, 10), Fraction(13, 10)), (Fraction(-5, 2), Fraction(4))):
            balls = strip.poles(arb(m.numerator) / m.denominator, arb(b.numerator) / b.denominator)
            with mp.workdps(40):
                p = mp.pi / 2
                mm, bb = mpmath.mpf(m.numerator) / m.denominator, mpmath.mpf(b.numerator) / b.denominator
                parts = (
                    lambda x: 2 * x / (x * x + p * p),
                    lambda x: 2 * (p * p - x * x) / (x * x + p * p) ** 2,
                    lambda x: 4 * x * (x * x - 3 * p * p) / (x * x + p * p) ** 3,
                )
                for ball, part in zip(balls, parts):
                    value = mpmath.quad(
                        lambda v: part(mm + bb * v) * mpmath.npdf(v), [-mpmath.inf, 0, mpmath.inf]
                    )
                    assert abs(_mpf(ball) - value) <= mpmath.mpf(10) ** -30 * (1 + abs(value))
        width = float(strip.width.mid())
        bounds = [float(bound[0].upper()) for bound in strip.bounds]
    with mp.workdps(30):
        p = mp.pi / 2
        functions = (
            lambda z: mp.tanh(z) - 2 * z / (z * z + p * p),
            lambda z: mp.sech(z) ** 2 - 2 * (p * p - z * z) / (z * z + p * p) ** 2,
            lambda z: -2 * mp.tanh(z) * mp.sech(z) ** 2 - 4 * z * (z * z - 3 * p * p) / (z * z + p * p) ** 3,
        )
        for x in (0, 0.3, 1, 1.9, 2.5, 6):
            for y in (0, 0.5, 1.4, 1.7, 3, 4.2, width):
                z = mp.mpc(x, y)
                if abs(z - mp.mpc(0, p)) < 1e-6:
                    continue
                for f, bound in zip(functions, bounds):
                    assert abs(f(z)) <= bound, (x, y, abs(f(z)), bound)


def test_far_lattice_points_at_fewer_bits_change_no_digit(monkeypatch):
    """From FEWER_BITS_FROM bits on the lattice rule takes its far points at fewer bits (in bands,
    each band's radius charged to the weights that meet it): the balls overlap those with every
    point at full precision and prove the digits asked; and the bands are really taken."""
    from momentcalc.engine import bivariate_balls

    act, q, c, digits = resolve("tanh"), Fraction(21, 20), Fraction(9, 20), 330
    taken: list[int] = []
    original = bivariate_balls._point_bands

    def spy(prec, delta, fewer, span):
        bands = original(prec, delta, fewer, span)
        taken.append(min(bands))
        return bands

    monkeypatch.setattr(bivariate_balls, "_point_bands", spy)
    banded = cross_balls(act, q, c, digits)
    assert taken and min(taken) < 200  # the farthest points at a few words
    monkeypatch.setattr(bivariate_balls, "FEWER_BITS_FROM", 10**9)
    full = cross_balls(act, q, c, digits)
    assert banded is not None and full is not None
    for ball, other in zip(banded, full):
        assert ball.overlaps(other)
        assert ball.rad() <= abs(ball.mid()) * arb(10) ** -(digits + 3)


def test_third_order_step_is_not_started_where_its_series_give_nothing():
    """The third-order step needs K₂ and K₃ from the cardinal series, which give none where
    q*·c* is small: there (c* = 0.0015 at q* ≈ 29, σ_w² 30, σ_b² 0.01) the route's full-digit
    lattice was thrown away and the old route run after it, 24 → 39 s at a thousand digits."""
    from momentcalc.computations.meanfield.correlation_proof import third_pays

    assert third_pays(19.0, 0.012) and third_pays(2.4, 0.45)  # σ_w² 20 and 2.5 at σ_b² 0.05
    assert not third_pays(29.0, 0.0015) and not third_pays(3.0, 0.82)
