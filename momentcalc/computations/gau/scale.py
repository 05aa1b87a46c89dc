"""``gau-scale``: the output magnitude of a Gated Attention Unit at initialization.

Su 2022, GAU at initialization (FLASH's GAU): O = (U ⊙ A V) W_o with A = relu²(Q(Z) K(Z)ᵀ)/(n·s), U, V, Z = φ(X W),
LeCun init, and Q(Z) = K(Z) = Z at initialization. With μ = E[φ(ε)], ν² = E[φ(ε)²],
ε ~ N(0, 1) (swish: 0.2066…, 0.3557…, from the activation-moment engine):

    A_ii ≈ relu²(s·ν²)/(n·s) = s·ν⁴/n,    A_ij ≈ relu²(s·μ²)/(n·s) = s·μ⁴/n  (i ≠ j)
    A_ii / A_ij ≈ ν⁴/μ⁴ ≈ 69  ⇒  A ≈ (s·ν⁴/n)·I,  O ≈ (s·ν⁴/n)(U ⊙ V) W_o
    E[O²] ≈ (s·ν⁴/n)²·ν⁴  ⇒  O = O(s·ν⁶/n) ≈ 0.01 at s = 128, n = 512

Scaling every weight matrix by lam (lam = init_std·sqrt(d); 1 under LeCun) scales U, V, Z by
about lam, A by lam⁴ and O by lam⁷ ("crazy scale"); x + GAU(x) ≈ x then behaves like
DeepNorm with alpha = 1/(lam⁷·s·ν⁶/n) ≈ 100.

These are Su's diagonal estimate. A's n − 1 off-diagonal entries, each about 1/46 of
the diagonal, multiply entries of V whose mean μ is not 0 and add up coherently, so an actual
GAU's output is several times s·ν⁶/n (swish at the default sizes: about 5); ``gau_report``
adds E[A_ii], E[A_ij] and the full estimate ``output_rms`` (``gau_full``). ``--simulate`` draws
actual GAUs (``gau_simulation``) and compares their RMS with ``output_rms``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import mpmath
from mpmath import mp

from ...catalog import resolve
from ...defaults import GAU_SCALE as DEFAULTS
from ...engine.numbers import Number
from ...engine.precision import working_dps
from ...tier import Computation, PrecisionError, quantities
from ..common import monte_carlo_errors
from .inputs import read_inputs
from .numeric import MOMENT_GUARD, moments_at, seed_monomials, theory

DESCRIPTIONS = {
    "mu": "E(phi(Z)), Z ~ N(0, 1)",
    "nu2": "E(phi(Z)^2)",
    "nu": "sqrt(nu2)",
    "diag_attention": "Su's diagonal estimate: A_ii ~ s*nu^4/n, A_ii = relu^2(<Z_i, Z_i>)/(n*s) at initialization",
    "offdiag_attention": "Su's diagonal estimate: A_ij ~ s*mu^4/n, i != j",
    "diag_offdiag_ratio": "Su's diagonal estimate: nu^4/mu^4 = A_ii / A_ij",
    "output_scale": "Su's diagonal estimate: s*nu^6/n, RMS of O under LeCun init with A taken as its diagonal",
    "lambda": "init_std*sqrt(d): every weight matrix relative to its LeCun std",
    "scaled_output": "Su's diagonal estimate: lambda^7*output_scale, RMS of O at this init",
    "deepnorm_alpha": "Su's diagonal estimate: 1/scaled_output, the DeepNorm alpha that x + GAU(x) resembles",
}
SIMULATED = {
    "simulated_rms": "RMS of O over the drawn GAUs (all trials' entries pooled), Monte Carlo",
    "simulated_ratio": "simulated_rms / output_rms (the full estimate)",
    "simulated_stderr": "standard error of simulated_rms over the trials",
    "simulated_diag_attention": "mean A_ii of the drawn GAUs (compare attention_diag_mean)",
    "simulated_offdiag_attention": "mean A_ij, i != j, of the drawn GAUs (compare attention_offdiag_mean)",
}


def gau_scale(
    *,
    s: object = DEFAULTS["s"],
    n: object = DEFAULTS["n"],
    d: object = DEFAULTS["d"],
    e: object = DEFAULTS["e"],
    activation: str = DEFAULTS["activation"],
    init_std: object = None,
    simulate: bool = False,
    seed: object = None,
    trials: object = None,
    params: Mapping[str, object] | None = None,
    digits: int = 15,
    derive: bool = False,
) -> Computation:
    """GAU magnitudes at initialization, correct to ``digits`` digits (simulated ones excepted).

    ``params`` sets the activation's catalog parameters by name (``{"slope": "0.2"}``).

    >>> round(float(gau_scale().value("diag_offdiag_ratio")))
    69
    """
    given = read_inputs(s, n, d, e, activation, init_std, simulate, seed, trials, params, digits)
    digits, sizes, std = given.digits, given.sizes, given.std

    from ...moments import expectations

    act = resolve(activation, params)
    # E[φ] and E[φ²] (the variance gaussian_moments would add is not used here, and for a nearly
    # constant φ, abs(x)**1e-100, it is what costs the time), and at LeCun init E[φ⁴] with them:
    # one trapezoidal rule serves all three (where it cannot, the pair alone, as before).
    monomials = seed_monomials(activation, params, digits + MOMENT_GUARD, std is None)
    mu, nu2, *m4 = expectations(
        activation, monomials, mean=0, std=1, digits=digits + MOMENT_GUARD, params=params
    )
    label = act.name if not act.expression else act.formula
    with mp.workdps(working_dps(digits)):
        values = theory(mu, nu2, sizes, std)
    from .proof import proven_theory

    proofs = proven_theory(activation, params, sizes, std, digits, monomials)  # Su's results, certified
    from .report import DESCRIPTIONS as FULL, full_results

    lam = values["lambda"]
    # at LeCun init (mu, nu2) are Su's and E[φ⁴] came with them; else only E[φ⁴] is new
    if m4:
        moments = (mu, nu2, m4[0])
    else:
        moments = moments_at(
            activation, params, lam, digits + MOMENT_GUARD, (mu, nu2) if std is None else None
        )
    full, accuracy, full_notes = full_results(
        activation, params, sizes, lam, moments, values["scaled_output"], digits
    )
    values.update(full)

    inputs: dict[str, Number | str] = {**sizes, "activation": label, **dict(act.values)}
    if std is not None:
        inputs["init_std"] = std
    descriptions = {**DESCRIPTIONS, **FULL}
    notes = [
        "diag_attention ... deepnorm_alpha are Su's diagonal estimate (Su, 2022, GAU at initialization): A taken "
        "as its diagonal, moments at lambda = 1 and the lambda^7 law; A's n - 1 off-diagonal entries multiply V "
        "entries of mean mu != 0 and add up, which output_rms keeps",
        *full_notes,
    ]
    stderr: dict[str, mpmath.mpf] = dict(accuracy)
    if given.monte_carlo is not None:
        from .simulation_run import simulated as simulate_gau

        draws, count = given.monte_carlo
        simulated = simulate_gau(activation, params, sizes, std, draws, count, adaptive=given.adaptive)
        count = int(simulated.pop("trials"))  # an int already (the trials drawn)
        if not math.isfinite(simulated["simulated_rms"]):
            raise PrecisionError(
                "{simulate} overflowed double precision at this {init_std}; the theory needs no "
                "simulation: run without {simulate}",
                param="simulate",
                params=("init_std",),
            )
        with mp.workdps(working_dps(digits)):
            values["simulated_rms"] = mpmath.mpf(simulated["simulated_rms"])
            theory_rms = values["output_rms"]
            values["simulated_ratio"] = (
                values["simulated_rms"] / theory_rms
                if theory_rms and mpmath.isfinite(theory_rms)
                else mpmath.inf
            )
            for name in ("simulated_stderr", "simulated_diag_attention", "simulated_offdiag_attention"):
                if name in simulated and math.isfinite(simulated[name]):
                    values[name] = mpmath.mpf(simulated[name])
        errors = {
            **simulated,
            "simulated_rms_stderr": simulated["simulated_stderr"],
            "simulated_ratio_stderr": simulated["simulated_stderr"] / float(theory_rms)
            if theory_rms
            else math.nan,
        }
        stderr.update(monte_carlo_errors(errors, SIMULATED, count))
        descriptions.update(SIMULATED)
        inputs.update(seed=draws, trials=count)
        notes.append(
            f"simulated values are Monte Carlo estimates in double precision ({count} draws, seed {draws}), "
            f"printed to the digits their standard error justifies"
        )
    closed: dict[str, tuple[str, str]] = {}
    derivation: tuple[tuple[str, str, str], ...] = ()
    if derive:
        from ...symbolic.gau import derive as derive_forms
        from ...symbolic.gau_full import derive as derive_full
        from .full import PATTERNS

        closed, derivation = derive_forms(act, sizes, std)
        full_closed, full_lines = derive_full(act, sizes, std, "attention_offdiag_mean" in accuracy, PATTERNS)
        closed, derivation = {**closed, **full_closed}, derivation + full_lines
    # Proven fields where the proof has them, else the value (Monte Carlo ones with their stderr).
    fields = {
        name: {**proofs.get(name, {"value": value}), "stderr": stderr.get(name)}
        for name, value in values.items()
    }
    results = quantities({name: descriptions[name] for name in values}, fields, closed)
    return Computation("gau_scale", inputs, digits, results, notes=tuple(notes), derivation=derivation)
