"""Symbolic work on the expression tree: the derivative (symbolic differentiation with small
simplifying constructors), the sympy expression, the parity proved from the tree, and the
sub-expressions whose zeros are kinks or singular points.
"""

from __future__ import annotations

from fractions import Fraction

from typing import Any

from .expression_tree import ONE, ZERO, Node, num


# --- derivative --------------------------------------------------------------------------------


def _add(a: Node, b: Node) -> Node:
    if a == ZERO:
        return b
    if b == ZERO:
        return a
    return Node("add", (a, b))


def _sub(a: Node, b: Node) -> Node:
    if b == ZERO:
        return a
    if a == ZERO:
        return _neg(b)
    return Node("sub", (a, b))


def _neg(a: Node) -> Node:
    if a.kind == "num":
        return num(-a.value)
    return Node("neg", (a,))


def _mul(a: Node, b: Node) -> Node:
    if a == ZERO or b == ZERO:
        return ZERO
    if a == ONE:
        return b
    if b == ONE:
        return a
    return Node("mul", (a, b))


def _chain(outer: Node, inner: Node) -> Node:
    """outer·inner for the chain rule, evaluated as 0 wherever inner is 0."""
    if outer == ZERO or inner == ZERO:
        return ZERO
    if inner == ONE:
        return outer
    if outer == ONE:
        return inner
    return Node("chain", (outer, inner))


def _div(a: Node, b: Node) -> Node:
    if a == ZERO:
        return ZERO
    return Node("div", (a, b))


def _call(name: str, *args: Node) -> Node:
    return Node("call", args, name)


def _softplus_argument(node: Node) -> Node | None:
    """v when the node is log(1 + exp(v)), log(exp(v) + 1) or log1p(exp(v)) (softplus(v)), else None."""
    u = node.args[0]
    if node.value == "log1p":
        return u.args[0] if u.kind == "call" and u.value == "exp" else None
    if node.value != "log" or u.kind != "add":
        return None
    for one, e in (u.args, u.args[::-1]):
        if one == ONE and e.kind == "call" and e.value == "exp":
            return e.args[0]
    return None


def _log_sigmoid_argument(node: Node) -> Node | None:
    """v when the node is log(sigmoid(v)) (= −softplus(−v)), else None."""
    u = node.args[0] if node.kind == "call" and node.value == "log" else None
    return u.args[0] if u is not None and u.kind == "call" and u.value == "sigmoid" else None


def canonical(node: Node) -> Node:
    """The tree with the identities that keep its balls and growth bounds finite written in:
    log(1 + exp(v)), log1p(exp(v)) as softplus(v), and log(sigmoid(v)) as −softplus(−v) (the
    forms with exp overflow, and log of a sigmoid that tends to 0 has no growth rule). The same
    function of x everywhere."""
    if not node.args:
        return node
    node = Node(node.kind, tuple(canonical(a) for a in node.args), node.value)
    if node.kind == "call":
        v = _softplus_argument(node)
        if v is not None:
            return _call("softplus", v)
        v = _log_sigmoid_argument(node)
        if v is not None:
            return _neg(_call("softplus", _neg(v)))
    return node


def derivative(node: Node) -> Node:
    """d/dx of the tree, by the usual rules (max/min/abs through step and sign)."""
    kind = node.kind
    if kind in ("num", "const"):
        return ZERO
    if kind == "x":
        return ONE
    if kind == "neg":
        return _neg(derivative(node.args[0]))
    if kind in ("add", "sub"):
        a, b = (derivative(x) for x in node.args)
        return _add(a, b) if kind == "add" else _sub(a, b)
    if kind in ("mul", "chain"):
        u, v = node.args
        return _add(_mul(derivative(u), v), _mul(u, derivative(v)))
    if kind == "div":
        u, v = node.args
        du, dv = derivative(u), derivative(v)
        if dv == ZERO:
            return _div(du, v)
        if (
            v.kind == "pow"
            and v.args[1].kind == "num"
            and v.args[1].value.denominator == 1
            and v.args[1].value > 0
        ):
            # (u/w^k)' = (u'·w − k·u·w')/w^(k+1): the order of a common zero of numerator and
            # denominator grows by one per derivative, not twofold (expression_ball.removable_quotient)
            w, k = v.args[0], v.args[1].value
            dw = derivative(w)
            return _div(_sub(_mul(du, w), _mul(_mul(num(k), u), dw)), Node("pow", (w, num(k + 1))))
        return _div(_sub(_mul(du, v), _mul(u, dv)), Node("pow", (v, num(2))))
    if kind == "pow":
        u, c = node.args
        du = derivative(u)
        if du == ZERO:
            return ZERO
        lowered = Node("pow", (u, Node("sub", (c, ONE)) if c.kind != "num" else num(c.value - 1)))
        return _chain(_mul(c, lowered), du)
    u = node.args[0]
    du = derivative(u)
    if du == ZERO:
        return ZERO
    name = node.value
    softplus_of = _softplus_argument(node)
    if softplus_of is not None:  # log(1 + e^v)' = σ(v)·v': bounded, where e^v/(1 + e^v) has no rule
        return _chain(_call("sigmoid", softplus_of), derivative(softplus_of))
    log_sigmoid_of = _log_sigmoid_argument(node)
    if log_sigmoid_of is not None:  # log(σ(v))' = σ'(v)/σ(v)·v' = σ(−v)·v', with no division by σ → 0
        return _chain(_call("sigmoid", _neg(log_sigmoid_of)), derivative(log_sigmoid_of))
    outer = {
        "exp": lambda: node,
        "log": lambda: _div(ONE, u),
        "log1p": lambda: _div(ONE, _add(ONE, u)),
        "sqrt": lambda: _div(ONE, _mul(num(2), node)),
        "abs": lambda: _call("sign", u),
        "sin": lambda: _call("cos", u),
        "cos": lambda: _neg(_call("sin", u)),
        "tanh": lambda: _call("sech2", u),
        "sinh": lambda: _call("cosh", u),
        "cosh": lambda: _call("sinh", u),
        "erf": lambda: _mul(
            _div(num(2), _call("sqrt", Node("const", value="pi"))),
            _call("exp", _neg(Node("pow", (u, num(2))))),
        ),
        "erfc": lambda: _neg(
            _mul(
                _div(num(2), _call("sqrt", Node("const", value="pi"))),
                _call("exp", _neg(Node("pow", (u, num(2))))),
            )
        ),
        "sigmoid": lambda: _call("sigmoid_slope", u),
        # σ' = σ(1 − σ), σ'' = σ'·(1 − 2σ)
        "sigmoid_slope": lambda: _mul(
            _call("sigmoid_slope", u), _sub(ONE, _mul(num(2), _call("sigmoid", u)))
        ),
        "softplus": lambda: _call("sigmoid", u),
        "max": lambda: _call("step", _sub(u, node.args[1])),
        "min": lambda: _call("step", _sub(node.args[1], u)),
        "sign": lambda: ZERO,
        "step": lambda: ZERO,
        "sech2": lambda: _mul(num(-2), _mul(_call("sech2", u), _call("tanh", u))),
        # sinc(u) = sin(u)/u (expression_ball.removable): sinc' = (cos u − sinc u)/u,
        # sinc'' = −sinc u − 2·sinc'(u)/u
        "sinc": lambda: _call("sinc_slope", u),
        "sinc_slope": lambda: _sub(_neg(_call("sinc", u)), _div(_mul(num(2), _call("sinc_slope", u)), u)),
    }[name]()
    return _chain(outer, du)


# --- sympy -------------------------------------------------------------------------------------


def to_sympy(node: Node, x: Any) -> Any:
    """The tree as a sympy expression in the symbol ``x`` (built node by node, no sympify)."""
    import sympy as sp

    kind = node.kind
    if kind == "num":
        return sp.Rational(node.value.numerator, node.value.denominator)
    if kind == "const":
        return sp.pi if node.value == "pi" else sp.E
    if kind == "x":
        return x
    args = [to_sympy(a, x) for a in node.args]
    if kind == "neg":
        return -args[0]
    if kind == "add":
        return args[0] + args[1]
    if kind == "sub":
        return args[0] - args[1]
    if kind in ("mul", "chain"):
        return args[0] * args[1]
    if kind == "div":
        return args[0] / args[1]
    if kind == "pow":
        return args[0] ** args[1]
    u = args[0]
    table = {
        "exp": lambda: sp.exp(u),
        "log": lambda: sp.log(u),
        "log1p": lambda: sp.log(1 + u),
        "sqrt": lambda: sp.sqrt(u),
        "abs": lambda: sp.Abs(u),
        "sin": lambda: sp.sin(u),
        "cos": lambda: sp.cos(u),
        "tanh": lambda: sp.tanh(u),
        "sinh": lambda: sp.sinh(u),
        "cosh": lambda: sp.cosh(u),
        "erf": lambda: sp.erf(u),
        "erfc": lambda: sp.erfc(u),
        "sigmoid": lambda: 1 / (1 + sp.exp(-u)),
        "softplus": lambda: sp.log(1 + sp.exp(u)),
        "max": lambda: sp.Piecewise((u, u >= args[1]), (args[1], True)),
        "min": lambda: sp.Piecewise((u, u <= args[1]), (args[1], True)),
        "sign": lambda: sp.sign(u),
        "step": lambda: sp.Heaviside(u),
        "sech2": lambda: sp.sech(u) ** 2,
        "sigmoid_slope": lambda: sp.exp(-u) / (1 + sp.exp(-u)) ** 2,
    }
    return table[node.value]()


# --- parity --------------------------------------------------------------------------------------

_ODD_FUNCTIONS = {"sin", "tanh", "sinh", "erf", "sign"}
_EVEN_FUNCTIONS = {"cos", "cosh", "abs", "sech2", "sigmoid_slope"}
# f(−u) = 2c − f(u): f − c is odd (sigmoid(−u) = 1 − sigmoid(u), erfc(−u) = 2 − erfc(u)).
_SHIFTED_ODD_FUNCTIONS = {"sigmoid": Fraction(1, 2), "erfc": Fraction(1)}


def parity(node: Node) -> str | None:
    """ "even", "odd" or None (unknown): proved from the tree, so an odd φ has mean exactly 0.
    Odd means φ(−x) = −φ(x); a sum of parts each odd up to a rational constant (σ(x) − 1/2,
    erfc(x) − 1, 2·sigmoid(x) − 1) is odd when the constants cancel."""
    found = _symmetry(node)
    if found is None:
        return None
    kind, shift = found
    if kind in ("num", "even"):
        return "even"
    return "odd" if shift == 0 else None


# Functions smooth on the whole real line (``hermite_symmetry``'s continuity condition).
_SMOOTH_FUNCTIONS = {
    "exp",
    "sin",
    "cos",
    "tanh",
    "sinh",
    "cosh",
    "erf",
    "erfc",
    "sigmoid",
    "softplus",
    "sech2",
    "sigmoid_slope",
}


def hermite_symmetry(node: Node) -> str | None:
    """Which Hermite coefficients of φ vanish by a symmetry beyond parity: "constant_even_part"
    when φ − c is odd for a rational c ≠ 0 (sigmoid(x): a_k = 0 for even k ≥ 2), "linear_odd_part"
    when φ − d·x is even (softplus(x), x*sigmoid(x), x*(1 + erf(x/sqrt(2)))/2: a_k = 0 for odd
    k ≥ 3, as E[x·He_k] = 0 for k ≠ 1). The second is read from φ': φ' − d odd (proved from its
    tree) makes φ − d·x even when φ is smooth on the whole line (a tree of smooth functions,
    whole powers and division by constants only: a jump or a pole of φ is not in φ')."""
    node = canonical(node)
    found = _symmetry(node)
    if found is not None:
        return "constant_even_part" if found[0] == "odd" and found[1] != 0 else None
    if not _smooth(node):
        return None
    slope = _symmetry(derivative(node))
    return "linear_odd_part" if slope is not None and slope[0] in ("odd", "num") else None


def _smooth(node: Node) -> bool:
    kind = node.kind
    if not node.has_x:
        return True
    if kind == "call" and node.value not in _SMOOTH_FUNCTIONS:
        return False
    if kind == "div" and node.args[1].has_x:
        return False
    if kind == "pow" and node.args[0].has_x:
        exponent = node.args[1]
        if exponent.kind != "num" or exponent.value.denominator != 1 or exponent.value < 0:
            return False
    return all(_smooth(a) for a in node.args)


# _symmetry: ("num", v) a rational constant v; ("even", None) φ(−x) = φ(x); ("odd", c) φ − c is
# odd (c rational); None: unknown. (The value is typed Any: a Fraction or None by the kind.)
_Known = tuple[str, Any]
_Symmetry = _Known | None


def _symmetry(node: Node) -> _Symmetry:
    kind = node.kind
    if kind == "num":
        return ("num", node.value)
    if kind == "const":
        return ("even", None)
    if kind == "x":
        return ("odd", Fraction(0))
    if kind == "call" and node.value in ("max", "min") and _is_clip(node):
        return ("odd", Fraction(0))
    found = [_symmetry(a) for a in node.args]
    parts = [part for part in found if part is not None]
    if len(parts) < len(found):
        return None
    if kind == "neg":
        return _scaled(parts[0], Fraction(-1))
    if kind in ("add", "sub"):
        right = parts[1] if kind == "add" else _scaled(parts[1], Fraction(-1))
        return _sum(parts[0], right)
    if kind in ("mul", "chain"):
        return _product(parts[0], parts[1])
    if kind == "div":
        (_left_kind, _left_value), (right_kind, right_value) = parts
        if right_kind == "num":
            return _scaled(parts[0], 1 / right_value) if right_value != 0 else None
        if right_kind == "odd" and right_value != 0:
            return None
        # 1/v has v's parity (odd: 1/(−v) = −1/v); then the product's rules.
        return _product(parts[0], parts[1])
    if kind == "pow":
        (base_kind, base_value), exponent = parts[0], node.args[1]
        if base_kind in ("num", "even") and parts[1][0] in ("num", "even"):  # not 2**x
            return ("even", None)
        if base_value == 0 and exponent.kind == "num" and exponent.value.denominator == 1:
            return ("odd", Fraction(0)) if exponent.value.numerator % 2 else ("even", None)
        return None
    name, (inner_kind, inner_value) = node.value, parts[0]
    if name in ("max", "min"):
        return ("even", None) if inner_kind in ("num", "even") and parts[1][0] in ("num", "even") else None
    if inner_kind in ("num", "even"):
        return ("even", None)
    if inner_value != 0:
        return None
    if name in _ODD_FUNCTIONS:
        return ("odd", Fraction(0))
    if name in _EVEN_FUNCTIONS:
        return ("even", None)
    if name in _SHIFTED_ODD_FUNCTIONS:
        return ("odd", _SHIFTED_ODD_FUNCTIONS[name])
    return None


def _is_clip(node: Node) -> bool:
    """min(max(u, −c), c) or max(min(u, c), −c) (either argument order) with u odd and c ≥ 0 a
    rational constant: clipping an odd function to a symmetric window keeps it odd."""
    outer, inner_name = node.value, ("max" if node.value == "min" else "min")
    for inner, bound in (node.args, node.args[::-1]):
        if inner.kind != "call" or inner.value != inner_name:
            continue
        c = _symmetry(bound)
        if c is None or c[0] != "num" or (c[1] < 0 if outer == "min" else c[1] > 0):
            continue
        for u, other in (inner.args, inner.args[::-1]):
            d, odd = _symmetry(other), _symmetry(u)
            if d is not None and d[0] == "num" and d[1] == -c[1] and odd == ("odd", Fraction(0)):
                return True
    return False


def _scaled(part: _Known, factor: Fraction) -> _Known:
    kind, value = part
    if kind == "even":
        return part
    return (kind, value * factor)


def _sum(left: _Known, right: _Known) -> _Symmetry:
    (lk, lv), (rk, rv) = left, right
    if lk == "num" and rk == "num":
        return ("num", lv + rv)
    if "even" in (lk, rk):
        return ("even", None) if {lk, rk} <= {"even", "num"} else None
    return ("odd", lv + rv)  # odd + odd, odd + a constant, a constant + odd


def _product(left: _Known, right: _Known) -> _Symmetry:
    (lk, lv), (rk, rv) = left, right
    if lk == "num" and rk == "num":
        return ("num", lv * rv)
    if lk == "num":
        return _scaled(right, lv)
    if rk == "num":
        return _scaled(left, rv)
    if (lk == "odd" and lv != 0) or (rk == "odd" and rv != 0):
        return None
    return ("even", None) if lk == rk else ("odd", Fraction(0))


# --- points where the expression is not smooth or not defined -------------------------------------


def critical_parts(node: Node) -> list[Node]:
    """Sub-expressions whose zeros are kinks or singular points: arguments of abs, max − c,
    min − c, denominators, arguments of log, log1p + 1, sqrt, and bases of fractional or
    negative powers."""
    found: list[Node] = []
    kind = node.kind
    if kind == "call":
        u = node.args[0]
        if node.value in ("abs", "log", "sqrt"):
            found.append(u)
        elif node.value == "log1p":
            found.append(_add(u, ONE))
        elif node.value in ("max", "min"):
            found.append(_sub(u, node.args[1]))
    elif kind == "div":
        found.append(node.args[1])
    elif kind == "pow":
        c = node.args[1]
        if not (c.kind == "num" and c.value.denominator == 1 and c.value >= 0):
            found.append(node.args[0])
    for a in node.args:
        found.extend(critical_parts(a))
    return [p for p in found if p.has_x]
