"""Mish in ``dks_smooth``'s framework: the first steps toward a proven ceiling on the per-layer
C'(1) that deep kernel shaping (Martens et al., 2021, "Rapid training of deep neural networks
without skip connections or normalization layers") can give mish (Misra, 2019, "Mish: a self
regularized non-monotonic activation function"). NOT WIRED INTO ``tat``: only the activation's
parts, its envelopes and single core cells exist; the regions (core grid, linear side, small
scales, the left of the kink as in ``dks_smooth_left``) are not run for it.

Mish is φ = x·T(x), T = tanh(softplus(x)) = (u² + 2u)/(u² + 2u + 2) with u = e^x (no
logarithm: meromorphic, as Arb's integrals need), T' = (1 − T²)·σ, T'' = −2T·T'·σ + (1 − T²)·σ'
(σ the logistic function, σ' = sech²(x/2)/4), φ' = T + x·T', φ'' = 2T' + x·T''. With
g = relu − φ (g'' meaning −φ''):

* x < 0 (u < 1): T = u(u + 2)/(u² + 2u + 2) ≤ (3/2)·u, T' ≤ σ ≤ u, |T''| ≤ 2T·T'·σ + σ'
  ≤ 3u³ + u ≤ 4u, so |g| = |x|·T ≤ 2|x|e^{x}, |g'| = |φ'| ≤ (2 + |x|)e^{x},
  |g''| = |φ''| ≤ (2 + 4|x|)e^{x}.
* x > 0 (v = e^{−x} < 1): 1 − T = 2/(u² + 2u + 2) ≤ 2v², T' = (1 − T)(1 + T)σ ≤ 4v²,
  |T''| ≤ 2T' + (1 − T²)σ' ≤ 8v² + 4v³ ≤ 12v², so |g| = x(1 − T) ≤ 2x·e^{−x},
  |g'| = |(1 − T) − x·T'| ≤ (2 + 4x)e^{−x}, |g''| ≤ 2T' + x|T''| ≤ (8 + 12x)e^{−x}.

The envelopes (coefficients from the constant term up) are the larger of the two sides:
|g| ≤ 2|x|e^{−|x|}, |g'| ≤ (2 + 4|x|)e^{−|x|}, |g''| ≤ (8 + 12|x|)e^{−|x|}; ``envelopes_hold``
checks them on Arb cells of [−ENVELOPE_REACH, ENVELOPE_REACH] (a test of the algebra above).
They enter the core only beyond |x| = 30 (``dks_smooth.U``); ``dks_smooth.linear_side``'s
closing inequalities use them in earnest and may need sharper ones for mish.

What remains for mish's ceiling: run ``dks_smooth.core_cells(MISH, 3, core_grid())`` and the
linear grid (about ten minutes of CPU each, as for swish), ``linear_side``, a small-scale part
(``dks_smooth.small_scale`` is swish's: mish's sups of φ''', φ'''' and its K), and the region
y ≥ 6 (``dks_smooth_left``'s five parts with mish's p = 2φ'² + 3φφ'' sign pieces, its far-left
constants, and the right tail e^{−2x}); then a proof module for ``dks_ceilings``.
"""

from __future__ import annotations

from fractions import Fraction

from flint import acb, arb, ctx

from .dks_smooth import PRECISION, SmoothRelu, _a, _poly

ENVELOPE_REACH = 30


def _tanh_softplus(z: acb) -> tuple[acb, acb]:
    """T = tanh(softplus(z)) = (u² + 2u)/(u² + 2u + 2), u = e^z, and 1 − T = 2/(u² + 2u + 2)
    (computed as such: no cancellation for large z)."""
    u = z.exp()
    w = u * u + 2 * u
    return w / (w + 2), 2 / (w + 2)


def _mish_parts(z: acb) -> tuple[acb, acb, acb, acb]:
    """(T, 1 − T, T', T'') of mish at a complex point."""
    t, rest = _tanh_softplus(z)
    s = (1 + (z / 2).tanh()) / 2
    h = (z / 2).sech()
    ds = h * h / 4
    dt = rest * (1 + t) * s  # (1 − T²)·σ
    ddt = -2 * t * dt * s + rest * (1 + t) * ds
    return t, rest, dt, ddt


def _mish_left(z: acb) -> tuple[acb, acb, acb]:
    """g = −φ, g' = −φ', g'' = −φ'' (φ = zT, φ' = T + zT', φ'' = 2T' + zT'')."""
    t, _, dt, ddt = _mish_parts(z)
    return -z * t, -(t + z * dt), -(2 * dt + z * ddt)


def _mish_right(z: acb) -> tuple[acb, acb, acb]:
    """g = z(1 − T), g' = (1 − T) − zT', g'' = −φ''."""
    _, rest, dt, ddt = _mish_parts(z)
    return z * rest, rest - z * dt, -(2 * dt + z * ddt)


MISH = SmoothRelu("mish", _mish_left, _mish_right, ((0, 2), (2, 4), (8, 12)))


def envelopes_hold(width: Fraction = Fraction(1, 64)) -> bool:
    """|g|, |g'|, |g''| ≤ p(|x|)·e^{−|x|} on cells of ``width`` over [−REACH, REACH] (each side of
    the kink at 0 with its own branch)."""
    with ctx.workprec(PRECISION):
        count = int(2 * ENVELOPE_REACH / width)
        for j in range(count):
            low = -ENVELOPE_REACH + j * width
            x = arb(_a(low + width / 2), _a(width / 2))
            branch = MISH.right if low >= 0 else MISH.left
            parts = branch(acb(x))
            size = abs(x)
            fall = (-size).exp()
            # |g| = |x|·T (x < 0), |x|·(1 − T) (x > 0) against |x|·2e^{−|x|}: both vanish at 0,
            # so the factors are compared
            t, rest = _tanh_softplus(acb(x))
            factor = (rest if low >= 0 else t).real
            if not bool(abs(factor) <= MISH.envelopes[0][1] * fall) or MISH.envelopes[0][0] != 0:
                return False
            for part, envelope in zip(parts[1:], MISH.envelopes[1:]):
                if not bool(abs(part.real) <= _poly(envelope, size) * fall):
                    return False
        return True


__all__ = ["MISH", "envelopes_hold"]
