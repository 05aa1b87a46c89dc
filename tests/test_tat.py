"""``tat``: TAT's leaky_relu slope against an mpmath bisection, the transforms reproduce their
targets through ``kernel`` (an independent route: the transformed activation as an expression),
and deepmind/dks's own test values (its ResNet's subnetwork-maximizing function, copied from
dks's tests/test_activation_transform.py) to the digits they are right."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb, ctx

from momentcalc.catalog import resolve
from momentcalc.computations.kernel import kernel
from momentcalc.computations.tat import tat
from tests.conftest import invoke
from momentcalc.moments.dks import locate, prove
from momentcalc.moments.transforms import tat_negative_slope


def _subnet_max(x, r_fn, shortcut_weight="0.6"):
    """dks's test fixture: the subnetwork maximizing function of its modified ResNet."""
    w2 = (mpmath.mpf(shortcut_weight) if not isinstance(x, arb) else arb(shortcut_weight)) ** 2
    res = r_fn(r_fn(r_fn(x)))
    for _group, blocks in enumerate((3, 4, 23, 3)):
        for j in range(blocks):
            branch = r_fn(r_fn(r_fn(x)))
            short = r_fn(x) if j == 0 else x
            x = w2 * short + (1 - w2) * branch
    x = r_fn(x)
    return x if x > res else res


def _agreeing(value, published: float) -> int:
    for digits in range(17, 0, -1):
        if mpmath.nstr(mpmath.mpf(value), digits) == mpmath.nstr(mpmath.mpf(repr(published)), digits):
            return digits
    return 0


def _leaky_map(alpha, c):
    return (
        (1 - alpha) ** 2 * (mpmath.sqrt(1 - c * c) + (mpmath.pi - mpmath.acos(c)) * c) / mpmath.pi
        + 2 * alpha * c
    ) / (1 + alpha**2)


@pytest.mark.parametrize("depth, eta", [(1, "0.1"), (6, "0.5"), (50, "0.9")])
def test_leaky_relu_slope_against_bisection(depth, eta):
    result = tat("leaky_relu", depth=depth, target_c0=eta, digits=20)
    with mpmath.workdps(30):

        def network(alpha):
            c = mpmath.mpf(0)
            for _ in range(depth):
                c = _leaky_map(alpha, c)
            return c - mpmath.mpf(eta)

        alpha = mpmath.findroot(network, (mpmath.mpf(0), mpmath.mpf(1)), solver="bisect")
        assert abs(result.value("negative_slope") - alpha) < mpmath.mpf(10) ** -20
        assert abs(result.value("output_scale") - mpmath.sqrt(2 / (1 + alpha**2))) < mpmath.mpf(10) ** -20


def test_leaky_relu_unreachable_target_names_the_range():
    run = invoke("tat", "leaky_relu", "--depth", "5", "--target-c0", "0.8")
    assert run.code == 2 and run.stdout == ""
    assert "--target-c0" in run.stderr and "0.7359463506" in run.stderr


def test_dks_leaky_relu_tat_value_to_its_eight_right_digits():
    """dks: c_val_0_target 0.75 on its ResNet gives negative_slope 0.6291800290346146 (its
    bisection stops at a tolerance of 1e-8): right to 8 digits (correctly rounded)."""
    alpha = tat_negative_slope(Fraction(3, 4), 0, 20, network=lambda layer, x: _subnet_max(x, layer))
    assert _agreeing(alpha.mid().str(25, radius=False), 0.6291800290346146) == 8


def _resnet_target():
    """DKS's per-layer C'(1) target for the network C'(1) of 1.2 on dks's ResNet (its
    max_slope_func, solved here to 40 digits)."""
    with mpmath.workdps(40):
        t = mpmath.findroot(
            lambda x: _subnet_max(mpmath.mpf(1), lambda y: x * y) - mpmath.mpf("1.2"),
            (mpmath.mpf(1), mpmath.mpf("1.1")),
            solver="anderson",
        )
        return arb(mpmath.nstr(t, 38))


# dks's published DKS parameters (c_slope_1_target 1.2), and how many digits of each are right.
DKS_PUBLISHED = {
    "softplus": (
        {
            "input_scale": 0.18761008168267976,
            "input_shift": 0.40688063442262007,
            "output_shift": -0.9213466151411376,
            "output_scale": 8.878672543665223,
        },
        (8, 7, 8, 7),
    ),
    "tanh": (
        {
            "input_scale": 0.07461073057540868,
            "input_shift": 0.5566915199964182,
            "output_shift": -0.5034378768692127,
            "output_scale": 18.002635964442558,
        },
        (7, 9, 9, 8),
    ),
    "relu": (
        {
            "input_scale": 0.3685360046708044,
            "input_shift": 1.0,
            "output_shift": -1.000373858553784,
            "output_scale": 2.721729988761473,
        },
        (5, 17, 8, 5),
    ),
    "gelu": (
        {
            "input_scale": 0.07043253126531114,
            "input_shift": 0.259489297927707,
            "output_shift": -0.15815378961903598,
            "output_scale": 20.21158902315857,
        },
        (7, 9, 9, 8),
    ),
}


# gelu's (1.3 s of CPU, the route tanh's and softplus's take) with -m reference
@pytest.mark.parametrize(
    "name",
    [
        name if name != "gelu" else pytest.param(name, marks=pytest.mark.reference)
        for name in sorted(DKS_PUBLISHED)
    ],
)
def test_dks_published_parameters_to_the_digits_they_are_right(name):
    published, digits = DKS_PUBLISHED[name]
    with ctx.workprec(200):
        target = _resnet_target()
    shift = Fraction(1) if name == "relu" else None
    a, b = locate(resolve(name), target, 20, shift)
    found = prove(resolve(name), target, a, b, 20, shift is not None)
    for (key, value), right in zip(published.items(), digits):
        assert _agreeing(found[key].mid().str(25, radius=False), value) == right, key


def test_dks_transform_meets_its_conditions_through_kernel():
    """φ̂(x) = γ(tanh(a·x + b) + δ) as an expression: C(0) = 0, C'(1) = ζ^(1/L), Q'(1) = 1."""
    result = tat("tanh", depth=4, target_slope="1.5", digits=30)
    a, b, d, g = (
        mpmath.nstr(result.value(k), 28)
        for k in ("input_scale", "input_shift", "output_shift", "output_scale")
    )
    shaped = kernel(f"{g}*(tanh({a}*x + {b}) + {d})", rho="0.5", digits=20)
    with mpmath.workdps(30):
        assert abs(shaped.value("c_map_at_0")) < 1e-20
        assert abs(shaped.value("c_map_slope_at_1") - mpmath.mpf("1.5") ** (mpmath.mpf(1) / 4)) < 1e-20
        assert abs(shaped.value("q_map_slope_at_1") - 1) < 1e-20


@pytest.mark.parametrize(
    "argv, option",
    [
        (("softplus", "--target-slope", "1"), "--target-slope"),
        (("softplus", "--target-c0", "0.5"), "--target-slope"),
        (("leaky_relu", "--target-slope", "1.5"), "--target-c0"),
        (("tanh", "--depth", "0", "--target-slope", "1.5"), "--depth"),
    ],
)
def test_bad_input(argv, option):
    run = invoke("tat", *argv)
    assert run.code == 2 and run.stdout == "" and option in run.stderr


@pytest.mark.parametrize(
    "argv, words",
    [
        (["tat", "tanh"], "--target-slope is required"),
        (["tat", "leaky_relu"], "--target-c0 is required for leaky_relu"),
        (["tat", "tanh", "--target-c0", "0.5"], "--target-c0 (TAT) is for leaky_relu"),
        (
            ["tat", "leaky_relu", "--target-slope", "2"],
            "leaky_relu takes --target-c0 (TAT), not --target-slope",
        ),
    ],
)
def test_a_missing_or_misplaced_target_says_which(argv, words):
    run = invoke(*argv)
    assert run.code == 2 and run.stdout == "" and words in run.stderr and run.stderr.count("\n") == 1


# one target by default; the others (2.2 s of CPU, the same route) with -m reference
@pytest.mark.parametrize(
    "eta",
    [
        "0.9",
        pytest.param("0.999999", marks=pytest.mark.reference),
        pytest.param("0.1", marks=pytest.mark.reference),
    ],
)
def test_leaky_relu_at_depth_10000_brackets_the_target(eta):
    """At 10,000 layers (was a findroot traceback after a minute of CPU for 0.9): the printed
    slope, half a unit in its last place either way, brackets the target in mpmath at 40 digits
    (C_alpha^L(0) falls as alpha rises), so all 15 printed digits are right."""
    result = tat("leaky_relu", depth=10000, target_c0=eta)
    text = result["negative_slope"].decimal(15)
    with mpmath.workdps(40):
        alpha = mpmath.mpf(text)
        half = mpmath.mpf(10) ** (mpmath.floor(mpmath.log10(alpha)) - 14) / 2

        def network(a):
            c = mpmath.mpf(0)
            for _ in range(10000):
                c = _leaky_map(a, c)
            return c - mpmath.mpf(eta)

        assert network(alpha - half) > 0 > network(alpha + half)


def test_leaky_relu_unreachable_at_depth_10000_is_quick():
    """The range check composes relu's map at a fixed precision (was 80,000 bits, 44 s)."""
    import time

    start = time.process_time()
    run = invoke("tat", "leaky_relu", "--depth", "10000", "--target-c0", "1")
    assert run.code == 2 and "0.9999995574 for depth 10000" in run.stderr
    assert time.process_time() - start < 5
