"""The safe expression parser: hostile input is refused without being executed; accepted
expressions give the right function, derivative, sympy expression and parity."""

from __future__ import annotations

import builtins
import time

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

from momentcalc.catalog.expressions import (
    FUNCTIONS,
    MAX_LENGTH,
    compile_mpmath,
    derivative,
    parity,
    parse,
    parse_activation,
    to_sympy,
)
from momentcalc.errors import InputError

HOSTILE = [
    "__import__('os').system('touch MARKER')",
    "__import__('os').system('touch MARKER') or x",
    "open('MARKER', 'w')",
    "open('MARKER', 'w').write('1') * x",
    "exec(\"open('MARKER','w')\")",
    "eval(\"open('MARKER','w')\")",
    "(lambda: open('MARKER', 'w'))()",
    "(lambda: 1)()",
    "x.__class__",
    "[].__class__",
    "x.real",
    "().__class__.__bases__[0].__subclasses__()",
    "getattr(x, 'real')",
    "globals()",
    "y*2",
    "x if x else 1",
    'f"{x}"',
    "'MARKER'",
    "x[0]",
    "x < 1",
    "x and 1",
    "not x",
    "x @ x",
    "x // 2",
    "x % 2",
    "{x}",
    "[x]",
    "(x, 1)",
    "(y := x)",
    "[open('MARKER','w') for x in [1]]",
    "max(x, x**2)",
    "max(x)",
    "exp(x, 1)",
    "exp(x=1)",
    "exp(*[x])",
    "1j*x",
    "True*x",
    "sin",
    "import os",
    "x; open('MARKER','w')",
    "9**9**9",
    "x**9**9**9",
    "(2**1000)**1000*x",
    "1e999999*x",
    "x**x",
    "(-2)**x",
    "x*" * 300 + "x",
    "(" * 300 + "x" + ")" * 300,
    "-" * 600 + "x",
    "",
    "   ",
    "3",
    "pi*e",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_expressions_are_refused_and_never_run(cli, text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    run = cli("activation-moment", text, "--json")
    assert run.code == 2, text
    assert run.json()["error"]["code"] == 2
    assert "Traceback" not in run.stderr
    assert time.monotonic() - start < 5, "refusing must be quick (no huge powers computed)"
    assert not (tmp_path / "MARKER").exists()


def test_parser_never_calls_eval_or_exec(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the parser must not execute anything")

    for name in ("eval", "exec"):
        monkeypatch.setattr(builtins, name, forbidden)
    node = parse("x*tanh(log(1+exp(x)))")
    with mp.workdps(20):
        assert compile_mpmath(node)(mpmath.mpf(1)) > 0
    with pytest.raises(InputError):
        parse("__import__('os')")


def test_refusal_names_the_offending_part():
    with pytest.raises(InputError, match=r"'y'"):
        parse("x + y")
    with pytest.raises(InputError, match="attribute access"):
        parse("sin(x).real")
    with pytest.raises(InputError, match="lambda"):
        parse("(lambda t: t)(x)")
    with pytest.raises(InputError, match="exponent"):
        parse("x**9**9**9")
    with pytest.raises(InputError, match="too long"):
        parse("x+" * MAX_LENGTH + "x")


def test_every_listed_function_is_accepted():
    for name in FUNCTIONS:
        text = f"{name}(x, 1)" if name in ("max", "min") else f"{name}(x**2 + 2)"
        assert parse(text).kind == "call"


MP_REFERENCE = {
    "x*tanh(log(1+exp(x)))": lambda x: x * mpmath.tanh(mpmath.log(1 + mpmath.exp(x))),
    "sigmoid(2*x) - x/3": lambda x: 1 / (1 + mpmath.exp(-2 * x)) - x / 3,
    "softplus(x)**2 + erfc(x)": lambda x: mpmath.log(1 + mpmath.exp(x)) ** 2 + mpmath.erfc(x),
    "max(x, 0.5) - min(1/x, -2)": lambda x: max(x, mpmath.mpf("0.5")) - min(1 / x, -2),
    "sqrt(abs(x))*cosh(x/5) + sin(x)*cos(pi*x) + e**x": lambda x: (
        mpmath.sqrt(abs(x)) * mpmath.cosh(x / 5) + mpmath.sin(x) * mpmath.cos(mp.pi * x) + mp.e**x
    ),
    "log1p(x**2)*sinh(x) - 2**x": lambda x: mpmath.log1p(x**2) * mpmath.sinh(x) - 2**x,
}


@pytest.mark.parametrize("text", MP_REFERENCE)
def test_value_derivative_and_sympy_agree(text):
    import sympy as sp

    node = parse(text)
    f, df = compile_mpmath(node), compile_mpmath(derivative(node))
    xs = sp.Symbol("x", real=True)
    symbolic = to_sympy(node, xs)
    symbolic_derivative = sp.diff(symbolic, xs)
    with mp.workdps(30):
        for point in ("-2.3", "-0.7", "0.9", "1.7"):
            x = mpmath.mpf(point)
            assert abs(f(x) - MP_REFERENCE[text](x)) <= mpmath.mpf(10) ** -25 * max(1, abs(f(x)))
            assert abs(df(x) - mpmath.diff(f, x)) <= mpmath.mpf(10) ** -18 * max(1, abs(df(x)))
            exact = mpmath.mpf(str(symbolic_derivative.subs(xs, sp.Rational(point)).evalf(30)))
            assert abs(df(x) - exact) <= mpmath.mpf(10) ** -25 * max(1, abs(exact))


@pytest.mark.parametrize("text", [*MP_REFERENCE, "max(x, 0)**0.5", "x*tanh(log(1+exp(x)))", "sin(x)/x"])
def test_the_shared_pair_is_the_function_and_derivative_bit_for_bit(text):
    """The quadrature's (φ, φ') computes each shared sub-expression once, nothing else."""
    act = parse_activation(text)
    assert act.pair_exact
    for dps in (20, 60):
        with mp.workdps(dps):
            for point in ("-2.3", "-0.7", "0", "0.9", "1.7", "-1e-40"):
                x = mpmath.mpf(point)
                try:
                    expected = [act.fn(x, {})._mpf_, act.derivative(x, {})._mpf_]
                except InputError as error:
                    with pytest.raises(type(error)) as raised:
                        act.pair(x, {})
                    assert str(raised.value) == str(error)
                    continue
                assert [v._mpf_ for v in act.pair(x, {})] == expected, (text, point)


def test_parity_is_proved_from_the_tree():
    assert parity(parse("x**3 - sin(x)")) == "odd"
    assert parity(parse("tanh(x)*cos(x)")) == "odd"
    assert parity(parse("abs(x) + x**2")) == "even"
    assert parity(parse("exp(-x**2)")) == "even"
    assert parity(parse("x + 1")) is None
    # odd up to a rational constant: sigmoid(-u) = 1 - sigmoid(u), erfc(-u) = 2 - erfc(u)
    assert parity(parse("sigmoid(x) - 1/2")) == "odd"
    assert parity(parse("2*sigmoid(x) - 1")) == "odd"
    assert parity(parse("erfc(x) + sigmoid(x) - 3/2")) == "odd"
    assert parity(parse("(sigmoid(x) - 1/2)**2")) == "even"
    assert parity(parse("sigmoid(x) - 1/3")) is None
    assert parity(parse("sigmoid(x)*x")) is None  # (1/2 + odd)·odd: neither
    assert parity(parse("2**x")) is None  # a constant base with an x-dependent exponent
    assert parity(parse("sigmoid(x) - 1/(1 + exp(x))")) is None  # odd, but not provable by these rules


def test_shifted_parity_is_what_the_function_does():
    """The rules checked against the functions themselves: φ(−x) = ∓φ(x) at a few points."""
    import mpmath

    for text in (
        "sigmoid(x) - 1/2",
        "erfc(x) + sigmoid(x) - 3/2",
        "sigmoid(sin(x))/2 - 1/4",
        "(sigmoid(x) - 1/2)**2",
        "x/(x**2 + 1)",
        "sin(x)/x",
    ):
        act = parse_activation(text)
        sign = {"odd": -1, "even": 1}[act.parity]
        for x in (mpmath.mpf("0.3"), mpmath.mpf("1.7"), mpmath.mpf("-4.2")):
            assert mpmath.almosteq(act.fn(-x, {}), sign * act.fn(x, {}), 1e-14), (text, x)
    assert parity(parse("x*sigmoid(x)")) is None


def test_an_expression_activation_has_its_kinks_found():
    act = parse_activation("max(x - 0.3, 0) + abs(x + 1.25)")
    with mp.workdps(30):
        breaks = act.breaks({}, mp.zero, mp.one, mpmath.mpf(12))
        assert any(abs(b - mpmath.mpf("0.3")) < mpmath.mpf(10) ** -28 for b in breaks)
        assert any(abs(b + mpmath.mpf("1.25")) < mpmath.mpf(10) ** -28 for b in breaks)


def test_kinked_expression_matches_closed_form():
    """E[max(X − a, 0)] = φ(a) − a·Q(a) for X ~ N(0, 1): needs the kink at a resolved."""
    from momentcalc.moments import gaussian_moments

    values = gaussian_moments("max(x - 0.3, 0)", digits=30)
    with mp.workdps(40):
        a = mpmath.mpf("0.3")
        expected = mpmath.npdf(a) - a * (1 - mpmath.ncdf(a))
        assert abs(values["mean"] - expected) <= expected * mpmath.mpf(10) ** -30


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="x()+-*/.,0123456789 abcdefghijklmnopqrstuvwxyz_'[]{}:;=<>!@", max_size=40))
def test_random_text_either_parses_or_is_an_input_error(text):
    try:
        node = parse(text)
    except InputError:
        return
    assert node.has_x
