"""postnorm-decay: exact powers, the general formula, the depth search against brute force,
the bulk renderer against per-element rounding, and the seeds' 2^(−l/2)."""

from __future__ import annotations

import decimal
import json
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp

from momentcalc import postnorm_decay
from momentcalc.engine.precision import to_decimal, to_double
from momentcalc.errors import InputError

from .conftest import invoke


def exact_decimal(value: Fraction, digits: int) -> str:
    """``value`` rounded half-up to ``digits`` digits, formatted as to_decimal does (via mpmath
    at a precision high enough that the binary rounding cannot matter)."""
    with mp.workdps(digits + 60):
        return to_decimal(mpmath.mpf(value.numerator) / value.denominator, digits)


def power_decimal(
    base_squared: Fraction, exponent: int, digits: int, coefficient: Fraction = Fraction(1)
) -> str:
    """coefficient·sqrt(base_squared)^exponent, independently: mpmath power at high precision."""
    with mp.workdps(digits + 40 + len(str(exponent))):
        base = mpmath.sqrt(mpmath.mpf(base_squared.numerator) / base_squared.denominator)
        value = mpmath.mpf(coefficient.numerator) / coefficient.denominator * mpmath.power(base, exponent)
        return to_decimal(value, digits)


# --- Post-Norm weights -----------------------------------------------------------------------


@pytest.mark.parametrize("layers", [1, 2, 12, 37, 300])
def test_sigma_one_weights_are_exact_powers_of_sqrt_half(layers):
    """Seeds 000/001: x_0 and F_0 weigh 2^(−L/2), F_k weighs 2^(−(L−k)/2) — to 50 digits."""
    result = postnorm_decay(layers=layers, digits=50)
    weights = result.value("branch_weights")
    assert len(weights) == layers
    for k, weight in enumerate(weights):
        m = layers - k
        if m % 2 == 0:  # an exact power of two: the mpf itself is exact
            assert weight == mpmath.ldexp(1, -m // 2)
        assert to_decimal(weight, 50) == power_decimal(Fraction(1, 2), m, 50), k
    assert to_decimal(result.value("identity_weight"), 50) == power_decimal(Fraction(1, 2), layers, 50)


def test_seed_numbers_two_to_minus_l_over_two():
    result = postnorm_decay(layers=12)
    assert result.value("identity_weight") == mpmath.mpf(1) / 64  # 2^(−12/2)
    weights = result.value("branch_weights")
    assert weights[0] == mpmath.mpf(1) / 64  # F_0: 2^(−l/2)
    assert to_decimal(weights[-1], 15) == "0.707106781186548"  # F_{l−1}: 2^(−1/2)
    assert to_decimal(result.value("decay"), 15) == "0.707106781186548"  # the Norm divides by sqrt 2


@pytest.mark.parametrize("sigma", ["0.02", "0.5", "3", "1e-5", "250"])
@pytest.mark.parametrize("layers", [1, 7, 64])
def test_general_sigma_formula(sigma, layers):
    """Weight of F_k is (1 + sigma²)^(−(L−k)/2) (seed 001: Norm divides by sqrt(1 + sigma²))."""
    s = Fraction(sigma)
    square = 1 / (1 + s * s)
    result = postnorm_decay(layers=layers, sigma=sigma, digits=30)
    assert to_decimal(result.value("decay"), 30) == power_decimal(square, 1, 30)
    assert to_decimal(result.value("identity_weight"), 30) == power_decimal(square, layers, 30)
    expected = [power_decimal(square, layers - k, 30) for k in range(layers)]
    assert [to_decimal(w, 30) for w in result.value("branch_weights")] == expected
    assert result.value("final_variance") == 1


def test_bert_small_sigma_keeps_the_identity_path():
    """Seed 001: a small branch std makes the Norm divide by ~1, so x_0 keeps most of its weight."""
    small = postnorm_decay(layers=12, sigma="0.02").value("identity_weight")
    large = postnorm_decay(layers=12, sigma=1).value("identity_weight")
    assert small > 0.99 > 0.02 > large


def test_pre_norm_final_variance_and_unit_weights():
    for layers, sigma in ((12, 1), (5, Fraction(1, 3)), (1000, Fraction(2))):
        result = postnorm_decay(layers=layers, sigma=sigma, scheme="pre", digits=40)
        assert to_decimal(result["final_variance"].rounded_from, 40) == exact_decimal(
            1 + layers * Fraction(sigma) ** 2, 40
        )
        assert result.value("decay") == 1 and result.value("identity_weight") == 1
        assert set(result.value("branch_weights")) == {1}
        assert mpmath.isinf(result.value("depth_to_threshold"))
        assert any("final Norm" in note for note in result.notes)


def test_deepnorm_weights_and_default_alpha():
    layers = 6
    result = postnorm_decay(layers=layers, sigma=1, scheme="deepnorm", digits=30)
    with mp.workdps(60):
        alpha = mpmath.root(2 * layers, 4)  # DeepNet encoder: (2N)^(1/4)
        d = alpha / mpmath.sqrt(alpha**2 + 1)
        assert to_decimal(result.value("alpha"), 30) == to_decimal(alpha, 30)
        assert to_decimal(result.value("decay"), 30) == to_decimal(d, 30)
        assert to_decimal(result.value("identity_weight"), 30) == to_decimal(d**layers, 30)
        expected = [to_decimal(d ** (layers - k) / alpha, 30) for k in range(layers)]
    assert [to_decimal(w, 30) for w in result.value("branch_weights")] == expected
    assert "alpha" not in result.inputs  # the default is a result, not an input


def test_deepnorm_with_alpha_one_is_post_norm():
    post = postnorm_decay(layers=20, sigma="0.7", digits=25)
    deep = postnorm_decay(layers=20, sigma="0.7", scheme="deepnorm", alpha=1, digits=25)
    for name in ("decay", "identity_weight", "depth_to_threshold"):
        assert to_decimal(post.value(name), 25) == to_decimal(deep.value(name), 25)
    assert [to_decimal(w, 25) for w in post.value("branch_weights")] == [
        to_decimal(w, 25) for w in deep.value("branch_weights")
    ]


def test_deepnorm_residual_recursion_by_simulation_of_weights():
    """Unroll x_{t+1} = (alpha·x_t + F_t)/sqrt(alpha² + sigma²) symbolically on coefficient vectors."""
    layers, alpha, sigma = 9, Fraction(5, 2), Fraction(3, 4)
    with mp.workdps(50):
        a, s = mpmath.mpf(5) / 2, mpmath.mpf(3) / 4
        norm = mpmath.sqrt(a * a + s * s)
        coefficients = [mpmath.mpf(1)] + [mpmath.mpf(0)] * layers  # x_0, F_0 … F_{L−1}
        for t in range(layers):
            coefficients = [c * a / norm for c in coefficients]
            coefficients[t + 1] += 1 / norm
        result = postnorm_decay(layers=layers, sigma=sigma, scheme="deepnorm", alpha=alpha, digits=30)
        assert to_decimal(result.value("identity_weight"), 30) == to_decimal(coefficients[0], 30)
        assert [to_decimal(w, 30) for w in result.value("branch_weights")] == [
            to_decimal(c, 30) for c in coefficients[1:]
        ]


# --- depth_to_threshold against brute force --------------------------------------------------


def brute_force_depth(square: Fraction, threshold: Fraction) -> int:
    """Smallest L with d^L < t, i.e. (d²)^L < t², in exact rational arithmetic."""
    target = threshold * threshold
    depth, power = 1, square
    while not power < target:
        depth += 1
        power *= square
    return depth


@pytest.mark.parametrize(
    "sigma,threshold",
    [
        (1, "0.01"),
        (1, "0.25"),
        (1, "0.5"),
        (1, "1"),
        (1, "0.0009765625"),
        ("0.3", "0.01"),
        ("0.02", "0.5"),
        ("2", "0.001"),
        ("0.75", "0.64"),
        ("0.75", "0.8"),
        ("7", "0.02"),
    ],
)
def test_depth_to_threshold_matches_brute_force(sigma, threshold):
    s, t = Fraction(sigma), Fraction(threshold)
    expected = brute_force_depth(1 / (1 + s * s), t)
    found = postnorm_decay(sigma=sigma, threshold=threshold).value("depth_to_threshold")
    assert found == expected


def test_depth_equality_cases_are_decided_exactly():
    # d = 1/sqrt(2): d^4 = 1/4 exactly, so 4 layers are not below 1/4; d^5 is.
    assert postnorm_decay(threshold="0.25").value("depth_to_threshold") == 5
    # sigma = 0.75: d = 0.8 and 0.8^2 = 0.64 exactly.
    assert postnorm_decay(sigma="0.75", threshold="0.64").value("depth_to_threshold") == 3


@pytest.mark.parametrize("layers,alpha", [(12, None), (8, None), (50, "1.5")])
def test_deepnorm_depth_matches_brute_force(layers, alpha):
    result = postnorm_decay(layers=layers, sigma=1, scheme="deepnorm", alpha=alpha, threshold="0.1")
    if alpha is not None:
        a2 = Fraction(alpha) ** 2
        assert result.value("depth_to_threshold") == brute_force_depth(a2 / (a2 + 1), Fraction(1, 10))
    else:  # irrational alpha: d^L never equals 0.1, high precision decides
        with mp.workdps(80):
            d = result.value("decay")
            depth = 1
            while not d**depth < mpmath.mpf(1) / 10:
                depth += 1
        assert result.value("depth_to_threshold") == depth


def test_depth_far_beyond_the_layers_and_huge():
    # sigma = 1e-10: ln d ≈ −5e−21, so the depth to 1e−100 is about 4.6e22 — exact integer.
    result = postnorm_decay(sigma="1e-10", threshold="1e-100", digits=30)
    with mp.workdps(100):
        ratio = mpmath.log(mpmath.mpf(10) ** -100) / (-mpmath.log1p(mpmath.mpf(10) ** -20) / 2)
        expected = int(mpmath.floor(ratio)) + 1
    assert int(result.value("depth_to_threshold")) == expected


# --- 10^6 layers ----------------------------------------------------------------------------


@pytest.mark.slow
def test_million_layers_exact_without_underflow():
    """2^−500000 has the right mantissa and exponent (checked with Python's decimal module)."""
    result = postnorm_decay(layers=10**6)
    context = decimal.Context(prec=60, Emin=decimal.MIN_EMIN, Emax=decimal.MAX_EMAX)
    exact = context.power(decimal.Decimal(5), 500000).scaleb(-500000)  # 2^−500000 = 5^500000·10^−500000
    expected = format(decimal.Context(prec=15, rounding=decimal.ROUND_HALF_UP).plus(exact), "e")
    assert expected.startswith("1.00500450705359e-150515")
    weights = result.value("branch_weights")
    assert to_decimal(result.value("identity_weight"), 15) == expected
    assert to_decimal(weights[0], 15) == expected
    assert to_double(weights[0]) == 0.0  # the double underflows, the decimal does not

    decimals = weights.decimals(15)  # the bulk renderer
    assert len(decimals) == 10**6
    assert decimals[0] == expected
    assert decimals[-1] == "0.707106781186548"
    for k in (1, 2, 999, 123456, 500000, 999000, 999997, 999998):
        assert decimals[k] == to_decimal(weights[k], 15), k
    doubles = weights.doubles()
    assert doubles[-1] == 0.7071067811865476 and doubles[0] == 0.0
    assert doubles[-2200:] == [to_double(w) for w in weights[-2200:]]


def test_layers_above_a_million_are_refused():
    with pytest.raises(InputError, match="^layers must be a whole number from 1 to 1000000"):
        postnorm_decay(layers=10**6 + 1)


# --- the lazy sequence and its bulk rendering ------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(layers=3000),
        dict(layers=3000, sigma="0.02"),
        dict(layers=2500, sigma="250"),
        dict(layers=700, scheme="pre"),
        dict(layers=1500, scheme="deepnorm", sigma="0.1"),
        dict(layers=1200, scheme="deepnorm", alpha="1e-20", sigma="1e-19"),
        dict(layers=600, sigma="1e-9"),
    ],
)
@pytest.mark.parametrize("digits", [1, 2, 6, 15, 33])
def test_bulk_decimals_equal_per_element_rounding(kwargs, digits):
    weights = postnorm_decay(**kwargs, digits=digits).value("branch_weights")
    assert weights.decimals(digits) == [to_decimal(w, digits) for w in weights]


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(layers=3000),
        dict(layers=3000, sigma="0.02"),
        dict(layers=300, sigma="30"),
        dict(layers=500, scheme="pre"),
        dict(layers=50, scheme="deepnorm", alpha="1e-310", sigma=1),  # subnormal right after 1.0
        dict(layers=3000, scheme="deepnorm", alpha="1e-310", sigma="1e-310"),
    ],  # 1e310·2^(−m/2): None, then doubles
)
def test_bulk_doubles_equal_per_element(kwargs):
    weights = postnorm_decay(**kwargs).value("branch_weights")
    assert weights.doubles() == [to_double(w) for w in weights]


def test_bulk_path_at_depth_against_independent_powers():
    """Deep in a long sequence (many blocks of the bulk path, d far from 1/sqrt(2)), sampled
    elements equal mpmath's power at high precision, and the doubles their nearest double."""
    layers, sigma = 200_000, Fraction(3, 10)
    weights = postnorm_decay(layers=layers, sigma=sigma).value("branch_weights")
    decimals, doubles = weights.decimals(15), weights.doubles()
    square = 1 / (1 + sigma * sigma)
    for k in (0, 1, 1023, 1024, 1025, 77_777, 150_000, 198_976, 199_999):
        assert decimals[k] == power_decimal(square, layers - k, 15), k
        with mp.workdps(40):
            exact = mpmath.sqrt(mpmath.mpf(square.numerator) / square.denominator) ** (layers - k)
            assert doubles[k] == to_double(exact), k


def test_long_lists_in_json_equal_the_encoder():
    """The joined fast path for long lists writes what json.dumps would (as parsed JSON)."""
    from momentcalc.render.document import document
    from momentcalc.render.json_out import render_json

    for kwargs in (dict(layers=3000), dict(layers=1500, scheme="pre"), dict(layers=2000, sigma="0.05")):
        result = postnorm_decay(**kwargs)
        text = render_json(result)
        assert json.loads(text) == json.loads(json.dumps(document(result)))
        weights = json.loads(text)["results"]["branch_weights"]
        assert len(weights["value"]) == len(weights["decimal"]) == kwargs["layers"]


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(layers=300),
        dict(layers=900, sigma="0.5"),
        dict(layers=1000, sigma="0.5", digits=30),
        dict(layers=50, scheme="deepnorm", alpha="1e-310", sigma=1),  # subnormals
        dict(layers=1000, scheme="deepnorm", alpha="1e-310", sigma="1e-310"),
    ],  # None (null) items
)
def test_short_lists_in_json_are_written_as_item_by_item(monkeypatch, kwargs):
    """Lists of up to LONG_LIST numerals or doubles are written in one piece: byte for byte
    what the item-by-item writer (json.dumps per item) gives."""
    from momentcalc.render import json_out

    result = postnorm_decay(**kwargs)
    fast = json_out.render_json(result)
    monkeypatch.setattr(json_out, "_scalar_texts", lambda items: None)
    assert fast == json_out.render_json(result)
    assert "null" in fast or kwargs.get("alpha") != "1e-310" or kwargs["layers"] < 1000


def test_doubles_just_below_the_overflow_threshold():
    """1/alpha just under 2^1024 rounds up to infinity: None, as to_double says (found by review:
    the normal-range fast path raised OverflowError here)."""
    alpha = "5.5626846462680034577255817934e-309"
    for layers in (1, 300):
        weights = postnorm_decay(layers=layers, scheme="deepnorm", sigma=0, alpha=alpha).value(
            "branch_weights"
        )
        assert weights.doubles() == [to_double(w) for w in weights]
        assert weights.doubles()[-1] is None
    run = invoke(
        "postnorm-decay", "--layers", "1", "--sigma", "0", "--scheme", "deepnorm", "--alpha", alpha, "--json"
    )
    assert run.code == 0, run.stderr
    assert run.json()["results"]["branch_weights"]["value"] == [None]


def test_largest_in_a_range_equals_the_maximum():
    """The chart's bucket maxima come from ``largest`` without computing the bucket."""
    from momentcalc.computations.postnorm_series import GeometricWeights

    falling = postnorm_decay(layers=500, sigma="0.7").value("branch_weights")
    rising = GeometricWeights(50, lambda: (mpmath.mpf(3), mpmath.mpf(4), mpmath.mpf(2)), 15)  # 3·2^(50−k)
    for weights in (falling, rising):
        for first, last in ((0, 0), (0, 9), (13, 37), (len(weights) - 5, len(weights) - 1)):
            expected = max(weights[first : last + 1], key=abs)
            assert to_decimal(weights.largest(first, last), 15) == to_decimal(expected, 15)
        with pytest.raises(IndexError):
            weights.largest(10, 5)


def test_sequence_protocol():
    weights = postnorm_decay(layers=10, digits=20).value("branch_weights")
    items = list(weights)
    assert len(items) == 10
    assert [weights[k] for k in range(10)] == items
    assert weights[-1] == items[-1] and weights[-10] == items[0]
    assert weights[2:5] == tuple(items[2:5]) and weights[::3] == tuple(items[::3])
    with pytest.raises(IndexError):
        weights[10]
    assert "GeometricWeights" in repr(weights)
    with pytest.raises(ValueError):
        weights.decimals(25)  # built for 20 digits


# --- CLI ------------------------------------------------------------------------------------


def test_cli_json_shape():
    run = invoke("postnorm-decay", "--json")
    assert run.code == 0, run.stderr
    doc = run.json()
    assert doc["command"] == "postnorm-decay"
    assert doc["inputs"] == {"layers": 12.0, "sigma": 1.0, "threshold": 0.01, "scheme": "post"}
    results = doc["results"]
    assert list(results) == [
        "decay",
        "identity_weight",
        "branch_weights",
        "depth_to_threshold",
        "final_variance",
    ]
    weights = results["branch_weights"]
    assert len(weights["value"]) == len(weights["decimal"]) == 12
    assert weights["decimal"][0] == "0.0156250000000000" and weights["value"][-1] == 0.7071067811865476
    assert results["depth_to_threshold"]["value"] == 14.0


def test_cli_pre_norm_infinite_depth_in_json():
    doc = invoke("postnorm-decay", "--scheme", "pre", "--sigma", "0.5", "--json").json()
    assert doc["results"]["depth_to_threshold"]["value"] is None
    assert doc["results"]["depth_to_threshold"]["decimal"] == "inf"
    assert doc["results"]["final_variance"]["decimal"] == "4.00000000000000"  # 1 + 12·0.25


def test_cli_deepnorm_reports_alpha():
    doc = invoke("postnorm-decay", "--scheme", "deepnorm", "--layers", "8", "--json").json()
    assert doc["results"]["alpha"]["decimal"] == "2.00000000000000"  # (2·8)^(1/4)
    doc = invoke("postnorm-decay", "--scheme", "deepnorm", "--alpha", "3", "--json").json()
    assert doc["inputs"]["alpha"] == 3.0 and doc["results"]["alpha"]["value"] == 3.0


def test_cli_table_lists_every_weight_for_12_and_1000_layers():
    run = invoke("postnorm-decay")
    assert run.code == 0
    assert "branch_weights" in run.stdout and "0.0156250000000000" in run.stdout  # at --digits 15
    assert "0.707106781186548" in run.stdout
    run = invoke("postnorm-decay", "--layers", "1000", "--digits", "6")
    assert "branch_weights  (1000 values; entry = row index + column)" in run.stdout
    rows = {
        line.split()[0]: line.split()[1:] for line in run.stdout.splitlines() if line[:5].strip().isdigit()
    }
    assert rows["0"][0] == "3.05494e-151"  # k = 0: 2^(-1000/2), every entry listed
    assert rows["995"][-1] == "0.707107" and "largest of each" not in run.stdout
    assert sum(len(cells) for cells in rows.values()) == 1000


def test_cli_sweep_and_expect():
    run = invoke("postnorm-decay", "--sigma", "0.5,1", "--json")
    rows = run.json()["rows"]
    assert [row["results"]["depth_to_threshold"]["value"] for row in rows] == [42.0, 14.0]
    run = invoke("postnorm-decay", "--expect", "identity_weight=0.015625")
    assert run.code == 0
    run = invoke("postnorm-decay", "--expect", "identity_weight=0.0158")
    assert run.code == 1


def test_cli_derive():
    doc = invoke("postnorm-decay", "--derive", "--json").json()["results"]
    assert doc["decay"]["closed_form"] == "sqrt(2)/2"
    assert doc["identity_weight"]["closed_form"] == "1/64"
    assert doc["branch_weights"]["closed_form"] == "2**(k/2 - 6)"
    run = invoke("postnorm-decay", "--derive", "--layers", "100000")
    assert run.code == 0 and "(sqrt(2)/2)**100000" in run.stdout


@pytest.mark.parametrize(
    "args,message",
    [
        (["--layers", "0"], "--layers must be a whole number from 1 to 1000000, got 0"),
        (["--layers", "2.5"], "--layers must be a whole number from 1 to 1000000, got 2.5"),
        (["--layers", "1000001"], "--layers must be a whole number from 1 to 1000000"),
        (["--sigma", "-1"], "--sigma must be at least 0, got -1"),
        (["--threshold", "0"], "--threshold must be greater than 0 and at most 1, got 0"),
        (["--threshold", "1.5"], "--threshold must be greater than 0 and at most 1, got 1.5"),
        (["--scheme", "mid"], "--scheme must be one of post, pre, deepnorm, got 'mid'"),
        (["--alpha", "2"], "--alpha applies only with --scheme deepnorm, got --scheme post"),
        (["--scheme", "deepnorm", "--alpha", "0"], "--alpha must be greater than 0, got 0"),
    ],
)
def test_cli_bad_input(args, message):
    run = invoke("postnorm-decay", *args)
    assert run.code == 2
    assert run.stdout == ""
    assert message in run.stderr and "Traceback" not in run.stderr
    run = invoke("postnorm-decay", *args, "--json")
    assert run.code == 2
    assert message in json.loads(run.stdout)["error"]["message"]


@pytest.mark.parametrize("layers", [100, 600])  # the per-element path and the bulk path
@pytest.mark.parametrize("digits", [1, 2, 15])
@pytest.mark.parametrize(
    "options", [{}, {"sigma": "0.3"}, {"scheme": "deepnorm"}, {"scheme": "deepnorm", "alpha": "0.000001"}]
)
def test_branch_weight_decimals_are_correctly_rounded(layers, digits, options):
    """Every bulk decimal equals the proven one (exact rational, or an Arb ball that rounds)."""
    weights = postnorm_decay(layers=layers, digits=digits, **options).value("branch_weights")
    texts = weights.decimals(digits)
    assert texts == [weights.proven_text(layers - k, digits) for k in range(layers)]


def test_branch_weight_ties_round_away_from_zero():
    """sigma = 1: even elements are exact powers of 2; 2^−22 = 2.384185791015625e-7 is a tie at
    15 digits and 2^−2 = 0.25 at one digit: both go up."""
    for layers in (100, 600):
        weights = postnorm_decay(layers=layers, digits=15).value("branch_weights")
        assert weights.decimals(15)[layers - 44] == "2.38418579101563e-7"  # m = 44: (1/2)^22
        weights = postnorm_decay(layers=layers, digits=1).value("branch_weights")
        assert weights.decimals(1)[layers - 4] == "0.3"  # m = 4: 1/4
        assert weights.decimals(1)[layers - 2] == "0.5"


# --- certified ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"sigma": "0.3", "layers": 37},
        {"sigma": "0.02", "layers": 1000, "threshold": "0.5"},
        {"scheme": "deepnorm", "layers": 100},
        {"scheme": "deepnorm", "alpha": "1.5", "sigma": "0.7"},
        {"scheme": "deepnorm", "layers": 8},
        {"scheme": "pre", "sigma": "0.3", "layers": 7},
    ],
)
def test_certified_results_against_the_mpmath_route_at_50_digits(options):
    """Every scalar result proven (an exact rational or a ball below half a unit of its last
    digit) and equal at 50 digits to mpmath at 90 digits; the branch weights certified."""
    from .certified_checks import assert_certified

    result = postnorm_decay(digits=50, **options)
    layers, form = options.get("layers", 12), options.get("scheme", "post")
    with mp.workdps(90):
        s = (
            mpmath.mpf(Fraction(options.get("sigma", 1)).numerator)
            / Fraction(options.get("sigma", 1)).denominator
        )
        if form == "pre":
            alpha, d = None, mpmath.mpf(1)
        else:
            if form == "post":
                alpha = mpmath.mpf(1)
            elif "alpha" in options:
                alpha = mpmath.mpf(options["alpha"])
            else:
                alpha = mpmath.root(2 * layers, 4)
            d = alpha / mpmath.sqrt(alpha**2 + s**2)
        expected = {
            "decay": d,
            "identity_weight": d**layers,
            "final_variance": 1 + layers * s**2 if form == "pre" else 1,
        }
        if form == "deepnorm":
            expected["alpha"] = alpha
        for name, value in expected.items():
            assert assert_certified(result[name], 50) == to_decimal(value, 50), name
            proven = result[name].rounded_from  # the exact fraction, or the ball's midpoint
            proven = (
                mpmath.mpf(proven.numerator) / proven.denominator if isinstance(proven, Fraction) else proven
            )
            assert abs(proven - value) <= result[name].error_bound + abs(value) * mpmath.mpf(10) ** -80, name
    assert result["branch_weights"].certified and result["branch_weights"].error_bound < mpmath.mpf(10) ** -50
    depth = result["depth_to_threshold"]
    assert depth.certified and depth.error_bound == 0 and depth.whole


def test_depth_to_threshold_prints_as_a_whole_number():
    """An integer prints as one, whatever --digits (SPEC: the smallest depth), in every format."""
    for digits in ("1", "15", "40"):
        doc = invoke("postnorm-decay", "--json", "--digits", digits).json()["results"]["depth_to_threshold"]
        assert (doc["decimal"], doc["value"], doc["certified"], doc["error_bound"]) == ("14", 14.0, True, 0.0)
    big = invoke(
        "postnorm-decay", "--json", "--sigma", "1e-10", "--threshold", "1e-100", "--digits", "3"
    ).json()
    with mp.workdps(100):
        ratio = mpmath.log(mpmath.mpf(10) ** -100) / (-mpmath.log1p(mpmath.mpf(10) ** -20) / 2)
        expected = str(int(mpmath.floor(ratio)) + 1)
    assert len(expected) == 23 and big["results"]["depth_to_threshold"]["decimal"] == expected
    assert (
        "│ depth_to_threshold │ 14 " in invoke("postnorm-decay", "--layers", "6", "--format", "table").stdout
    )
    assert invoke("postnorm-decay", "--format", "csv", "--layers", "2").stdout.splitlines()[1].split(",")[
        -2:-1
    ] == ["14"]
    run = invoke("postnorm-decay", "--json", "--expect", "depth_to_threshold=14.0")
    assert run.code == 0 and run.json()["checks"][0]["found"] == "14", run.stderr


def test_certified_markers_in_table_and_json():
    assert "certified" in invoke("postnorm-decay", "--layers", "6").stdout.splitlines()[0]
    for args in ((), ("--scheme", "pre"), ("--scheme", "deepnorm", "--layers", "30")):
        results = invoke("postnorm-decay", "--json", *args).json()["results"]
        assert all(r["certified"] is True and r["error_bound"] is not None for r in results.values()), args
