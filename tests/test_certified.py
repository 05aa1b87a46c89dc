"""Certified (Arb ball) Gaussian expectations: the balls against the independent mpmath
quadrature route and against closed forms (the true value must lie inside every ball), the
cancellation cases of the audit (right digits or exit 3, never wrong digits), and the tail
bound that makes the finite integration interval honest."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx
from mpmath import mp

from momentcalc.catalog import names, resolve
from momentcalc.engine import gaussian_balls
from momentcalc.engine.gaussian_balls import Integrand, Piece, Term, gaussian_expectation_ball, tail_bound
from momentcalc.engine.rounding import decimal_text
from momentcalc.errors import PrecisionError
from momentcalc.moments import expectation_balls, moment_balls
from momentcalc.moments.expectations import expectations_by_quadrature

MOMENTS = ("mean", "second_moment", "derivative_second_moment")
MONOMIALS = {"mean": (0, 1, 0), "second_moment": (0, 2, 0), "derivative_second_moment": (0, 0, 2)}


def contains(ball: arb, value: mpmath.mpf, slack: mpmath.mpf | int = 0) -> bool:
    """Does ``ball`` contain ``value`` (an mpf correct to within ``slack``)?"""
    with ctx.workprec(4000), mp.workdps(1200):
        v = arb(mpmath.nstr(value, 1100, strip_zeros=False))
        return (ball - v).abs_lower() <= arb(mpmath.nstr(abs(slack), 30)) + arb(10) ** -1090


# Every entry at 50 digits under N(0, 1); the shifted, scaled input at 30 (the quadrature
# reference costs twice as much at 50 digits, and the shift and scale are what that case checks)
# for a smooth and a kinked entry by default, the others with -m reference (2.5 s of CPU).
SHIFTED_BY_DEFAULT = {"gelu", "relu"}
# Under N(0, 1) every entry at 30 digits in the default run and at 50 with -m reference, but for
# gelu, whose 50 digits stay in the default run (the other entries' 50-digit quadratures and
# balls cost about 1.5 s of CPU more).
AT_50_BY_DEFAULT = "gelu"


@pytest.mark.parametrize(
    ("name", "mean", "std", "digits"),
    [
        pytest.param(name, 0, 1, digits, marks=marks)
        for name in names()
        for digits, marks in (
            ((50, ()),) if name == AT_50_BY_DEFAULT else ((30, ()), (50, pytest.mark.reference))
        )
    ]
    + [
        pytest.param(
            name,
            Fraction(3, 10),
            Fraction(5, 2),
            30,
            marks=() if name in SHIFTED_BY_DEFAULT else pytest.mark.reference,
        )
        for name in names()
    ],
)
def test_catalog_balls_agree_with_mpmath_quadrature(name, mean, std, digits):
    act = resolve(name)
    # selu's mean is exactly 0 by construction under N(0, 1), which no quadrature reaches.
    moments = MOMENTS[1:] if mean == 0 and name == "selu" else MOMENTS
    monomials = [MONOMIALS[m] for m in moments]
    reference = expectations_by_quadrature(act, monomials, mean=mean, std=std, digits=digits)
    balls = expectation_balls(name, monomials, mean=mean, std=std, digits=digits)
    for moment, ball, expected in zip(moments, balls, reference):
        with mp.workdps(digits + 20):
            assert contains(ball, expected, abs(expected) * mpmath.mpf(10) ** -digits), (name, moment)
            assert ball.rad() <= abs(ball.mid()) * arb(10) ** -digits or ball == 0, (name, moment)


EXPRESSIONS = [
    "x*tanh(log(1+exp(x)))",
    "max(x - 0.3, 0) + abs(x + 1.25)",
    "exp(x**2/5)",
    "1/(1+x**2)",
    "softplus(x)**2 + erfc(x)",
    # (1.0 s of CPU; the other expressions take the same routes: -m reference runs it)
    pytest.param("log1p(x**2)*sinh(x) - 2**x", marks=pytest.mark.reference),
    "exp(-2*x**2)*x",
    # removable singularities (sinc on balls); sin(x)/x's mean is also checked against its closed
    # form by test_true_value_lies_inside_the_ball, so its quadrature runs with -m reference
    pytest.param("sin(x)/x", marks=pytest.mark.reference),
    "sin(2*x - 1)/(2*x - 1) + abs(x)",
]


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_expression_balls_agree_with_mpmath_quadrature(text):
    # The three expectations by quadrature alone (moments_by_quadrature would also integrate
    # the variance directly where it cancels, which no ball here is compared with).
    monomials = [MONOMIALS[m] for m in MOMENTS]
    reference = dict(
        zip(MOMENTS, expectations_by_quadrature(resolve(text), monomials, mean="0.2", std=1, digits=30))
    )
    balls = moment_balls(text, mean="0.2", digits=30)
    for moment in MOMENTS:
        with mp.workdps(50):
            expected = reference[moment]
            assert contains(balls[moment], expected, abs(expected) * mpmath.mpf(10) ** -30), (text, moment)


def _gelu_mean(m, s):
    """E[XΦ(X)], X ~ N(m, s²) = m·Φ(m/r) + s²/r·φ(m/r), r = sqrt(1 + s²) (Stein's lemma)."""
    r = mpmath.sqrt(1 + s * s)
    return m * mpmath.ncdf(m / r) + s * s / r * mpmath.npdf(m / r)


CLOSED_FORMS = [
    # (activation, monomial, mean, std, closed form of the expectation)
    ("gelu", (0, 1, 0), "0.7", "1.3", lambda m, s: _gelu_mean(m, s)),
    ("erf", (0, 1, 0), "-0.4", "2.2", lambda m, s: mpmath.erf(m / mpmath.sqrt(1 + 2 * s * s))),
    ("relu", (0, 1, 0), "-0.8", "1.7", lambda m, s: m * mpmath.ncdf(m / s) + s * mpmath.npdf(m / s)),
    ("elu", (0, 0, 2), "0", "1", lambda m, s: mpmath.mpf(1) / 2 + mpmath.e**2 * mpmath.ncdf(-2)),
    ("cos(3*x)", (0, 1, 0), "0.3", "1", lambda m, s: mpmath.exp(-9 * s * s / 2) * mpmath.cos(3 * m)),
    ("exp(x**2/5)", (0, 1, 0), "0", "1", lambda m, s: 1 / mpmath.sqrt(mpmath.mpf(3) / 5)),
    # E[sin(Z)/Z] = ∫_0^1 E[cos(tZ)] dt = ∫_0^1 e^{−t²/2} dt
    (
        "sin(x)/x",
        (0, 1, 0),
        "0",
        "1",
        lambda m, s: mpmath.sqrt(mpmath.pi / 2) * mpmath.erf(1 / mpmath.sqrt(2)),
    ),
]


@pytest.mark.parametrize(("activation", "monomial", "mean", "std", "exact"), CLOSED_FORMS)
def test_true_value_lies_inside_the_ball(activation, monomial, mean, std, exact):
    """Radii are honest: the closed form (at 120 digits) lies inside the ball."""
    (ball,) = expectation_balls(activation, [monomial], mean=mean, std=std, digits=40)
    with mp.workdps(120):
        value = exact(mpmath.mpf(mean), mpmath.mpf(std))
        assert contains(ball, value)
        # and the ball is narrow: 40 digits proven
        assert ball.rad() <= abs(ball.mid()) * arb(10) ** -40


def _closed_text(value, digits):
    return decimal_text(value, digits)


# (sin(40x) at 15 digits as well took as long as at 40: the same cancellation of 348 digits, the
# same route; the default digits are cos(50x)'s case, which runs with -m reference.)
@pytest.mark.parametrize(
    ("expression", "mean", "exact", "digits"),
    [
        pytest.param(
            "cos(50*x)",
            "0",
            lambda m: mpmath.exp(-1250) * mpmath.cos(50 * m),
            "15",
            marks=(pytest.mark.reference, pytest.mark.slow),
        ),
        ("sin(40*x)", "0.3", lambda m: mpmath.exp(-800) * mpmath.sin(40 * m), "40"),
    ],
)
def test_audit_cancellation_gives_the_right_digits(cli, expression, mean, exact, digits):
    """E[cos(ωZ + θ)] = e^{−ω²/2}·cos θ: the integrand is 1 while the expectation is 10^−348
    (10^−543): the digits printed are the closed form's, with exit 0."""
    run = cli("activation-moment", expression, "--mean", mean, "--digits", digits, "--json")
    assert run.code == 0, run.stderr
    result = run.json()["results"]["mean"]
    with mp.workdps(int(digits) + 30):
        assert result["decimal"] == _closed_text(
            exact(mpmath.mpf(Fraction(mean).numerator) / Fraction(mean).denominator), int(digits)
        )
    assert result["certified"] is True and result["error_bound"] > 0  # (a double: 1e-575 is its smallest)


def test_cancellation_beyond_reach_leaves_the_value_out(cli, monkeypatch):
    """E[sin(40X)], X ~ N(0.3, 2.5²) = e^{−5000}·sin(12): beyond the precision limit, so the
    mean (and the variance and centered gain made from it) are left out with the reason (never
    digits that two precisions merely agree on); the moments that can be proven are printed.
    The limit is lowered to reach the same verdict sooner."""
    # the same verdict, sooner (at 150 digits each call took 0.25 s more)
    monkeypatch.setattr(gaussian_balls, "MAX_CANCELLATION_DIGITS", 60)
    run = cli("activation-moment", "sin(40*x)", "--mean", "0.3", "--std", "2.5", "--json")
    assert run.code == 0
    doc = run.json()
    assert set(doc["results"]) == {"second_moment", "rms", "gain", "derivative_second_moment"}
    # E[sin²(40X)] = (1 − e^{−2·40²·2.5²}·cos(24))/2 and E[(40cos(40X))²] = 800·(1 + e^{−20000}cos(24))
    assert doc["results"]["second_moment"]["decimal"] == "0.500000000000000"
    assert doc["results"]["derivative_second_moment"]["decimal"] == "800.000000000000"
    (note,) = [n for n in doc["notes"] if "left out" in n]
    assert note.startswith("mean, variance and centered_gain are left out: ") and "cancels" in note


def test_json_carries_the_proof(cli):
    doc = cli("activation-moment", "swish", "--json").json()
    for name, result in doc["results"].items():
        assert result["certified"] is True, name
        assert result["error_bound"] is not None and result["error_bound"] < 1e-17, name


# --- the tail bound ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "true_tail"),
    [
        # ∫_{|t|>L} |g| φ for |g(x)| = the terms exactly (mean 0, std 1), by mpmath
        ((Term(1, 2),), lambda t: t * t),
        ((Term(3, 0, 1),), lambda t: 3 * mpmath.exp(abs(t))),
        ((Term(1, 1, 0, Fraction(1, 5)),), lambda t: abs(t) * mpmath.exp(t * t / 5)),
    ],
)
@pytest.mark.parametrize("L", [2, 6])
def test_tail_bound_bounds_the_true_tail(terms, true_tail, L):
    with mp.workdps(30):
        true = 2 * mpmath.quad(lambda t: true_tail(t) * mpmath.npdf(t), [L, mpmath.inf])
    with ctx.workprec(200):
        bound = tail_bound(terms, arb(L), arb(0), arb(1))
        true_ball = arb(mpmath.nstr(true, 25))
        assert bound >= true_ball * (1 - arb(10) ** -20)  # exact for a pure power of |x|
        assert bound <= 100 * true_ball  # and not uselessly loose  # and not uselessly loose


def _x_squared() -> Integrand:
    return Integrand(lambda low, high: (Piece(None, None, lambda z, a: z * z),), lambda r0: (Term(1, 2),))


def test_a_dropped_tail_bound_would_be_caught(monkeypatch):
    """E[X²] = 1: with the tail bound the ball holds 1; were the tails beyond L assumed to be 0,
    L would be chosen too small and the ball would miss the mass beyond it."""
    ball = gaussian_expectation_ball(_x_squared(), mean=0, std=1, digits=20)
    assert ball.contains(1)
    monkeypatch.setattr(gaussian_balls, "tail_bound", lambda terms, L, mean, std: arb(0))
    dropped = gaussian_expectation_ball(_x_squared(), mean=0, std=1, digits=20)
    assert not dropped.contains(1)


def test_exact_zero_is_exit_3_not_digits(monkeypatch):
    """E[σ(Z) − σ(−Z)] = 0 exactly, which no ball can prove (parity is not provable from the
    tree here): PrecisionError rather than noise printed as digits."""
    monkeypatch.setattr(gaussian_balls, "MAX_CANCELLATION_DIGITS", 60)  # the same verdict, sooner
    with pytest.raises(PrecisionError):
        expectation_balls("sigmoid(x) - 1/(1 + exp(x))", [(0, 1, 0)])


def test_odd_up_to_a_constant_has_mean_exactly_0(cli):
    """sigmoid(x) − 1/2 is odd (parity proved from the tree): its mean is printed as an exact
    0, its second moment agrees with the mpmath route (quadrature at 50 digits)."""
    run = cli("activation-moment", "sigmoid(x)-1/2", "--json", "--digits", "30")
    assert run.code == 0, run.stderr
    results = run.json()["results"]
    assert results["mean"]["decimal"] == "0" and results["mean"]["error_bound"] == 0
    (second,) = expectations_by_quadrature(resolve("sigmoid(x)-1/2"), [(0, 2, 0)], mean=0, std=1, digits=50)
    with mp.workdps(50):
        assert results["second_moment"]["decimal"] == decimal_text(second, 30)
        assert results["variance"]["decimal"] == results["second_moment"]["decimal"]


def test_an_exception_inside_the_integrand_is_not_swallowed():
    """python-flint's acb.integral drops an exception raised by the integrand (the CPU
    budget's signal, Ctrl-C) and goes on with a garbage evaluation; the engine re-raises it."""

    class Stop(BaseException):
        pass

    calls = [0]

    def branch(z, analytic):
        calls[0] += 1
        if calls[0] == 40:
            raise Stop
        return (z / 2).tanh()

    integrand = Integrand(lambda low, high: (Piece(None, None, branch),), lambda r0: (Term(1),))
    with pytest.raises(Stop):
        gaussian_expectation_ball(integrand, mean=Fraction(1, 3), std=1, digits=30)


@pytest.mark.parametrize("digits", [15, 200])
def test_exact_moments_give_every_derived_result(cli, digits):
    """relu2 under N(0, 1) has exact moments (1/2, 3/2, 2): rms, gain and centered_gain are
    computed from them at the digits asked (not at the few bits the exact values need)."""
    run = cli("activation-moment", "relu2", "--digits", str(digits), "--json")
    assert run.code == 0, run.stderr
    with mp.workdps(digits + 30):
        assert run.json()["results"]["gain"]["decimal"] == decimal_text(
            mpmath.sqrt(mpmath.mpf(2) / 3), digits
        )


# --- means far beyond std (issue 16): the tails by their asymptotic series, exact pieces ------


@pytest.mark.parametrize("u", ["70000", "1e20", "1e40"])
def test_asymptotic_gaussian_tail_holds_the_true_tail(u):
    """Q(u) from the bracketing series against mpmath's erfc at 60 digits (an independent
    route); Arb's own erfc gives 0 ± 2^(−10^41) from u ≈ 1e6 on."""
    with ctx.workprec(200):
        ball = gaussian_balls._gaussian_tail(arb(u), gaussian_balls._density(arb(u)))
    size = int(u.split("e")[1]) if "e" in u else len(u)
    with mp.workdps(10 * size + 60):  # mpmath's erfc far out loses about 2·log10(u) digits
        true = mpmath.erfc(mpmath.mpf(u) / mpmath.sqrt(2)) / 2
        mid, rad = (mpmath.mpf(ball.mid().str(70, radius=False)), mpmath.mpf(ball.rad().str(5, radius=False)))
        assert abs(mid - true) <= rad + abs(true) * mpmath.mpf(10) ** -55
        assert rad <= abs(true) * mpmath.mpf(10) ** -50


def _relu_moments_by_mpmath(mu: int) -> dict[str, mpmath.mpf]:
    """relu under N(mu, 1) by its closed form at 10·log10|mu| + 60 digits (E = μΦ(μ) + φ(μ),
    E² = (μ² + 1)Φ(μ) + μφ(μ)), where the terms cancel to 1/μ³ (mu < 0) or μ² (variance).
    Φ through erfc: mpmath's ncdf loses the digits far out, its erfc about 2·log10|mu|."""
    with mp.workdps(10 * len(str(abs(mu))) + 60):
        m = mpmath.mpf(mu)
        cdf, pdf = mpmath.erfc(-m / mpmath.sqrt(2)) / 2, mpmath.npdf(m)
        mean = m * cdf + pdf
        second = (m * m + 1) * cdf + m * pdf
        return {
            "mean": +mean,
            "second_moment": +second,
            "variance": second - mean * mean,
            "derivative_second_moment": +cdf,
        }


@pytest.mark.parametrize("mu", [10**20, -(10**20), 10**60, -(10**60)])
def test_relu_far_from_its_kink_agrees_with_the_closed_form(mu):
    """Means 1e20 std beyond the kink: the exact pieces (started at a precision that covers the
    cancellation) against relu's closed form in mpmath; used to be exit 3."""
    balls = moment_balls("relu", mean=mu, digits=15)
    expected = _relu_moments_by_mpmath(mu)
    for key, value in expected.items():
        with mp.workdps(30):
            assert decimal_text(certified_midpoint(balls[key]), 15) == decimal_text(value, 15), key


def certified_midpoint(ball):
    from momentcalc.moments import midpoint

    return midpoint(ball)


@pytest.mark.parametrize("u", ["0", "0.001", "-0.2", "0.24", "0.26", "3.5"])
def test_sinc_slope_on_balls_holds_the_derivative(u):
    """sinc'(u) on balls (the series near 0, the closed form away from it) against mpmath's
    numerical derivative of sinc at 60 digits, and on a ball around 0 it stays finite."""
    from flint import acb

    from momentcalc.catalog.expression_ball import sinc_slope

    with ctx.workprec(300), mp.workdps(60):
        ball = sinc_slope(acb(arb(u)))
        assert contains(ball.real, mpmath.diff(mpmath.sinc, mpmath.mpf(u)), mpmath.mpf(10) ** -55)
        assert ball.real.rad() < arb(10) ** -80
        assert sinc_slope(acb(arb(0, arb(1) / 8))).is_finite()


def test_integrable_log_singularity_is_bounded_not_refused():
    """E[log|Z|] = −(γ + log 2)/2: the neighbourhood of 0 is cut out and bounded analytically
    (|log|x|| ≤ log(1/|x|), ∫_0^δ log(1/u) du = δ(1 + log(1/δ))); the second moment against
    the mpmath route at 50 digits; E[log|Z|·x] vanishes by parity, E[(1/x)²] stays divergent."""
    mean, second = expectation_balls("log(abs(x))", [(0, 1, 0), (0, 2, 0)], digits=50)
    (reference,) = expectations_by_quadrature(resolve("log(abs(x))"), [(0, 2, 0)], mean=0, std=1, digits=50)
    with mp.workdps(70):
        assert contains(mean, -(mpmath.euler + mpmath.log(2)) / 2)
        assert contains(second, reference, reference * mpmath.mpf(10) ** -50)
    assert mean.rad() <= abs(mean.mid()) * arb(10) ** -50


def test_log_singularity_mean_shifted_and_scaled():
    # (That `activation-moment log(abs(x))` is exit 2 because E[1/Z²] = ∞ is checked with the
    # other divergent moments in test_activation_moment.)
    (value,) = expectation_balls("log(abs(x))", [(0, 1, 0)], mean="0.5", std=2, digits=20)
    (reference,) = expectations_by_quadrature(
        resolve("log(abs(x))"), [(0, 1, 0)], mean="0.5", std=2, digits=30
    )
    with mp.workdps(40):
        assert contains(value, reference, abs(reference) * mpmath.mpf(10) ** -28)


@pytest.mark.parametrize("k", [0, 1, 3])
def test_log_power_integral_against_quadrature(k):
    with ctx.workprec(200), mp.workdps(40):
        delta = arb(2) ** -7
        exact = mpmath.quad(lambda u: mpmath.log(1 / u) ** k, [0, mpmath.mpf(2) ** -7])
        assert contains(gaussian_balls.log_power_integral(k, delta), exact, mpmath.mpf(10) ** -35)


def test_as_arb_takes_any_integral_type():
    """With gmpy2 installed (the `fast` extra) mpmath's mantissas are gmpy2.mpz, which arb()
    refuses ('cannot create arb from type gmpy2.mpz'): every certified route failed. as_arb
    passes integers (and Fractions built from them) through int(). A registered Integral
    that is not an int stands in for mpz here."""
    import numbers

    from momentcalc.engine.gaussian_balls import as_arb

    class Mpz:  # like gmpy2.mpz: an Integral that is no int subclass
        def __init__(self, v):
            self.v = v

        def __int__(self):
            return self.v

        __index__ = __int__

    numbers.Integral.register(Mpz)
    assert as_arb(Mpz(7)) == 7
    quarter = Fraction(3, 4)
    quarter._numerator, quarter._denominator = Mpz(3), Mpz(4)  # as Fraction(mpz) keeps them
    assert as_arb(quarter) * 4 == 3


def test_a_left_out_result_asked_for_by_name_is_exit_3_with_the_reason(cli, monkeypatch):
    """--get and --expect of a result the computation left out: exit 3 with the note that says
    why (it is a known result that could not be proven, not a misspelt name: exit 2)."""
    # the same verdict, sooner (at 150 digits each call took 0.25 s more)
    monkeypatch.setattr(gaussian_balls, "MAX_CANCELLATION_DIGITS", 60)
    args = ("activation-moment", "sin(40*x)", "--mean", "0.3", "--std", "2.5")
    got = cli(*args, "--get", "variance")
    assert got.code == 3 and got.stdout == ""
    assert "--get 'variance' is left out of this result: " in got.stderr
    expected = cli(*args, "--expect", "mean=1.00e-3")
    assert expected.code == 3 and "--expect 'mean' is left out of this result: " in expected.stderr
    assert cli(*args, "--get", "varaince").code == 2  # a misspelt name is still bad input
    deep = cli(
        "kernel", "tanh", "--q1", "1", "--q2", "2", "--rho", "0.3", "--depth", "3", "--get", "ntk_depth"
    )
    assert deep.code == 3 and "--get 'ntk_depth' is left out of this result: " in deep.stderr
