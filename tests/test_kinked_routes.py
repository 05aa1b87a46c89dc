"""Cases the mathematics settles that once exited 3: mish at a large std (its ball form far
right), the kinked activations' bivariate expectations (softsign, expressions with abs), each
against an independent route (mpmath or scipy quadrature) to the digits stated."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

from momentcalc.computations.tat import tat
from tests.conftest import invoke


def _mish(x):
    return x * mpmath.tanh(mpmath.log1p(mpmath.exp(x)))


@pytest.mark.parametrize("std", ["8192", pytest.param("100000", marks=pytest.mark.reference)])
def test_mish_second_moment_at_a_large_std(std):
    """E[mish(X)²], X ~ N(0, std²), against mpmath's quadrature at 30 digits (split at 0 and
    where mish turns from 0 to x): every printed digit."""
    run = invoke("activation-moment", "mish", "--std", std, "--get", "second_moment")
    assert run.code == 0, run.stderr
    with mp.workdps(40):
        s = mpmath.mpf(std)
        reference = mpmath.quad(
            lambda x: _mish(x) ** 2 * mpmath.npdf(x, 0, s), [-mpmath.inf, -50, 0, 50, 5 * s, mpmath.inf]
        )
        assert run.stdout.strip() == mpmath.nstr(reference, 15, strip_zeros=False).replace("e+", "e+")


@pytest.mark.reference  # 3.5 s of CPU; test_meanfield.py checks "no fixed point" (exit 2) by default
def test_mish_without_a_fixed_point_is_exit_2():
    """σ_w² = 2.5, σ_b² = 0.05: V(q) − q > 0 for every q (about 0.045 at its smallest, then
    growing like q/4), so the length grows without bound: exit 2 naming it, not exit 3."""
    with mp.workdps(15):
        for q in ("0.1", "0.2", "1"):
            q = mpmath.mpf(q)
            second = mpmath.quad(
                lambda z: _mish(mpmath.sqrt(q) * z) ** 2 * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf]
            )
            assert 2.5 * second + 0.05 - q > 0.04
    run = invoke("meanfield", "mish", "--sigma-w2", "2.5", "--sigma-b2", "0.05")
    assert run.code == 2 and run.stdout == ""
    assert "no fixed point" in run.stderr


# --- kinked activations: bivariate expectations ------------------------------------------------


def _nested_quad(f, rho, q1=1.0, q2=1.0, kinks=(0.0,)):
    """E[f(u)f(v)] by nested scipy QUADPACK in doubles (about 1e-12), split where u or v
    crosses a kink: u = √q1·x, v = √q2·(ρx + √(1 − ρ²)·y), x, y independent standard normals.
    Asked for 1e-13 relative (1e-14 absolute): at 1e-14/1e-15 QUADPACK only met roundoff
    (IntegrationWarning) and took 10x as long for values within 3e-16 of these."""
    import math

    from scipy import integrate

    s1, s2, r = math.sqrt(q1), math.sqrt(q2), math.sqrt(1 - rho * rho)
    density = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)

    def inner(x):
        points = sorted({(k / s2 - rho * x) / r for k in kinks if abs((k / s2 - rho * x) / r) < 12})
        edges = [-12.0, *points, 12.0]
        return sum(
            integrate.quad(
                lambda y: f(s2 * (rho * x + r * y)) * density(y), a, b, epsabs=1e-14, epsrel=1e-13, limit=200
            )[0]
            for a, b in zip(edges, edges[1:])
        )

    edges = [-12.0, *sorted(k / s1 for k in kinks), 12.0]
    return sum(
        integrate.quad(
            lambda x: f(s1 * x) * density(x) * inner(x), a, b, epsabs=1e-14, epsrel=1e-13, limit=200
        )[0]
        for a, b in zip(edges, edges[1:])
    )


def _softsign(x):
    return x / (1 + abs(x))


def _softsign_slope(x):
    return 1 / (1 + abs(x)) ** 2


@pytest.fixture(scope="module")
def softsign_series():
    """softsign's and softsign′'s normalized Hermite coefficients to 30 digits (``hermite``: the
    univariate route) and the energy each leaves out: Mehler's series Σ a_k²ρ^k is E[φ(u)φ(v)]
    at unit variances, within tail·|ρ|^N.

    softsign′'s coefficients come from softsign's a_0..a_{N-1} (N = 120): b_k = √(k+1)·a_{k+1}
    (Stein: E[φ′(Z)He_k(Z)] = E[φ(Z)He_{k+1}(Z)], φ Lipschitz), so Σ_{k<N-1} b_k²ρ^k misses
    Σ_{j≥N} j·a_j²|ρ|^(j-1) ≤ N·T_N·|ρ|^(N-1) (j|ρ|^(j-1) falls for j ≥ N when |ρ| ≤ N/(N+1)):
    the tail handed on is N·T_N. (0.6 s; ``hermite("1/(1+abs(x))**2", terms=120)``, the same
    coefficients through the expression route, took 2.5 s in each xdist worker.)"""
    from momentcalc import hermite

    with mp.workdps(40):
        r = hermite("softsign", terms=120, digits=30)
        a = [mpmath.mpf(c) for c in r["coefficients"].decimal(30)]
        tail = mpmath.mpf(r["tail_bound"].decimal(5))
        slope = [mpmath.sqrt(k + 1) * a[k + 1] for k in range(len(a) - 1)]
        return [(a, tail), (slope, len(a) * tail)]


def _mehler(coefficients, tail, rho):
    rho = mpmath.mpf(rho)
    value = mpmath.fsum(a * a * rho**k for k, a in enumerate(coefficients))
    return value, tail * abs(rho) ** len(coefficients) + mpmath.mpf(10) ** -28


# one correlation each by default; the other four cases (about 0.6 s of CPU) with -m reference
@pytest.mark.parametrize(
    "activation, rho",
    [
        ("softsign", "0.5"),
        ("x/(1+abs(x))", "-0.6"),
        pytest.param("softsign", "-0.6", marks=pytest.mark.reference),
        pytest.param("softsign", "0.3", marks=pytest.mark.reference),
        pytest.param("x/(1+abs(x))", "0.5", marks=pytest.mark.reference),
        pytest.param("x/(1+abs(x))", "0.3", marks=pytest.mark.reference),
    ],
)
def test_softsign_kernel_against_mehler_series(softsign_series, activation, rho):
    """nngp and ntk_derivative of softsign (catalog, and as an expression) at 20 digits against
    Mehler's series of its Hermite coefficients: every printed digit, the series' tail far
    below the last one."""
    from momentcalc import kernel

    result = kernel(activation, rho=rho, digits=20)
    with mp.workdps(40):
        for name, (coefficients, tail) in zip(("nngp", "ntk_derivative"), softsign_series):
            value, bound = _mehler(coefficients, tail, rho)
            assert bound < abs(value) * mpmath.mpf(10) ** -22
            assert result[name].decimal(20) == mpmath.nstr(
                value, 20, strip_zeros=False, min_fixed=-5, max_fixed=1
            ), name


def test_softsign_unequal_variances_against_nested_quadrature():
    from momentcalc import kernel

    result = kernel("softsign", rho="0.3", q1="2", q2="0.5", digits=15)
    for name, f in (("nngp", _softsign), ("ntk_derivative", _softsign_slope)):
        reference = _nested_quad(f, 0.3, 2.0, 0.5)
        assert abs(float(result[name].decimal(15)) - reference) <= 1e-11 * abs(reference), name


@pytest.mark.parametrize(
    "text, f, kinks",
    [
        ("0.1*abs(x)+tanh(x)", lambda x: 0.1 * abs(x) + math.tanh(x), (0.0,)),
        # the same kinked route as the case above (2.9 s of CPU of nested quadrature): -m reference
        pytest.param(
            "max(x, 0)*0.1+tanh(x)",
            lambda x: 0.1 * max(x, 0.0) + math.tanh(x),
            (0.0,),
            marks=pytest.mark.reference,
        ),
        pytest.param("x*tanh(abs(x))", lambda x: x * math.tanh(abs(x)), (0.0,), marks=pytest.mark.reference),
        ("max(x, -1)", lambda x: max(x, -1.0), (-1.0,)),
    ],
)
def test_kinked_expressions_against_nested_quadrature(text, f, kinks):
    """Expressions with a kink: the balls (q = 13/10, c = 3/5) hold nested QUADPACK's value
    within its accuracy and prove their 18 digits."""
    from fractions import Fraction

    from flint import arb

    from momentcalc.catalog import resolve
    from momentcalc.moments.bivariate_certified import cross_balls

    k, _ = cross_balls(resolve(text, {}), Fraction(13, 10), Fraction(3, 5), 18)
    reference = _nested_quad(f, 0.6, 1.3, 1.3, kinks)
    assert abs(float(k.mid()) - reference) <= 1e-11 * abs(reference)
    assert k.rad() <= abs(k.mid()) * arb(10) ** -21


def test_abs_and_max_against_their_closed_kernels():
    """E[sign(u)sign(v)] = (2/π)·arcsin ρ and relu's arc-cosine kernel, from the expressions
    abs(x) and max(x, 0) through the kinked route, at 25 digits."""
    run = invoke("kernel", "abs(x)", "--rho", "0.5", "--get", "ntk_derivative", "--digits", "25")
    assert run.code == 0 and run.stdout.strip() == "0." + "3" * 25
    run = invoke("kernel", "max(x, 0)", "--rho", "0.5", "--get", "nngp", "--digits", "25")
    with mp.workdps(40):
        rho = mpmath.mpf("0.5")
        relu = (mpmath.sqrt(1 - rho**2) + (mpmath.pi - mpmath.acos(rho)) * rho) / (2 * mpmath.pi)
        assert run.code == 0 and run.stdout.strip() == mpmath.nstr(relu, 25, strip_zeros=False)


@pytest.mark.slow
@pytest.mark.reference
def test_softsign_meanfield_chaotic_c_star_against_mehler_series():
    """meanfield softsign --sigma-w2 4 --sigma-b2 0.05 (chaotic): q* by mpmath's quadrature
    and root finder at 40 digits, then c* from Mehler's series of φ(√q*·x) (``hermite``'s
    coefficients, 110 terms, tail ≤ 1.2e-6·c*^110 ≈ 4e-21) solved in mpmath, and
    depth_scale_c = −1/ln(σ_w²·K′(c*)/q*): every printed digit at 15."""
    from momentcalc import hermite, meanfield

    with mp.workdps(40):
        w, b = mpmath.mpf(4), mpmath.mpf("0.05")
        second = lambda q: mpmath.quad(
            lambda z: _softsign(mpmath.sqrt(q) * z) ** 2 * mpmath.npdf(z),
            [-mpmath.inf, 0, mpmath.inf],
        )
        q_star = mpmath.findroot(lambda q: w * second(q) + b - q, mpmath.mpf("0.63"))
        s = mpmath.nstr(mpmath.sqrt(q_star), 32)
        r = hermite(f"{s}*x/(1+abs({s}*x))", terms=110, digits=22)
        a2 = [mpmath.mpf(a) ** 2 for a in r["coefficients"].decimal(22)]
        assert mpmath.mpf(r["tail_bound"].decimal(5)) < mpmath.mpf("1.3e-6")
        K = lambda c: mpmath.fsum(x * c**k for k, x in enumerate(a2))
        K1 = lambda c: mpmath.fsum(k * x * c ** (k - 1) for k, x in enumerate(a2) if k)
        c_star = mpmath.findroot(lambda c: (w * K(c) + b) / q_star - c, mpmath.mpf("0.74"))
        depth = -1 / mpmath.log(w * K1(c_star) / q_star)
        result = meanfield("softsign", sigma_w2="4", sigma_b2="0.05")
        assert result["q_star"].decimal(15) == mpmath.nstr(q_star, 15, strip_zeros=False)
        assert result["c_star"].decimal(15) == mpmath.nstr(c_star, 15, strip_zeros=False)
        assert result["depth_scale_c"].decimal(15) == mpmath.nstr(depth, 15, strip_zeros=False).rstrip(".")
    run = invoke("meanfield", "x/(1+abs(x))", "--sigma-w2", "4", "--sigma-b2", "0.05", "--json")
    assert run.code == 0 and '"certified": true' in run.stdout.replace(
        '"certified":true', '"certified": true'
    )


# --- tat: linear, homogeneous and clipped activations ----------------------------------------


@pytest.mark.parametrize("activation", ["identity", "2*x + 1"])
def test_tat_of_a_linear_activation_is_exit_2(activation):
    """A linear φ: Var φ(X) = c²a² = a²·E[φ'(X)²], so C'(1) = 1 for every transform; no target
    above 1 is reachable, and the range says so."""
    run = invoke("tat", activation, "--target-slope", "1.5", "--depth", "4")
    assert run.code == 2 and run.stdout == ""
    assert "--target-slope" in run.stderr and "1 alone" in run.stderr


def _clip_conditions(lo, hi, a, b):
    """(C'(1), Q'(1), μ, V) of clip(a·Z + b, lo, hi) in closed form (Φ and the normal density):
    C'(1) = a²·P(lo < X < hi)/V, Q'(1) = E[a·Z·(φ − μ)·φ'(X)]/V."""

    def pdf(u):
        return 0 if mpmath.isinf(u) else mpmath.npdf(u)

    def updf(u):
        return 0 if mpmath.isinf(u) else u * mpmath.npdf(u)

    ul, uh = (lo - b) / a, (hi - b) / a
    p = mpmath.ncdf(uh) - mpmath.ncdf(ul)
    ez, ez2 = pdf(ul) - pdf(uh), p + updf(ul) - updf(uh)
    mu = lo * mpmath.ncdf(ul) + hi * (1 - mpmath.ncdf(uh)) + b * p + a * ez
    m2 = lo**2 * mpmath.ncdf(ul) + hi**2 * (1 - mpmath.ncdf(uh)) + b * b * p + 2 * a * b * ez + a * a * ez2
    v = m2 - mu * mu
    return a * a * p / v, (a * a * ez2 + a * (b - mu) * ez) / v, mu, v


@pytest.mark.parametrize(
    "activation, lo, hi, scale, offset",
    [
        ("hardtanh", -1, 1, 1, 0),
        ("relu6", 0, 6, 1, 0),
        ("hard_sigmoid", 0, 6, "1/6", 3),
    ],
)
@pytest.mark.parametrize("zeta", ["1.5", "4"])
def test_tat_of_clipped_activations_meets_its_conditions(activation, lo, hi, scale, offset, zeta):
    """hardtanh, relu6 and hard_sigmoid (relu6(x + 3)/6) at depth 1: the printed transform
    meets C'(1) = ζ and Q'(1) = 1 by the closed forms of a clipped Gaussian, and its output
    shift and scale are −E[φ(X)] and 1/sqrt(Var φ(X)), to 14 digits."""
    result = tat(activation, depth=1, target_slope=zeta, digits=20)
    with mp.workdps(40):
        a, b = (mpmath.mpf(result[k].decimal(20)) for k in ("input_scale", "input_shift"))
        c1, q1, mu, v = _clip_conditions(lo, hi, a, b + offset)
        s = mpmath.mpf(1) / 6 if scale == "1/6" else mpmath.mpf(scale)
        assert abs(c1 - mpmath.mpf(zeta)) < 1e-14 and abs(q1 - 1) < 1e-14
        assert abs(mpmath.mpf(result["output_shift"].decimal(20)) + s * mu) < 1e-14
        assert abs(mpmath.mpf(result["output_scale"].decimal(20)) - 1 / (s * mpmath.sqrt(v))) < 1e-13


@pytest.mark.parametrize(
    "activation, zeta, shift", [("relu2", "1.5", "1"), ("relu2", "4", "-1"), ("max(x, 0)**2", "1.5", "1")]
)
def test_tat_of_relu2_keeps_the_shift_as_relu_does(activation, zeta, shift):
    """relu2 is positively homogeneous (degree 2): C'(1) of relu2(a·z + b) depends on b/a
    alone, so the shift stays at ±1 and the scale meets C'(1) = ζ, checked by mpmath's
    quadrature of 4·E[relu(Z + β)²]/Var[relu(Z + β)²], β = b/a."""
    result = tat(activation, depth=1, target_slope=zeta, digits=20)
    assert result["input_shift"].decimal(5) == ("1.0000" if shift == "1" else "-1.0000")
    with mp.workdps(30):
        a = mpmath.mpf(result["input_scale"].decimal(20))
        beta = mpmath.mpf(shift) / a
        moment = lambda k: mpmath.quad(lambda z: (z + beta) ** k * mpmath.npdf(z), [-beta, mpmath.inf])
        assert abs(4 * moment(2) / (moment(4) - moment(2) ** 2) - mpmath.mpf(zeta)) < 1e-15


# --- kernel: ρ = ±1 at unequal variances, and deep compositions -------------------------------


_PROPORTIONAL = [
    ("tanh", mpmath.tanh, lambda x: mpmath.sech(x) ** 2),
    ("gelu", lambda x: x * mpmath.ncdf(x), lambda x: mpmath.ncdf(x) + x * mpmath.npdf(x)),
    ("softsign", lambda x: x / (1 + abs(x)), lambda x: 1 / (1 + abs(x)) ** 2),
]


# tanh at ρ = 1 and softsign at ρ = −1 by default; their other signs (0.3 s of CPU) and gelu (a
# smooth entry as tanh is, 0.9 s for both signs) with -m reference
@pytest.mark.parametrize(
    "activation, f, df, rho",
    [
        pytest.param(
            activation,
            f,
            df,
            rho,
            marks=() if (activation, rho) in {("tanh", "1"), ("softsign", "-1")} else pytest.mark.reference,
        )
        for rho in ("1", "-1")
        for activation, f, df in _PROPORTIONAL
    ],
)
def test_proportional_inputs_at_unequal_variances(activation, f, df, rho):
    """ρ = ±1, q1 = 1, q2 = 2: v = ±√2·u, so nngp and ntk_derivative are E[f(Z)f(±√2·Z)] and
    E[f'(Z)f'(±√2·Z)], by mpmath's quadrature at 30 digits: every printed digit at 20."""
    from momentcalc.computations.kernel import kernel

    result = kernel(activation, rho=rho, q1="1", q2="2", digits=20)
    with mp.workdps(30):
        r = int(rho) * mpmath.sqrt(2)
        for name, g in (("nngp", f), ("ntk_derivative", df)):
            value = mpmath.quad(lambda z: g(z) * g(r * z) * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
            assert result[name].decimal(20) == mpmath.nstr(
                value, 20, strip_zeros=False, min_fixed=-5, max_fixed=1
            )


def test_relu_network_of_depth_1000_against_the_arc_cosine_recursion():
    """relu, σ_w² = 2, σ_b² = 0.1, ρ = 0.5: the 1001 correlations against the closed C map
    iterated in mpmath at 40 digits (q' = σ_w²·q/2 + σ_b², c' = (σ_w²·q·k(c) + σ_b²)/q',
    k(c) = (√(1 − c²) + (π − arccos c)·c)/(2π)): every printed digit of every layer. (The
    layers' balls grew twofold per layer before they were re-centred with the map's slope.)"""
    from momentcalc.computations.kernel import kernel

    result = kernel("relu", rho="0.5", depth=1000, sigma_w2="2", sigma_b2="0.1")
    printed = result["correlation_layers"].decimal(15)
    with mp.workdps(40):
        q, c, w, b = mpmath.mpf(1), mpmath.mpf("0.5"), mpmath.mpf(2), mpmath.mpf("0.1")
        expected = [c]
        for _ in range(1000):
            k = (mpmath.sqrt(1 - c * c) + (mpmath.pi - mpmath.acos(c)) * c) / (2 * mpmath.pi)
            q_next = w * q / 2 + b
            c = (w * q * k + b) / q_next
            q = q_next
            expected.append(c)
        assert printed == [mpmath.nstr(x, 15, strip_zeros=False) for x in expected]


@pytest.mark.slow
@pytest.mark.reference  # 5 s of CPU; test_kernel_depth_fast.py checks deep trajectories by default
def test_tanh_network_of_depth_1000_answers():
    """tanh at the defaults (σ_w² = 1, σ_b² = 0) through 1000 layers: exit 0, the first layers
    as a double-precision nested quadrature iterates them."""
    from scipy import integrate

    run = invoke("kernel", "tanh", "--rho", "0.5", "--depth", "1000", "--get", "correlation_layers")
    assert run.code == 0, run.stderr
    layers = [float(x) for x in run.stdout.split()]
    assert len(layers) == 1001 and layers[0] == 0.5
    q, c = 1.0, 0.5
    for layer in range(1, 3):
        nngp = _nested_quad(math.tanh, c, q, q, kinks=())
        second = integrate.quad(
            lambda z: math.tanh(math.sqrt(q) * z) ** 2 * math.exp(-z * z / 2) / math.sqrt(2 * math.pi),
            -12,
            12,
            epsabs=1e-15,
        )[0]  # E[tanh(u)²]
        c, q = nngp / second, second
        assert abs(layers[layer] - c) < 1e-10


# --- meanfield: the chaotic side of the edge of chaos -----------------------------------------


def _erf_reference(w, b):
    """erf's mean-field point from its arcsine kernel in mpmath (the current precision):
    A(q) = (2/π)·asin(2q/(1 + 2q)), K(q, c) = (2/π)·asin(2qc/(1 + 2q)); q* by findroot, c* by
    bisection of G(c) = (R(c) − c)/(1 − c) (the root at 1 divided out), ξ_c = −1/ln R'(c*)."""
    w, b = mpmath.mpf(w), mpmath.mpf(b)
    q = mpmath.findroot(lambda q: w * 2 / mpmath.pi * mpmath.asin(2 * q / (1 + 2 * q)) + b - q, 1)
    s = 2 * q / (1 + 2 * q)
    R = lambda c: (w * 2 / mpmath.pi * mpmath.asin(s * c) + b) / q
    low, high = mpmath.mpf(0), 1 - mpmath.mpf(10) ** -(mp.dps // 2)
    for _ in range(4 * mp.prec // 3):  # G(low) > 0 > G(high): G is decreasing
        mid = (low + high) / 2
        low, high = (mid, high) if (R(mid) - mid) / (1 - mid) > 0 else (low, mid)
    c = (low + high) / 2
    slope = w * 2 / mpmath.pi * s / mpmath.sqrt(1 - (s * c) ** 2) / q
    return q, c, -1 / mpmath.log(slope)


@pytest.mark.parametrize("sigma_w2", ["1.3758390074", "1.375839007347", "1.3758390073467"])
def test_erf_just_past_the_edge_of_chaos(sigma_w2):
    """σ_w² within 1e-10 … 1e-13 above erf's critical value at σ_b² = 0.05: c* is then within
    1e-10 … 1e-13 of 1, a near-double root of R(c) = c that Newton on R(c) − c crawled to
    (exit 3); on the deflated (R(c) − c)/(1 − c) it is simple. Every printed digit of c* and
    depth_scale_c at 15 digits against the arcsine kernel in mpmath at 80 digits."""
    from momentcalc import meanfield

    result = meanfield("erf", sigma_w2=sigma_w2, sigma_b2="0.05")
    with mp.workdps(80):
        _, c, depth = _erf_reference(sigma_w2, "0.05")
        assert result["c_star"].decimal(15) == mpmath.nstr(c, 15, strip_zeros=False)
        assert result["depth_scale_c"].decimal(15) == mpmath.nstr(depth, 15, strip_zeros=False).rstrip(".")


@pytest.mark.parametrize(
    "activation, w, b, c0", [("tanh", "1.5", "0.05", "0.5"), ("relu", "1.5", "0.1", "-0.4")]
)
def test_meanfield_trajectories_proven_against_the_mpmath_route(activation, w, b, c0):
    """meanfield --depth: q_layers and c_layers are proven balls now (certified), and every
    printed digit at 20 agrees with the mpmath route's trajectory (quadrature, at 30 digits)."""
    from momentcalc import meanfield
    from momentcalc.computations.meanfield.locate import trajectories

    result = meanfield(activation, sigma_w2=w, sigma_b2=b, depth=6, c0=c0, digits=20)
    assert result["q_layers"].certified and result["c_layers"].certified
    with mp.workdps(40):
        qs, cs = trajectories(
            _model(activation), mpmath.mpf(w), mpmath.mpf(b), mpmath.mpf(1), Fraction(c0), 6, 30
        )
        assert result["q_layers"].decimal(20) == [mpmath.nstr(x, 20, strip_zeros=False) for x in qs]
        assert result["c_layers"].decimal(20) == [mpmath.nstr(x, 20, strip_zeros=False) for x in cs]


def _model(activation):
    from momentcalc.computations.meanfield.inputs import read

    return read(activation, "1", "0", False, "1", None, None, None, 20).model


def test_unproven_trajectories_keep_the_mpmath_route_and_say_so(monkeypatch):
    """Where the layers' balls cannot be had (here: made to fail), tanh's correlations are the
    mpmath route's, certified: false, named in a note, and the title claims nothing."""
    import momentcalc.moments.propagation as maps
    from momentcalc.errors import PrecisionError

    real = maps.trajectory

    def fail(layer_map, start, *args, **kwargs):  # the correlations' balls only: q_layers stay proven
        if start.c is not None:
            raise PrecisionError("no balls")
        return real(layer_map, start, *args, **kwargs)

    monkeypatch.setattr(maps, "trajectory", fail)
    run = invoke("meanfield", "tanh", "--sigma-w2", "1.5", "--sigma-b2", "0.1", "--depth", "3", "--c0", "0.5")
    assert run.code == 0 and "certified" not in run.stdout.splitlines()[0]
    assert "(certified: false): c_layers" in run.stdout
