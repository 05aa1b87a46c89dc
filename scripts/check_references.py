#!/usr/bin/env python3
"""Independent references for ``kernel``, ``hermite`` and ``tat``: every printed digit checked.

A script, not a test (minutes of CPU): it runs the CLI (``momentcalc ... --json``, one child at a
time) and compares each printed ``decimal`` with a reference computed here without any of
momentcalc's code, at 200 bits (about 60 digits), aiming at 1e-45 relative:

* Gaussian expectations by composite Gauss-Legendre (nodes computed here by Newton's method),
  panels of width at most 1 split at every kink of phi and phi', over +-15 standard deviations;
  the bivariate ones on a product rule in (u, v) itself, where the kinks stay on the panel edges:
  E[f(u)g(v)] = sum_i W_i f(u_i) sum_j c_ij g(v_j), c_ij the weights of the conditional law
  N(rho' u_i, sigma^2) of v given u (only the window of +-16 sigma around its mean).  rho = 0 and
  rho = +-1 are one-dimensional.
* phi, phi', phi'' written out by hand for every catalog entry and expression checked (MPFR via
  gmpy2), selu's lambda and alpha from their closed forms (E = 0, E^2 = 1), exact zeros from
  parity (an odd phi has mean 0; a_k = 0 where the odd or even part of phi is a polynomial of
  lower degree), checked numerically.
* ``tat``: the printed transform is put back into the conditions (C(0) = 0, Q(1) = 1, Q'(1) = 1,
  per-layer C'(1) = zeta^(1/L); TAT: C_alpha^L(0) = eta with leaky_relu's closed C map), which are
  then solved with mpmath.findroot at 45 digits from the printed values: the printed digits must
  be the root's, rounded.

A printed value with n significant digits passes when it equals the reference rounded half away
from zero to n digits (README, "Rounding"); a "0" only when the value is exactly 0; where the
reference lies within its own accuracy of a rounding boundary either neighbour passes and the case
is counted as undecided.

    python scripts/check_references.py                # the whole sweep (about 25 min on 2 cores)
    python scripts/check_references.py --quick        # q = 1, default digits, a few activations
    python scripts/check_references.py --only hermite --activations tanh,relu
    python scripts/check_references.py --self-test    # the references against closed forms
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import ROUND_HALF_UP, Decimal, localcontext
from operator import mul

import gmpy2
import mpmath
from gmpy2 import mpfr

PREC = 200
gmpy2.get_context().precision = PREC
mpmath.mp.prec = PREC
REL = mpfr("1e-44")  # the references' own accuracy, relative (self-test: they agree far below it)
SPAN = 15  # standard deviations the bivariate grid covers (tail below 1e-46 for x^4 growth, 1e-40
# for e^|x|: x*exp(-x/2) squared)
SPAN1 = 20  # the univariate rules' (cheap; e^|x| growth)
SPAN_HERMITE = 26  # He_15(x) ~ x^15: at +-15 sd the neglected tail of x*exp(-x/2)'s a_15 was 3e-27
WINDOW = 16  # conditional standard deviations kept around the conditional mean
NODES = 32  # Gauss-Legendre nodes per panel (of width <= 1 and <= 3 standard deviations)
ZERO = mpfr(0)
ONE = mpfr(1)
TWO = mpfr(2)
HALF = ONE / 2
PI = gmpy2.const_pi()
SQRT2 = gmpy2.sqrt(TWO)
SQRT2PI = gmpy2.sqrt(2 * PI)
INF = mpfr("inf")


def m(text: object) -> mpfr:
    return mpfr(str(text))


# ---------------------------------------------------------------------------------------------
# Gauss-Legendre nodes on [-1, 1], by Newton's method on P_n
# ---------------------------------------------------------------------------------------------

_GL: dict[int, list[tuple[mpfr, mpfr]]] = {}


def gauss_legendre(n: int) -> list[tuple[mpfr, mpfr]]:
    if n in _GL:
        return _GL[n]
    out = []
    for i in range(1, n // 2 + 1):
        x = mpfr(math.cos(math.pi * (i - 0.25) / (n + 0.5)))
        for _ in range(100):
            p0, p1 = ONE, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = n * (x * p1 - p0) / (x * x - 1)
            dx = p1 / dp
            x -= dx
            if abs(dx) < mpfr(2) ** (-PREC + 8):
                break
        p0, p1 = ONE, x
        for k in range(2, n + 1):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        dp = n * (x * p1 - p0) / (x * x - 1)
        w = 2 / ((1 - x * x) * dp * dp)
        out += [(x, w), (-x, w)]
    if n % 2:
        p0, p1 = ONE, ZERO
        for k in range(2, n + 1):
            p0, p1 = p1, ((2 * k - 1) * ZERO * p1 - (k - 1) * p0) / k
        dp = n * (-p0) / -1
        out.append((ZERO, 2 / (dp * dp)))
    out.sort()
    _GL[n] = out
    return out


def panels(lo: mpfr, hi: mpfr, kinks, width: float, zones=()) -> list[tuple[mpfr, mpfr]]:
    """Panels (centre, half-width) of at most ``width`` covering [lo, hi], an edge at every kink inside;
    ``zones`` (lo, hi, width) narrow them where a feature of that scale sits."""
    edges = {lo, hi} | {k for k in kinks if lo < k < hi}
    edges |= {e for z in zones for e in z[:2] if lo < e < hi}
    edges = sorted(edges)
    out = []
    for a, b in zip(edges, edges[1:]):
        mid = (a + b) / 2
        w = min([width] + [z[2] for z in zones if z[0] <= mid <= z[1]])
        pieces = max(1, math.ceil(float(b - a) / w - 1e-9))
        h = (b - a) / pieces
        out += [(a + p * h + h / 2, h / 2) for p in range(pieces)]
    return out


def panel_nodes(lo: mpfr, hi: mpfr, kinks, width: float, n: int | None = None) -> list[tuple[mpfr, mpfr]]:
    """Composite Gauss-Legendre nodes (x, w) on [lo, hi], panel edges at every kink inside."""
    rule = gauss_legendre(n or NODES)
    return [(mid + half * t, half * w) for mid, half in panels(lo, hi, kinks, width) for t, w in rule]


def width_for(std: mpfr, act_width: float) -> float:
    return min(act_width, 3 * float(std))


# ---------------------------------------------------------------------------------------------
# Activations: phi, phi', phi'' (None where phi' jumps), kinks (of phi or phi'), flags
# ---------------------------------------------------------------------------------------------


def sigmoid(x: mpfr) -> mpfr:
    return 1 / (1 + gmpy2.exp(-x))


def softplus(x: mpfr) -> mpfr:
    return gmpy2.log1p(gmpy2.exp(x)) if x < 0 else x + gmpy2.log1p(gmpy2.exp(-x))


def Phi(x: mpfr) -> mpfr:
    return gmpy2.erfc(-x / SQRT2) / 2


def npdf(x: mpfr) -> mpfr:
    return gmpy2.exp(-x * x / 2) / SQRT2PI


class Act:
    """One activation: f, d1, d2 (callables on mpfr; d2 None when phi' jumps: C''(1) = inf)."""

    def __init__(self, label, cli, f, d1, d2, kinks=(), mean_zero_at_1=False, width=1.0):
        self.label, self.cli, self.f, self.d1, self.d2 = label, list(cli), f, d1, d2
        self.kinks = [m(k) for k in kinks]
        self.width = width
        self.mean_zero_at_1 = mean_zero_at_1  # E[phi(Z)] = 0 by construction (selu)
        pts = [m(x) for x in ("0.3", "1.7", "4.2", "7.9", "11.3")]
        self.odd = all(abs(f(x) + f(-x)) <= REL * (1 + abs(f(x))) for x in pts)
        self.even = all(abs(f(x) - f(-x)) <= REL * (1 + abs(f(x))) for x in pts)
        self.odd_degree = poly_degree(lambda x: (f(x) - f(-x)) / 2, odd=True)
        self.even_degree = poly_degree(lambda x: (f(x) + f(-x)) / 2, odd=False)

    def mean_is_zero(self, q: mpfr) -> bool:
        return self.odd or (self.mean_zero_at_1 and q == 1)

    def d1_mean_is_zero(self) -> bool:
        return self.even


def poly_degree(g, odd: bool, top: int = 9):
    """The degree of g if g is a polynomial of degree <= top (of the given parity), else None."""
    base = [m(x) for x in ("0.5", "1.25", "2", "2.75", "3.5", "4.25", "5", "5.75", "6.5", "7.25")]
    probes = [m(x) for x in ("0.8", "3.3", "8.6", "12.1")]
    for d in range(top + 1):
        if (d % 2 == 1) != odd:
            continue
        powers = [k for k in range(d + 1) if (k % 2 == 1) == odd]
        pts = base[: len(powers)]
        mat = mpmath.matrix([[mpmath.mpf(str(p)) ** k for k in powers] for p in pts])
        rhs = mpmath.matrix([mpmath.mpf(str(g(p))) for p in pts])
        coef = mpmath.lu_solve(mat, rhs)
        if all(
            abs(mpmath.mpf(str(g(p))) - sum(c * mpmath.mpf(str(p)) ** k for c, k in zip(coef, powers)))
            <= 1e-45 * (1 + abs(mpmath.mpf(str(g(p)))))
            for p in probes
        ):
            return d if any(abs(c) > 1e-45 for c in coef) else -1
    return None


def sgn(x: mpfr) -> mpfr:
    return ONE if x > 0 else (-ONE if x < 0 else ZERO)


def step(cond, a, b):
    return a if cond else b


def make_catalog(params_extra: bool = True) -> list[Act]:
    acts: list[Act] = []
    add = acts.append
    add(Act("identity", ["identity"], lambda x: x, lambda x: ONE, lambda x: ZERO))
    add(Act("relu", ["relu"], lambda x: step(x > 0, x, ZERO), lambda x: step(x > 0, ONE, ZERO), None, [0]))
    add(
        Act(
            "relu2",
            ["relu2"],
            lambda x: step(x > 0, x * x, ZERO),
            lambda x: step(x > 0, 2 * x, ZERO),
            lambda x: step(x > 0, TWO, ZERO),
            [0],
        )
    )
    for slope in ["0.01"] + (["0.2"] if params_extra else []):
        s = m(slope)
        add(
            Act(
                f"leaky_relu(slope={slope})",
                ["leaky_relu"] + ([] if slope == "0.01" else ["--slope", slope]),
                lambda x, s=s: step(x > 0, x, s * x),
                lambda x, s=s: step(x > 0, ONE, s),
                None,
                [0],
            )
        )
    add(
        Act(
            "elu",
            ["elu"],
            lambda x: step(x > 0, x, gmpy2.expm1(x)),
            lambda x: step(x > 0, ONE, gmpy2.exp(x)),
            lambda x: step(x > 0, ZERO, gmpy2.exp(x)),
            [0],
        )
    )
    # selu: lambda, alpha from E[phi] = 0 and E[phi^2] = 1 under N(0, 1), in closed form:
    # E[x; x > 0] = 1/sqrt(2 pi), E[e^x - 1; x < 0] = sqrt(e) Phi(-1) - 1/2,
    # E[(e^x - 1)^2; x < 0] = e^2 Phi(-2) - 2 sqrt(e) Phi(-1) + 1/2.
    alpha = (1 / SQRT2PI) / (HALF - gmpy2.sqrt(gmpy2.exp(ONE)) * Phi(-ONE))
    lam = 1 / gmpy2.sqrt(
        HALF + alpha**2 * (gmpy2.exp(TWO) * Phi(-TWO) - 2 * gmpy2.sqrt(gmpy2.exp(ONE)) * Phi(-ONE) + HALF)
    )
    add(
        Act(
            "selu",
            ["selu"],
            lambda x: lam * step(x > 0, x, alpha * gmpy2.expm1(x)),
            lambda x: lam * step(x > 0, ONE, alpha * gmpy2.exp(x)),
            None,
            [0],
            mean_zero_at_1=True,
        )
    )

    def gelu(x):
        return x * Phi(x)

    add(Act("gelu", ["gelu"], gelu, lambda x: Phi(x) + x * npdf(x), lambda x: (2 - x * x) * npdf(x)))
    k, c = gmpy2.sqrt(2 / PI), m("0.044715")

    def gt(x):
        w = k * (x + c * x**3)
        t = gmpy2.tanh(w)
        w1, w2 = k * (1 + 3 * c * x * x), 6 * c * k * x
        return t, w1, w2

    def gt0(x):
        return x * (1 + gt(x)[0]) / 2

    def gt1(x):
        t, w1, _ = gt(x)
        return (1 + t) / 2 + x * (1 - t * t) * w1 / 2

    def gt2(x):
        t, w1, w2 = gt(x)
        return (1 - t * t) * w1 + x * (1 - t * t) * (w2 - 2 * t * w1 * w1) / 2

    add(Act("gelu_tanh", ["gelu_tanh"], gt0, gt1, gt2))
    add(
        Act(
            "sigmoid",
            ["sigmoid"],
            sigmoid,
            lambda x: sigmoid(x) * (1 - sigmoid(x)),
            lambda x: sigmoid(x) * (1 - sigmoid(x)) * (1 - 2 * sigmoid(x)),
        )
    )
    add(
        Act(
            "tanh",
            ["tanh"],
            gmpy2.tanh,
            lambda x: 1 - gmpy2.tanh(x) ** 2,
            lambda x: -2 * gmpy2.tanh(x) * (1 - gmpy2.tanh(x) ** 2),
        )
    )
    add(
        Act(
            "swish",
            ["swish"],
            lambda x: x * sigmoid(x),
            lambda x: sigmoid(x) * (1 + x * (1 - sigmoid(x))),
            lambda x: sigmoid(x) * (1 - sigmoid(x)) * (2 + x * (1 - 2 * sigmoid(x))),
        )
    )
    add(Act("softplus", ["softplus"], softplus, sigmoid, lambda x: sigmoid(x) * (1 - sigmoid(x))))

    def mish_parts(x):
        s = sigmoid(x)
        t = gmpy2.tanh(softplus(x))
        return s, t

    def mish1(x):
        s, t = mish_parts(x)
        return t + x * (1 - t * t) * s

    def mish2(x):
        s, t = mish_parts(x)
        return (1 - t * t) * s * (2 + x * ((1 - s) - 2 * t * s))

    add(Act("mish", ["mish"], lambda x: x * gmpy2.tanh(softplus(x)), mish1, mish2))
    add(
        Act(
            "softsign",
            ["softsign"],
            lambda x: x / (1 + abs(x)),
            lambda x: 1 / (1 + abs(x)) ** 2,
            lambda x: -2 * sgn(x) / (1 + abs(x)) ** 3,
            [0],
        )
    )
    two_over_sqrtpi = 2 / gmpy2.sqrt(PI)
    add(
        Act(
            "erf",
            ["erf"],
            gmpy2.erf,
            lambda x: two_over_sqrtpi * gmpy2.exp(-x * x),
            lambda x: -2 * x * two_over_sqrtpi * gmpy2.exp(-x * x),
        )
    )
    add(
        Act(
            "relu6",
            ["relu6"],
            lambda x: min(max(x, ZERO), mpfr(6)),
            lambda x: step(0 < x < 6, ONE, ZERO),
            None,
            [0, 6],
        )
    )
    add(
        Act(
            "hardtanh",
            ["hardtanh"],
            lambda x: min(max(x, -ONE), ONE),
            lambda x: step(-1 < x < 1, ONE, ZERO),
            None,
            [-1, 1],
        )
    )
    add(
        Act(
            "hard_sigmoid",
            ["hard_sigmoid"],
            lambda x: min(max(x + 3, ZERO), mpfr(6)) / 6,
            lambda x: step(-3 < x < 3, ONE / 6, ZERO),
            None,
            [-3, 3],
        )
    )
    add(
        Act(
            "hard_swish",
            ["hard_swish"],
            lambda x: x * min(max(x + 3, ZERO), mpfr(6)) / 6,
            lambda x: ZERO if x < -3 else (ONE if x > 3 else (2 * x + 3) / 6),
            None,
            [-3, 3],
        )
    )
    for a_text in ["1"] + (["0.5", "2"] if params_extra else []):
        a = m(a_text)
        add(
            Act(
                f"celu(alpha={a_text})",
                ["celu"] + ([] if a_text == "1" else ["--alpha", a_text]),
                lambda x, a=a: step(x > 0, x, a * gmpy2.expm1(x / a)),
                lambda x, a=a: step(x > 0, ONE, gmpy2.exp(x / a)),
                lambda x, a=a: step(x > 0, ZERO, gmpy2.exp(x / a) / a),
                [0],
            )
        )
    add(
        Act(
            "log_sigmoid",
            ["log_sigmoid"],
            lambda x: -softplus(-x),
            lambda x: sigmoid(-x),
            lambda x: -sigmoid(x) * (1 - sigmoid(x)),
        )
    )
    b = m("1.702")
    add(
        Act(
            "quick_gelu",
            ["quick_gelu"],
            lambda x: x * sigmoid(b * x),
            lambda x: sigmoid(b * x) * (1 + b * x * (1 - sigmoid(b * x))),
            lambda x: b * sigmoid(b * x) * (1 - sigmoid(b * x)) * (2 + b * x * (1 - 2 * sigmoid(b * x))),
        )
    )
    # expressions
    add(
        Act(
            "'x*tanh(log(1+exp(x)))'",
            ["x*tanh(log(1+exp(x)))"],
            lambda x: x * gmpy2.tanh(softplus(x)),
            mish1,
            mish2,
        )
    )
    add(
        Act(
            "'exp(-x**2)'",
            ["exp(-x**2)"],
            lambda x: gmpy2.exp(-x * x),
            lambda x: -2 * x * gmpy2.exp(-x * x),
            lambda x: (4 * x * x - 2) * gmpy2.exp(-x * x),
        )
    )
    add(Act("'abs(x)'", ["abs(x)"], abs, lambda x: sgn(x) * ONE, None, [0]))
    add(
        Act(
            "'max(x,0)**2'",
            ["max(x,0)**2"],
            lambda x: step(x > 0, x * x, ZERO),
            lambda x: step(x > 0, 2 * x, ZERO),
            lambda x: step(x > 0, TWO, ZERO),
            [0],
        )
    )
    add(Act("'sin(x)'", ["sin(x)"], gmpy2.sin, gmpy2.cos, lambda x: -gmpy2.sin(x)))
    add(Act("'x**3-x'", ["x**3-x"], lambda x: x**3 - x, lambda x: 3 * x * x - 1, lambda x: 6 * x))
    add(
        Act(
            "'x*exp(-x/2)'",
            ["x*exp(-x/2)"],
            lambda x: x * gmpy2.exp(-x / 2),
            lambda x: (1 - x / 2) * gmpy2.exp(-x / 2),
            lambda x: (x / 4 - 1) * gmpy2.exp(-x / 2),
        )
    )
    add(
        Act(
            "'tanh(x)+0.25'",
            ["tanh(x)+0.25"],
            lambda x: gmpy2.tanh(x) + m("0.25"),
            lambda x: 1 - gmpy2.tanh(x) ** 2,
            lambda x: -2 * gmpy2.tanh(x) * (1 - gmpy2.tanh(x) ** 2),
        )
    )
    return acts


# ---------------------------------------------------------------------------------------------
# Gaussian expectations
# ---------------------------------------------------------------------------------------------


def expect1(
    funcs, mean: mpfr, std: mpfr, kinks, width: float = 1.0, n: int | None = None, span: float = SPAN1
) -> list[mpfr]:
    """[E g(X) for g in funcs], X ~ N(mean, std^2), split at the kinks."""
    nodes = panel_nodes(mean - span * std, mean + span * std, kinks, width_for(std, width), n)
    sums = [ZERO] * len(funcs)
    inv = 1 / (2 * std * std)
    norm = 1 / (SQRT2PI * std)
    for x, w in nodes:
        d = x - mean
        wt = w * gmpy2.exp(-d * d * inv) * norm
        for i, g in enumerate(funcs):
            sums[i] += wt * g(x)
    return sums


class Grid2:
    """The product rule for E[f(u) g(v)], (u, v) ~ N(0, [[q1, r], [r, q2]]), split at the kinks.

    E[f(u)g(v)] = sum_i W_i f(u_i) sum_j c_ij g(v_j), W_i the weights of N(0, q1) at the u nodes and
    c_ij = w_j N(v_j; beta u_i, sig^2) those of v given u.  With k = 1/(2 sig^2) and K = 2 k beta,
    c_ij = w_j e^(-k v_j^2) e^(-k beta^2 u_i^2) e^(K u_i v_j), and for u_i = cu + hu t_a, v_j = cv + hv t_b
    (panel centres, half-widths and Legendre nodes) e^(K u_i v_j) = e^(K u_i cv) e^(K cu hv t_b) e^(K hu hv t_a t_b):
    a few exponentials a row and a panel instead of one an entry (all factors positive: no cancellation).
    """

    def __init__(
        self,
        q1: mpfr,
        q2: mpfr,
        rho: mpfr,
        kinks,
        width: float = 1.0,
        n: int | None = None,
        plan_only: bool = False,
    ):
        n = n or NODES
        s1, s2 = gmpy2.sqrt(q1), gmpy2.sqrt(q2)
        self.beta = rho * s2 / s1  # E[v | u] = beta u
        self.sig = s2 * gmpy2.sqrt(1 - rho * rho)  # sd of v given u
        # E[g(v) | u] is g smoothed over sig (in v), sig/|beta| in u: where g has a kink k, the u panels
        # are at most 3 sig/|beta| wide within 16 sig/|beta| of u = k/beta; elsewhere it is as smooth as g
        eff = self.sig / abs(self.beta) if self.beta else INF
        zones = (
            [(k / self.beta - WINDOW * eff, k / self.beta + WINDOW * eff, 3 * float(eff)) for k in kinks]
            if self.beta
            else []
        )
        rule = gauss_legendre(n)
        self.n = n
        self.upanels = panels(-SPAN * s1, SPAN * s1, kinks, min(width, 3 * float(s1)), zones)
        self.u = [(c + h * t, h * w) for c, h in self.upanels for t, w in rule]
        if plan_only:
            return
        self.vpanels = panels(-SPAN * s2, SPAN * s2, kinks, min(width, 3 * float(self.sig)))
        self.u = [(c + h * t, h * w) for c, h in self.upanels for t, w in rule]
        self.v = [(c + h * t, h * w) for c, h in self.vpanels for t, w in rule]
        self.vx = [x for x, _ in self.v]
        self.rule = rule
        k = 1 / (2 * self.sig * self.sig)
        self.k, self.K = k, 2 * k * self.beta
        norm = 1 / (SQRT2PI * self.sig)
        self.outer = [w * gmpy2.exp(-x * x / (2 * q1)) / (SQRT2PI * s1) * norm for x, w in self.u]
        self.A = [w * gmpy2.exp(-k * x * x) for x, w in self.v]
        self.vlo = [float(c - h) for c, h in self.vpanels]
        self.vhi = [float(c + h) for c, h in self.vpanels]
        self._rows = None

    def rows(self):
        """For each u node: (first v index, the weights c_ij over the v panels within the window)."""
        if self._rows is not None:
            return self._rows
        n, K, rule = self.n, self.K, self.rule
        fe: dict[tuple, list[list[mpfr]]] = {}
        rows = []
        for pi, (cu, hu) in enumerate(self.upanels):
            for a, (_ta, _) in enumerate(rule):
                i = pi * n + a
                x = self.u[i][0]
                mu = self.beta * x
                lo = float(mu - WINDOW * self.sig)
                hi = float(mu + WINDOW * self.sig)
                q0 = bisect.bisect_right(self.vhi, lo)
                q1 = bisect.bisect_left(self.vlo, hi)
                bi = gmpy2.exp(-self.k * mu * mu)
                cw: list[mpfr] = []
                for q in range(q0, q1):
                    cv, hv = self.vpanels[q]
                    key = (pi, hv)
                    if key not in fe:
                        f = [gmpy2.exp(K * cu * hv * tb) for tb, _ in rule]
                        fe[key] = [
                            [f[b] * gmpy2.exp(K * hu * hv * t * tb) for b, (tb, _) in enumerate(rule)]
                            for t, _ in rule
                        ]
                    h = fe[key][a]
                    scale = bi * gmpy2.exp(K * x * cv)
                    base = q * n
                    cw += [self.A[base + b] * h[b] * scale for b in range(n)]
                rows.append((q0 * n, cw))
        self._rows = rows
        return rows

    def expect(self, pairs) -> list[mpfr]:
        """[E f(u) g(v) for f, g in pairs]."""
        fvals = [[f(x) for x, _ in self.u] for f, _ in pairs]
        gvals = [[g(x) for x in self.vx] for _, g in pairs]
        sums = [ZERO] * len(pairs)
        for i, (j0, cw) in enumerate(self.rows()):
            if not cw:
                continue
            j1 = j0 + len(cw)
            o = self.outer[i]
            for p in range(len(pairs)):
                sums[p] += o * fvals[p][i] * sum(map(mul, cw, gvals[p][j0:j1]))
        return sums


def expect2(pairs, q1: mpfr, q2: mpfr, rho: mpfr, kinks, width: float = 1.0) -> list[mpfr]:
    """[E f(u) g(v) for f, g in pairs]: the product grid, or row by row where the conditional sd is
    so small that a v grid fine enough everywhere would not fit in memory."""
    grid = Grid2(q1, q2, rho, kinks, width, plan_only=True)
    if grid.sig >= NESTED_BELOW:
        return Grid2(q1, q2, rho, kinks, width).expect(pairs)
    inv, norm = 1 / (2 * grid.sig * grid.sig), 1 / (SQRT2PI * grid.sig)
    s1 = gmpy2.sqrt(q1)
    sums = [ZERO] * len(pairs)
    for x, w in grid.u:
        wu = w * gmpy2.exp(-x * x / (2 * q1)) / (SQRT2PI * s1)
        mu = grid.beta * x
        inner = [ZERO] * len(pairs)
        for y, wy in panel_nodes(mu - WINDOW * grid.sig, mu + WINDOW * grid.sig, kinks, 3 * float(grid.sig)):
            c = wy * gmpy2.exp(-((y - mu) ** 2) * inv) * norm
            for p, (_, g) in enumerate(pairs):
                inner[p] += c * g(y)
        for p, (f, _) in enumerate(pairs):
            sums[p] += wu * f(x) * inner[p]
    return sums


NESTED_BELOW = 0.02


def nngp_ntk(acts: list[Act], q1: mpfr, q2: mpfr, rho: mpfr) -> dict[str, tuple[mpfr, mpfr]]:
    """label -> (E[phi(u)phi(v)], E[phi'(u)phi'(v)]) for every activation."""
    out = {}
    if rho == 0:
        for a in acts:
            e1 = expect1([a.f, a.d1], ZERO, gmpy2.sqrt(q1), a.kinks, a.width)
            e2 = expect1([a.f, a.d1], ZERO, gmpy2.sqrt(q2), a.kinks, a.width)
            m1 = ZERO if a.mean_is_zero(q1) else e1[0]
            m2 = ZERO if a.mean_is_zero(q2) else e2[0]
            d1 = ZERO if a.d1_mean_is_zero() else e1[1]
            d2 = ZERO if a.d1_mean_is_zero() else e2[1]
            out[a.label] = (m1 * m2, d1 * d2)
        return out
    if abs(rho) == 1:
        s1, s2 = gmpy2.sqrt(q1), gmpy2.sqrt(q2) * rho
        for a in acts:
            ks = [k / s1 for k in a.kinks] + [k / s2 for k in a.kinks]
            w = min(a.width / float(s1), a.width / float(abs(s2)), 1.0)
            e = expect1(
                [lambda z, a=a: a.f(s1 * z) * a.f(s2 * z), lambda z, a=a: a.d1(s1 * z) * a.d1(s2 * z)],
                ZERO,
                ONE,
                ks,
                w,
            )
            out[a.label] = (e[0], e[1])
        return out
    # one grid for all: the union of the kinks (an edge more costs a smooth phi nothing)
    groups: dict[float, list[Act]] = {}
    for a in acts:
        groups.setdefault(a.width, []).append(a)
    for width, members in groups.items():
        kinks = sorted({k for a in members for k in a.kinks})
        pairs = []
        for a in members:
            pairs += [(a.f, a.f), (a.d1, a.d1)]
        vals = expect2(pairs, q1, q2, rho, kinks, width)
        for i, a in enumerate(members):
            out[a.label] = (vals[2 * i], vals[2 * i + 1])
    return out


def local_quantities(a: Act, q: mpfr) -> dict[str, mpfr]:
    """E[phi], E[phi^2], E[phi'^2], E[phi''^2], E[u phi phi'] at u ~ N(0, q)."""
    funcs = [a.f, lambda x: a.f(x) ** 2, lambda x: a.d1(x) ** 2, lambda x: x * a.f(x) * a.d1(x)]
    if a.d2 is not None:
        funcs.append(lambda x: a.d2(x) ** 2)
    e = expect1(funcs, ZERO, gmpy2.sqrt(q), a.kinks, a.width)
    return {
        "mean": ZERO if a.mean_is_zero(q) else e[0],
        "m2": e[1],
        "d2": e[2],
        "uff": e[3],
        "dd2": e[4] if a.d2 is not None else INF,
    }


# ---------------------------------------------------------------------------------------------
# Comparing printed decimals with references
# ---------------------------------------------------------------------------------------------


def to_decimal(x: mpfr) -> Decimal:
    return Decimal(gmpy2.mpfr(x).__format__(".65e"))


def rounded(x: Decimal, n: int) -> Decimal:
    if x == 0:
        return Decimal(0)
    with localcontext() as ctx:
        ctx.prec = 80
        e = x.adjusted()
        return x.quantize(Decimal(1).scaleb(e - n + 1), rounding=ROUND_HALF_UP)


def sig_digits(text: str) -> int:
    mant = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    return len(mant)


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.values = 0
        self.digits = 0
        self.undecided = 0
        self.doubles = 0
        self.mismatches: list[str] = []
        self.notes: list[str] = []
        self.per_command: dict[str, list[int]] = {}

    def check(
        self,
        command: str,
        where: str,
        printed: str,
        ref,
        digits: int,
        rel: mpfr = REL,
        double: object = "absent",
    ) -> bool:
        """printed against ref (mpfr, exact 0 or inf) at ``digits`` significant digits; ``double``, the
        JSON ``value``, against the double nearest ref (null for an infinite one)."""
        if double != "absent":
            self.check_double(command, where, double, ref)
        with self.lock:
            self.values += 1
            stats = self.per_command.setdefault(command.split()[1], [0, 0, 0])
            stats[0] += 1
            ok, why = self._judge(printed, ref, digits, rel)
            if ok == "undecided":
                self.undecided += 1
                ok = True
            if ok:
                n = sig_digits(printed) if printed not in ("0", "inf", "-inf") else 1
                self.digits += n
                stats[1] += n
                return True
            stats[2] += 1
            self.mismatches.append(f"{command}\n    {where}: printed {printed}, reference {why}")
            print("MISMATCH:", self.mismatches[-1], flush=True)
            return False

    def check_double(self, command: str, where: str, value, ref) -> None:
        with self.lock:
            self.doubles += 1
            if gmpy2.is_infinite(ref):
                ok = value is None
            elif ref == 0:
                ok = value == 0.0
            else:
                lo, hi = float(ref * (1 - REL)), float(ref * (1 + REL))
                ok = value in (lo, hi, float(ref))
            if not ok:
                self.mismatches.append(
                    f"{command}\n    {where}: JSON value {value!r}, nearest double {float(ref)!r}"
                )

    @staticmethod
    def _judge(printed: str, ref, digits: int, rel: mpfr):
        if ref is None:
            return False, "none"
        if gmpy2.is_infinite(ref):
            want = "inf" if ref > 0 else "-inf"
            return printed == want, want
        if ref == 0:
            return printed == "0", "exactly 0"
        refd = to_decimal(ref)
        want = rounded(refd, digits)
        shown = f"{refd:.{digits + 8}e} (rounds to {want})"
        if printed in ("inf", "-inf", "nan"):
            return False, shown
        if printed == "0":
            return False, shown + "; a printed 0 must be exact"
        if sig_digits(printed) != digits:
            return False, shown + f"; printed {sig_digits(printed)} significant digits, not {digits}"
        got = Decimal(printed)
        if got == want:
            return True, ""
        tol = abs(refd) * to_decimal(rel)
        lo, hi = rounded(refd - tol, digits), rounded(refd + tol, digits)
        if got in (lo, hi) and lo != hi:
            return "undecided", ""
        return False, shown


# ---------------------------------------------------------------------------------------------
# Running the CLI
# ---------------------------------------------------------------------------------------------

RUNNER = ThreadPoolExecutor(max_workers=1)  # one CLI process at a time (the checker is the other)
CLI_SECONDS = [0.0]


def run_cli(args: list[str]) -> tuple[int, dict | None, str]:
    t0 = time.time()
    proc = subprocess.run(["momentcalc", *args, "--json", "--budget", "900"], capture_output=True, text=True)
    CLI_SECONDS[0] += time.time() - t0
    try:
        doc = json.loads(proc.stdout) if proc.stdout.strip() else None
    except json.JSONDecodeError:
        doc = None
    return proc.returncode, doc, proc.stderr.strip()


def submit(args: list[str]):
    return RUNNER.submit(run_cli, args)


def rows_of(doc: dict) -> list[dict]:
    return doc["rows"] if "rows" in doc else [{"inputs": doc["inputs"], "results": doc["results"]}]


# ---------------------------------------------------------------------------------------------
# kernel
# ---------------------------------------------------------------------------------------------

RHOS = ["-1", "-0.99999", "-0.9", "-0.3", "0", "0.5", "0.97", "0.999", "1"]
VARIANCES = [("1", "1", []), ("0.5", "2", ["--q1", "0.5", "--q2", "2"]), ("3", "3", ["--q", "3"])]


def kernel_refs(a: Act, q1: mpfr, q2: mpfr, rho: mpfr, pair, loc1, loc2) -> dict[str, mpfr]:
    nngp, ntk = pair
    ref = {
        "nngp": nngp,
        "ntk_derivative": ntk,
        "correlation_out": nngp / gmpy2.sqrt(loc1["m2"] * loc2["m2"]) if nngp != 0 else ZERO,
    }
    if q1 == q2:
        q = q1
        ref["c_map_at_0"] = loc1["mean"] ** 2 / loc1["m2"]
        ref["c_map_slope_at_1"] = q * loc1["d2"] / loc1["m2"]
        ref["c_map_curvature_at_1"] = (
            INF if gmpy2.is_infinite(loc1["dd2"]) else q * q * loc1["dd2"] / loc1["m2"]
        )
        ref["q_map_slope_at_1"] = loc1["uff"] / q
    return ref


def finished(args, fut, tally):
    """(the command line, its JSON document), or (the line, None) with a note when it did not answer."""
    rc, doc, err = fut.result()
    command = "momentcalc " + " ".join(quote(x) for x in args) + " --json"
    if rc != 0 or doc is None:
        tally.notes.append(f"{command}: exit {rc}: {err}")
        return command, None
    return command, doc


def check_kernel(acts: list[Act], tally: Tally, digit_levels, variances, rhos, log) -> None:
    for q1t, q2t, qargs in variances:
        q1, q2 = m(q1t), m(q2t)
        futures = {}
        for a in acts:
            for d in digit_levels:
                args = ["kernel", *a.cli, "--rho", ",".join(rhos), *qargs] + (
                    ["--digits", str(d)] if d != 15 else []
                )
                futures[(a.label, d)] = (args, submit(args))
        t0 = time.time()
        locs = {a.label: (local_quantities(a, q1), local_quantities(a, q2)) for a in acts}
        refs: dict[tuple[str, str], dict] = {}
        for rt in rhos:
            pairs = nngp_ntk(acts, q1, q2, m(rt))
            for a in acts:
                refs[(a.label, rt)] = kernel_refs(a, q1, q2, m(rt), pairs[a.label], *locs[a.label])
        log(
            f"kernel q1={q1t} q2={q2t}: references for {len(acts)} activations x {len(rhos)} rho in "
            f"{time.time() - t0:.0f} s"
        )
        for a in acts:
            for d in digit_levels:
                args, fut = futures[(a.label, d)]
                command, doc = finished(args, fut, tally)
                if doc is None:
                    continue
                for row, rt in zip(rows_of(doc), rhos):
                    ref = refs[(a.label, rt)]
                    for name, value in ref.items():
                        res = row["results"].get(name)
                        if res is None:
                            tally.mismatches.append(f"{command}\n    rho={rt} {name}: missing")
                            continue
                        tally.check(
                            command, f"rho={rt} {name}", res["decimal"], value, d, double=res["value"]
                        )
                    extra = set(row["results"]) - set(ref)
                    if extra:
                        tally.notes.append(f"{command}: results not checked: {sorted(extra)}")


def layers_reference(a: Act, q1: mpfr, q2: mpfr, rho: mpfr, depth: int, sw: mpfr, sb: mpfr) -> list[mpfr]:
    out = [rho]
    for _ in range(depth):
        if abs(rho) == 1 or rho == 0:
            pair = nngp_ntk([a], q1, q2, rho)[a.label]
        else:
            pair = (expect2([(a.f, a.f)], q1, q2, rho, a.kinks, a.width)[0], None)
        e1 = expect1([lambda x: a.f(x) ** 2], ZERO, gmpy2.sqrt(q1), a.kinks, a.width)[0]
        e2 = e1 if q1 == q2 else expect1([lambda x: a.f(x) ** 2], ZERO, gmpy2.sqrt(q2), a.kinks, a.width)[0]
        q1, q2 = sw * e1 + sb, sw * e2 + sb
        rho = (sw * pair[0] + sb) / gmpy2.sqrt(q1 * q2)
        out.append(rho)
    return out


def check_layers(acts, tally, digit_levels, cases, log) -> None:
    for rt, depth, swt, sbt in cases:
        futures = {}
        for a in acts:
            for d in digit_levels:
                args = [
                    "kernel",
                    *a.cli,
                    "--rho",
                    rt,
                    "--depth",
                    str(depth),
                    "--sigma-w2",
                    swt,
                    "--sigma-b2",
                    sbt,
                ]
                args += ["--digits", str(d)] if d != 15 else []
                futures[(a.label, d)] = (args, submit(args))
        t0 = time.time()
        refs = {}
        for a in acts:
            try:
                refs[a.label] = layers_reference(a, ONE, ONE, m(rt), depth, m(swt), m(sbt))
            except MemoryError:  # a variance that explodes by layer 3 outgrows the unit-width panels
                refs[a.label] = None
                tally.notes.append(
                    f"kernel {a.label} --depth {depth} --rho {rt}: no reference (the variance "
                    "explodes; the panels would need to widen with sqrt(q))"
                )
        log(f"kernel --depth {depth} rho={rt}: references in {time.time() - t0:.0f} s")
        for a in acts:
            for d in digit_levels:
                args, fut = futures[(a.label, d)]
                command, doc = finished(args, fut, tally)
                if doc is None:
                    continue
                if refs[a.label] is None:
                    continue
                got = doc["results"]["correlation_layers"]["decimal"]
                dbl = doc["results"]["correlation_layers"]["value"]
                for i, (p, r, v) in enumerate(zip(got, refs[a.label], dbl)):
                    tally.check(command, f"correlation_layers[{i}]", p, r, d, double=v)
                if len(got) != depth + 1:
                    tally.mismatches.append(f"{command}: {len(got)} layers, expected {depth + 1}")


# ---------------------------------------------------------------------------------------------
# hermite
# ---------------------------------------------------------------------------------------------


def hermite_reference(a: Act, terms: int, rho: mpfr) -> dict:
    def he(k):
        def g(x):
            p0, p1 = ONE, x
            if k == 0:
                return a.f(x)
            for j in range(1, k):
                p0, p1 = p1, x * p1 - j * p0
            return a.f(x) * p1

        return g

    funcs = [he(k) for k in range(terms)] + [lambda x: a.f(x) ** 2]
    vals = expect1(funcs, ZERO, ONE, a.kinks, a.width, n=NODES + 16, span=SPAN_HERMITE)
    coef = []
    for k in range(terms):
        zero = (k % 2 == 1 and (a.even or (a.odd_degree is not None and k > a.odd_degree))) or (
            k % 2 == 0 and (a.odd or (a.even_degree is not None and k > a.even_degree))
        )
        if k == 0 and a.mean_zero_at_1:
            zero = True
        coef.append(ZERO if zero else vals[k] / gmpy2.sqrt(mpfr(math.factorial(k))))
    energy = sum(c * c for c in coef)
    second = vals[terms]
    tail = second - energy
    if a.odd_degree is not None and a.even_degree is not None and max(a.odd_degree, a.even_degree) < terms:
        tail = ZERO  # a polynomial of degree < terms: every coefficient beyond is 0, the tail exactly 0
    dual = sum(c * c * rho**k for k, c in enumerate(coef))
    return {
        "coefficients": coef,
        "energy": energy,
        "second_moment": second,
        "tail_bound": tail,
        "dual": dual,
        "dual_tail_bound": tail * abs(rho) ** terms,
    }


def check_hermite(acts, tally, digit_levels, log, terms: int = 16, rho_text: str = "0.5") -> None:
    futures = {}
    for a in acts:
        for d in digit_levels:
            args = ["hermite", *a.cli, "--terms", str(terms), "--rho", rho_text]
            args += ["--digits", str(d)] if d != 15 else []
            futures[(a.label, d)] = (args, submit(args))
    t0 = time.time()
    rho = m(rho_text)
    refs = {a.label: hermite_reference(a, terms, rho) for a in acts}
    nngp = nngp_ntk(acts, ONE, ONE, rho)
    log(f"hermite: references in {time.time() - t0:.0f} s")
    for a in acts:
        ref = refs[a.label]
        true_gap = abs(nngp[a.label][0] - ref["dual"])
        if true_gap > ref["dual_tail_bound"] + REL * (abs(nngp[a.label][0]) + ref["second_moment"]):
            tally.mismatches.append(
                f"hermite {a.label}: |nngp - dual| = {true_gap:.6e} exceeds dual_tail_bound"
            )
        for d in digit_levels:
            args, fut = futures[(a.label, d)]
            command, doc = finished(args, fut, tally)
            if doc is None:
                continue
            res = doc["results"]
            for k, (p, r, v) in enumerate(
                zip(res["coefficients"]["decimal"], ref["coefficients"], res["coefficients"]["value"])
            ):
                tally.check(command, f"coefficients[{k}]", p, r, d, double=v)
            if len(res["coefficients"]["decimal"]) != terms:
                tally.mismatches.append(f"{command}: {len(res['coefficients']['decimal'])} coefficients")
            for name in ("energy", "second_moment", "tail_bound", "dual", "dual_tail_bound"):
                if name not in res:
                    tally.mismatches.append(f"{command}: {name} missing")
                    continue
                tally.check(command, name, res[name]["decimal"], ref[name], d, double=res[name]["value"])
            # a bound must bound: the printed tail_bound against the energy really left out
            for name, truth in (("tail_bound", ref["tail_bound"]), ("dual_tail_bound", true_gap)):
                if name in res and Decimal(res[name]["decimal"]) < to_decimal(
                    truth - REL * ref["second_moment"]
                ):
                    tally.notes.append(
                        f"{command}: printed {name} {res[name]['decimal']} is below the quantity it "
                        f"bounds, {to_decimal(truth):.{d + 3}e} (rounded to nearest, not up)"
                    )


# ---------------------------------------------------------------------------------------------
# tat
# ---------------------------------------------------------------------------------------------


def dks_expectations(a: Act, scale: mpfr, shift: mpfr) -> dict[str, mpfr]:
    """X = scale*Z + shift: mu, V, E[phi'^2], E[(X-b)(phi-mu)phi'] (Q'(1) numerator)."""
    mu = expect1([a.f], shift, scale, a.kinks, a.width)[0]
    e = expect1(
        [
            lambda x: (a.f(x) - mu) ** 2,
            lambda x: a.d1(x) ** 2,
            lambda x: (x - shift) * (a.f(x) - mu) * a.d1(x),
        ],
        shift,
        scale,
        a.kinks,
        a.width,
    )
    return {"mu": mu, "V": e[0], "D": e[1], "QN": e[2]}


def dks_conditions(a: Act, scale: mpfr, shift: mpfr, t: mpfr):
    e = dks_expectations(a, scale, shift)
    return scale * scale * e["D"] / e["V"] - t, e["QN"] / e["V"] - 1, e


def to_mpf(x: mpfr) -> mpmath.mpf:
    return mpmath.mpf(x.__format__(".70e"))


def to_mpfr(x) -> mpfr:
    return mpfr(mpmath.nstr(x, 70, strip_zeros=False).replace(" ", ""))


def solve_dks(a: Act, scale0: str, shift0: str, t: mpfr, fixed_shift: bool):
    mpmath.mp.dps = 45
    try:
        if fixed_shift:
            b = m(shift0)
            root = mpmath.findroot(
                lambda s: to_mpf(dks_conditions(a, to_mpfr(s), b, t)[0]), mpmath.mpf(scale0)
            )
            return to_mpfr(root), b
        f = lambda s, b: [to_mpf(v) for v in dks_conditions(a, to_mpfr(s), to_mpfr(b), t)[:2]]
        root = mpmath.findroot(f, (mpmath.mpf(scale0), mpmath.mpf(shift0)))
        return to_mpfr(root[0]), to_mpfr(root[1])
    finally:
        mpmath.mp.prec = PREC


def leaky_c(alpha: mpfr, c: mpfr) -> mpfr:
    """leaky_relu's normalized C map (unit variance): phi = alpha x + (1 - alpha) relu(x)."""
    k1 = (gmpy2.sqrt(1 - c * c) + (PI - gmpy2.acos(c)) * c) / (2 * PI)
    return (alpha * c + (1 - alpha) ** 2 * k1) * 2 / (1 + alpha * alpha)


def leaky_network_c0(alpha: mpfr, depth: int) -> mpfr:
    c = ZERO
    for _ in range(depth):
        c = leaky_c(alpha, c)
    return c


def check_tat(acts, tally, digit_levels, depths, slopes, c0s, log) -> None:
    futures = {}
    smooth = [a for a in acts if not a.label.startswith("leaky_relu") and a.label != "identity"]
    for a in smooth:
        for depth in depths:
            for z in slopes:
                for d in digit_levels:
                    args = ["tat", *a.cli, "--depth", str(depth), "--target-slope", z]
                    args += ["--digits", str(d)] if d != 15 else []
                    futures[(a.label, depth, z, d)] = (a, args, submit(args))
    leaky = [a for a in acts if a.label.startswith("leaky_relu(slope=0.01)")]
    for a in leaky:
        for depth in depths:
            for eta in c0s:
                for d in digit_levels:
                    args = ["tat", "leaky_relu", "--depth", str(depth), "--target-c0", eta]
                    args += ["--digits", str(d)] if d != 15 else []
                    futures[("leaky", depth, eta, d)] = (a, args, submit(args))
    t0 = time.time()
    for key, (a, args, fut) in futures.items():
        command, doc = finished(args, fut, tally)
        d = key[3]
        depth = key[1]
        if doc is None:
            continue
        res = doc["results"]
        if key[0] == "leaky":
            eta = m(key[2])
            alpha0 = res["negative_slope"]["decimal"]
            mpmath.mp.dps = 45
            root = to_mpfr(
                mpmath.findroot(
                    lambda s: to_mpf(leaky_network_c0(to_mpfr(s), depth) - eta), mpmath.mpf(alpha0)
                )
            )
            mpmath.mp.prec = PREC
            tally.check(command, "negative_slope", alpha0, root, d, double=res["negative_slope"]["value"])
            tally.check(
                command,
                "output_scale",
                res["output_scale"]["decimal"],
                gmpy2.sqrt(2 / (1 + root * root)),
                d,
                double=res["output_scale"]["value"],
            )
            resid = leaky_network_c0(m(alpha0), depth) - eta
            if "layer_target" in res:
                tally.check(command, "layer_target", res["layer_target"]["decimal"], eta, d)
            log_residual(tally, command, f"C^L(0) - eta at the printed alpha, {d} digits", resid)
            continue
        zeta = m(key[2])
        t = zeta ** (ONE / depth)
        scale0, shift0 = res["input_scale"]["decimal"], res["input_shift"]["decimal"]
        fixed = not homogeneous_q_condition(a)
        try:
            scale, shift = solve_dks(a, scale0, shift0, t, fixed)
        except (ValueError, ZeroDivisionError) as exc:
            tally.mismatches.append(f"{command}: findroot from the printed values failed: {exc}")
            continue
        f1, f2, e = dks_conditions(a, scale, shift, t)
        for name, truth in (
            ("input_scale", scale),
            ("input_shift", shift),
            ("output_shift", -e["mu"]),
            ("output_scale", 1 / gmpy2.sqrt(e["V"])),
        ):
            tally.check(command, name, res[name]["decimal"], truth, d, double=res[name]["value"])
        if "layer_target" in res:
            tally.check(command, "layer_target", res["layer_target"]["decimal"], t, d)
        # the printed transform, put back: C(0) = 0, Q(1) = 1, Q'(1) = 1, C'(1) = t, to the printed accuracy
        ps, pb = m(scale0), m(shift0)
        pd, pg = m(res["output_shift"]["decimal"]), m(res["output_scale"]["decimal"])
        e0 = expect1(
            [
                lambda x: a.f(x) + pd,
                lambda x: (a.f(x) + pd) ** 2,
                lambda x: a.d1(x) ** 2,
                lambda x: (x - pb) * (a.f(x) + pd) * a.d1(x),
            ],
            pb,
            ps,
            a.kinks,
            a.width,
        )
        q1 = pg * pg * e0[1]
        log_residual(tally, command, f"C(0) of the printed transform, {d} digits", e0[0] ** 2 / e0[1])
        log_residual(tally, command, f"Q(1) - 1 of the printed transform, {d} digits", q1 - 1)
        log_residual(
            tally,
            command,
            f"C'(1) - target of the printed transform, {d} digits",
            ps * ps * e0[2] / e0[1] - t,
        )
        if not fixed:
            log_residual(
                tally, command, f"Q'(1) - 1 of the printed transform, {d} digits", pg * pg * e0[3] - 1
            )
        del f1, f2
    log(f"tat: references in {time.time() - t0:.0f} s (with waiting for the CLI)")


def homogeneous_q_condition(a: Act) -> bool:
    """False where DKS drops Q'(1) = 1 (a positively homogeneous phi: relu, relu2)."""
    return a.label not in ("relu", "relu2", "'max(x,0)**2'", "'abs(x)'")


RESIDUALS: list[tuple[str, str, mpfr]] = []


def log_residual(tally, command, what, value) -> None:
    RESIDUALS.append((command, what, value))


def quote(x: str) -> str:
    return f"'{x}'" if any(ch in x for ch in "*()+ ") else x


# ---------------------------------------------------------------------------------------------
# self-test: the references against closed forms and against a finer rule
# ---------------------------------------------------------------------------------------------


def self_test(log) -> int:
    acts = {a.label: a for a in make_catalog()}
    bad = 0

    def same(what, x, y, tol=REL):
        nonlocal bad
        err = abs(x - y) / max(abs(y), mpfr("1e-300"))
        flag = "ok " if err <= tol else "BAD"
        bad += flag == "BAD"
        log(f"{flag} {what}: relative difference {float(err):.2e}")

    relu, erf, tanh = acts["relu"], acts["erf"], acts["tanh"]
    for q1, q2, rho in (
        (ONE, ONE, m("0.5")),
        (m("0.5"), m(2), m("0.97")),
        (m(3), m(3), m("-0.9")),
        (m("0.5"), m(2), m("-0.3")),
    ):
        s = gmpy2.sqrt(q1 * q2)
        th = gmpy2.acos(rho)
        pair = nngp_ntk([relu, erf], q1, q2, rho)
        same(
            f"relu nngp q1={q1:.2f} q2={q2:.2f} rho={rho:.2f}",
            pair["relu"][0],
            s * (gmpy2.sin(th) + (PI - th) * rho) / (2 * PI),
        )
        same(f"relu ntk  q1={q1:.2f} q2={q2:.2f} rho={rho:.2f}", pair["relu"][1], (PI - th) / (2 * PI))
        same(
            f"erf nngp  q1={q1:.2f} q2={q2:.2f} rho={rho:.2f}",
            pair["erf"][0],
            2 / PI * gmpy2.asin(2 * rho * s / gmpy2.sqrt((1 + 2 * q1) * (1 + 2 * q2))),
        )
        same(
            f"erf ntk   q1={q1:.2f} q2={q2:.2f} rho={rho:.2f}",
            pair["erf"][1],
            4 / PI / gmpy2.sqrt((1 + 2 * q1) * (1 + 2 * q2) - 4 * rho * rho * q1 * q2),
        )
    # a finer rule (56 nodes a panel, half the width) for the hard smooth cases
    global NODES
    for label, q1, q2, rho in (
        ("tanh", m("0.5"), m(2), m("0.97")),
        ("gelu_tanh", m(3), m(3), m("0.5")),
        ("'tanh(x)+0.25'", ONE, ONE, m("-0.9")),
        ("mish", m("0.5"), m(2), m("-0.3")),
    ):
        a = acts[label]
        coarse = nngp_ntk([a], q1, q2, rho)[label]
        keep, NODES = NODES, 48
        fine = nngp_ntk([a], q1, q2, rho)[label]
        NODES = keep
        same(f"{label} nngp q1={q1:.2f} q2={q2:.2f} rho={rho:.2f} vs a finer rule", coarse[0], fine[0])
        same(f"{label} ntk  q1={q1:.2f} q2={q2:.2f} rho={rho:.2f} vs a finer rule", coarse[1], fine[1])
    # univariate closed forms: selu's E = 0, E^2 = 1; gelu's moments; erf's E[phi^2]
    e = expect1([acts["selu"].f, lambda x: acts["selu"].f(x) ** 2], ZERO, ONE, [ZERO])
    same("selu E[phi^2] = 1", e[1], ONE)
    log(f"{'ok ' if abs(e[0]) < REL else 'BAD'} selu E[phi] = 0: {float(e[0]):.2e}")
    bad += abs(e[0]) >= REL
    g = expect1(
        [acts["gelu"].f, lambda x: acts["gelu"].f(x) ** 2, lambda x: acts["gelu"].d1(x) ** 2], ZERO, ONE, []
    )
    same("gelu mean", g[0], 1 / (2 * gmpy2.sqrt(PI)))
    same("gelu second moment", g[1], ONE / 3 + gmpy2.sqrt(mpfr(3)) / (6 * PI))
    same("gelu E[phi'^2]", g[2], ONE / 3 + 2 * gmpy2.sqrt(mpfr(3)) / (9 * PI))
    # derivatives against central differences (hand-written phi', phi''; h = 1e-20, error ~1e-40)
    h = mpfr("1e-20")
    for a in acts.values():
        for x in (m("-2.3"), m("0.7"), m("3.1")):
            if any(abs(x - k) < 1e-3 for k in a.kinks):
                continue
            checks = [("phi'", a.f, a.d1)] + ([("phi''", a.d1, a.d2)] if a.d2 is not None else [])
            for what, g, dg in checks:
                num = (g(x + h) - g(x - h)) / (2 * h)
                if abs(num - dg(x)) > mpfr("1e-30") * (1 + abs(num)):
                    bad += 1
                    log(f"BAD {a.label}: {what}({x:.2f}) = {dg(x):.20e}, numerically {num:.20e}")
    # Hermite: tanh's a_1 = E[tanh'(Z)]; relu's a_2 = 1/(2 sqrt(pi)); relu's zeros
    h = hermite_reference(relu, 6, m("0.5"))
    same("relu a_2 = 1/(2 sqrt(2 pi)) * sqrt(2)/... ", h["coefficients"][2], 1 / (2 * gmpy2.sqrt(PI)))
    log(f"{'ok ' if h['coefficients'][3] == 0 else 'BAD'} relu a_3 = 0 exactly (odd part x/2)")
    ht = hermite_reference(tanh, 4, m("0.5"))
    same("tanh a_1 = E[tanh'(Z)]", ht["coefficients"][1], expect1([tanh.d1], ZERO, ONE, [])[0])
    return bad


# ---------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    import resource

    # a runaway grid must fail here, not take the shared machine's memory
    cap = 3 << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="q = 1, default digits, a few activations")
    p.add_argument("--only", choices=["kernel", "layers", "hermite", "tat"], action="append")
    p.add_argument("--activations", help="comma list of labels (as printed by --list)")
    p.add_argument("--list", action="store_true", help="list the activations' labels")
    p.add_argument("--self-test", action="store_true")
    opts = p.parse_args(argv)
    start = time.time()

    def log(msg):
        print(f"[{time.time() - start:6.0f} s] {msg}", flush=True)

    if opts.self_test:
        bad = self_test(log)
        log(f"self-test: {bad} failures")
        return 1 if bad else 0
    acts = make_catalog(params_extra=not opts.quick)
    if opts.list:
        print("\n".join(a.label for a in acts))
        return 0
    if opts.activations:
        wanted = set(opts.activations.split(","))
        acts = [a for a in acts if a.label in wanted or a.label.split("(")[0] in wanted]
    elif opts.quick:
        acts = [a for a in acts if a.label in ("relu", "tanh", "gelu", "selu", "'abs(x)'", "softsign")]
    only = set(opts.only or ["kernel", "layers", "hermite", "tat"])
    digit_levels = [15] if opts.quick else [15, 30]
    tally = Tally()

    def summary(stage):
        print(
            f"--- after {stage}: {tally.values} values, {tally.digits} digits, {len(tally.mismatches)} "
            f"mismatches, {tally.undecided} undecided",
            flush=True,
        )

    if "kernel" in only:
        check_kernel(acts, tally, digit_levels, VARIANCES[:1] if opts.quick else VARIANCES, RHOS, log)
        summary("kernel")
    if "hermite" in only:
        check_hermite(acts, tally, digit_levels, log)
        summary("hermite")
    if "tat" in only:
        check_tat(
            acts,
            tally,
            digit_levels,
            [1, 10] if opts.quick else [1, 10, 50],
            ["1.1", "1.5"],
            ["0.1", "0.5", "0.9"],
            log,
        )
        summary("tat")
    if "layers" in only:
        check_layers(
            acts,
            tally,
            digit_levels,
            [("0.5", 3, "1.5", "0.05")] + ([] if opts.quick else [("-0.3", 3, "1.5", "0.05")]),
            log,
        )
        summary("layers")
    RUNNER.shutdown()
    print()
    for cmd, (n, digs, bad) in sorted(tally.per_command.items()):
        print(f"{cmd}: {n} values, {digs} digits checked, {bad} mismatches")
    print(
        f"total: {tally.values} values, {tally.digits} digits (and {tally.doubles} JSON doubles), "
        f"{len(tally.mismatches)} mismatches, "
        f"{tally.undecided} undecided (reference within its accuracy of a rounding boundary)"
    )
    worst = {}
    for command, what, value in RESIDUALS:
        if what not in worst or abs(value) > abs(worst[what][1]):
            worst[what] = (command, value)
    for what, (command, value) in sorted(worst.items()):
        print(f"largest |{what}|: {float(abs(value)):.2e} ({command})")
    for note in tally.notes:
        print("note:", note)
    for mm in tally.mismatches:
        print("MISMATCH:", mm)
    print(f"wall time {time.time() - start:.0f} s, of which the CLI {CLI_SECONDS[0]:.0f} s")
    return 1 if tally.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
