"""engine.roots: verified Newton for small systems (used by selu-solve), loud when it fails."""

from __future__ import annotations

import mpmath
import pytest
from mpmath import mp

from momentcalc.engine.roots import find_root, residual
from momentcalc.errors import PrecisionError


def circle_and_line(x, y):
    return [x * x + y * y - 2, x - y]


def test_solves_a_system_to_the_working_precision():
    with mp.workdps(60):
        x, y = find_root(circle_and_line, (1.3, 0.8), tol=mpmath.mpf(10) ** -55)
        assert abs(x - 1) < mpmath.mpf(10) ** -58 and abs(y - 1) < mpmath.mpf(10) ** -58


def test_uses_the_jacobian_when_given():
    calls = []

    def jacobian(x, y):
        calls.append((x, y))
        return [[2 * x, 2 * y], [1, -1]]

    with mp.workdps(40):
        x, _ = find_root(circle_and_line, (1.3, 0.8), jacobian=jacobian, tol=mpmath.mpf(10) ** -35)
        assert abs(x - 1) < mpmath.mpf(10) ** -38
    assert calls


def test_one_unknown():
    with mp.workdps(50):
        (root,) = find_root(lambda x: [x * x - 2], (1,), tol=mpmath.mpf(10) ** -45)
        assert abs(root - mpmath.sqrt(2)) < mpmath.mpf(10) ** -48


def test_no_root_is_a_precision_error_not_a_number():
    with mp.workdps(30), pytest.raises(PrecisionError, match="no root|did not converge|failed"):
        find_root(lambda x, y: [x * x + 1, y - 1], (0.5, 0.5), tol=mpmath.mpf(10) ** -25, what="no root")


def test_singular_jacobian_is_a_precision_error():
    with mp.workdps(30), pytest.raises(PrecisionError, match="failed"):
        find_root(lambda x, y: [x + y - 1, 2 * x + 2 * y - 2], (0, 0), tol=mpmath.mpf(10) ** -25)


def test_tolerance_is_enforced():
    # Newton stops at the working precision; a tolerance below it cannot be met.
    with mp.workdps(20), pytest.raises(PrecisionError, match="residual"):
        find_root(lambda x: [mpmath.exp(x) - 3], (1,), tol=mpmath.mpf(10) ** -60)


def test_precision_restored_after_success_and_failure():
    before = mp.prec
    with mp.workdps(40):
        inner = mp.prec
        find_root(circle_and_line, (1.3, 0.8), tol=mpmath.mpf(10) ** -30)
        assert mp.prec == inner
        with pytest.raises(PrecisionError):
            find_root(lambda x: [x * x + 1], (0.5,), tol=mpmath.mpf(10) ** -30)
        assert mp.prec == inner
    assert mp.prec == before


def test_residual_is_the_max_norm_and_flags_non_finite():
    assert residual(lambda x, y: [x - 1, y + 3], (0, 0)) == 3
    assert residual(lambda x: [mpmath.inf], (0,)) == mpmath.inf
