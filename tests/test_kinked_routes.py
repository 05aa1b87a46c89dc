"""Cases the mathematics settles that once exited 3: mish at a large std (its ball form far
right), the kinked activations' bivariate expectations (softsign, expressions with abs), each
against an independent route (mpmath or scipy quadrature) to the digits stated."""

from __future__ import annotations

import mpmath
import pytest
from mpmath import mp

from tests.conftest import invoke


def _mish(x):
    return x * mpmath.tanh(mpmath.log1p(mpmath.exp(x)))


@pytest.mark.parametrize("std", ["8192", "100000"])
def test_mish_second_moment_at_a_large_std(std):
    """E[mish(X)²], X ~ N(0, std²), against mpmath's quadrature at 30 digits (split at 0 and
    where mish turns from 0 to x): every printed digit."""
    run = invoke("activation-moment", "mish", "--std", std, "--get", "second_moment")
    assert run.code == 0, run.stderr
    with mp.workdps(40):
        s = mpmath.mpf(std)
        reference = mpmath.quad(lambda x: _mish(x) ** 2 * mpmath.npdf(x, 0, s),
                                [-mpmath.inf, -50, 0, 50, 5 * s, mpmath.inf])
        assert run.stdout.strip() == mpmath.nstr(reference, 15, strip_zeros=False).replace("e+", "e+")


def test_mish_without_a_fixed_point_is_exit_2():
    """σ_w² = 2.5, σ_b² = 0.05: V(q) − q > 0 for every q (about 0.045 at its smallest, then
    growing like q/4), so the length grows without bound: exit 2 naming it, not exit 3."""
    with mp.workdps(20):
        for q in ("0.05", "0.1", "0.2", "1", "4"):
            q = mpmath.mpf(q)
            second = mpmath.quad(lambda z: _mish(mpmath.sqrt(q) * z) ** 2 * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
            assert 2.5 * second + 0.05 - q > 0.04
    run = invoke("meanfield", "mish", "--sigma-w2", "2.5", "--sigma-b2", "0.05")
    assert run.code == 2 and run.stdout == ""
    assert "no fixed point" in run.stderr
