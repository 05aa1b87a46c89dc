"""``init-report --simulate``: the network drawn at a small width with numpy (seeded), its figures
measured beside the predictions for the same small network.

The model is scaled to width W (default 64): heads of the same head dimension (at least one, of
dimension at most W), the feed-forward width in proportion, the vocabulary capped at 4096 and the
sequence at 8 positions; the init rules are replayed for that model (a rule that reads the width,
T5's d_model**-0.5, reads W) and the predictions are computed for it by the same code as the
report's. Each trial draws every weight anew (truncated normals by resampling), a batch of 4
sequences of random token ids (positions learned or absent), runs the forward pass — the real
softmax attention, causal or not, the norms, the activation, the head, a uniform random target —
and records per layer the residual stream's second moment, the attention and MLP branches'
variances, the first layer's attention logit std, the output logits' std and the loss. The
estimates are means over trials with standard errors from the spread between trials.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from ...engine.numbers import Number
from ...engine.precision import to_decimal
from ...errors import InputError
from ...result import Quantity
from ...tier import prove, whole
from ..common import simulation_options
from .figures import figures_of
from .rules import Group, groups
from .spec import Model, head_rescale2

DEFAULT_WIDTH = 64
DEFAULT_TRIALS = 16
MAX_TRIALS = 10_000
SIM_VOCAB = 4096
SIM_SEQ = 8
BATCH = 4
# Normal draws one call may make (about 3 s of numpy on a 2-core machine).
MAX_DRAWS = 3 * 10**8

FIGURES = {
    "residual_second_moment": "residual stream second moment entering the layer (last: after it)",
    "attention_variance": "attention branch variance",
    "mlp_variance": "MLP branch variance",
}
SCALARS = {
    "simulated_initial_loss": (
        "initial_loss",
        "Monte Carlo: the mean loss of the drawn network at a random target",
    ),
    "simulated_output_logit_std": (
        "output_logit_std",
        "Monte Carlo: RMS of the drawn network's output logits (but each input token's own)",
    ),
    "simulated_final_residual_second_moment": (
        "final_residual_second_moment",
        "Monte Carlo: the residual stream's second moment after the last layer",
    ),
    "simulated_attention_logit_std": (
        "attention_logit_std",
        "Monte Carlo: RMS of the first layer's attention logits",
    ),
}


def scaled(model: Model, width: int) -> Model:
    """The model at width ``width``: heads of the same dimension (capped at the width), the
    feed-forward width in proportion, a vocabulary of at most 4096, 8 positions."""
    head_dim = min(model.head_dim, width)
    heads = (
        max(1, width // head_dim)
        if model.heads * model.head_dim == model.width
        else max(1, round(model.heads * width / model.width))
    )
    kv = heads if model.kv_heads == model.heads else max(1, heads * model.kv_heads // model.heads)
    while heads % kv:
        kv -= 1
    ffn = max(1, round(model.ffn * width / model.width))
    return model._replace(
        width=width,
        heads=heads,
        kv_heads=kv,
        head_dim=head_dim,
        ffn=ffn,
        vocab=min(model.vocab, SIM_VOCAB),
        seq_len=min(model.seq_len, SIM_SEQ),
    )


def simulated_results(
    model: Model, library: str, seed: object, trials: object, width: object, digits: int
) -> tuple[tuple[Quantity, ...], list[dict[str, str]], dict[str, Number | str], list[str]]:
    options = simulation_options(
        True, seed, trials, default_seed=0, default_trials=DEFAULT_TRIALS, max_trials=MAX_TRIALS, only=""
    )
    assert options is not None
    draws, count = options
    w = int(whole(DEFAULT_WIDTH if width is None else width, "simulate_width", 2))
    if w > model.width:
        raise InputError(
            f"{{simulate_width}} {w} is wider than the model ({model.width}); the simulation draws a narrower copy",
            param="simulate_width",
        )
    small = scaled(model, w)
    drawn = groups(small, library)
    layers = small.decoder_layers or small.layers
    per_trial = _draws_per_trial(small, layers)
    if per_trial * count > MAX_DRAWS:
        raise InputError(
            f"{{trials}} {count} at {{simulate_width}} {w} would draw {per_trial * count:.2e} normals, at most "
            f"{MAX_DRAWS:.0e}",
            param="trials",
            params=("simulate_width",),
        )
    roles = {g.role: g for g in drawn}
    fields = prove(lambda bits: figures_of(small, roles, bits, 10), 8)
    predicted = {name: field["value"] for name, field in fields.items()}
    measured = run(small, drawn, count, draws)
    quantities_out = []
    for name, (figure, description) in SCALARS.items():
        mean, err = measured[figure]
        quantities_out.append(
            Quantity(name, value=mpmath.mpf(mean), description=description, stderr=mpmath.mpf(err))
        )
    rows = []
    for figure in ("initial_loss", "output_logit_std", "final_residual_second_moment", "attention_logit_std"):
        rows.append(_row(figure, "", predicted[figure], *measured[figure]))
    for figure in FIGURES:
        for layer, (mean, err) in enumerate(measured[figure]):
            rows.append(_row(figure, str(layer), predicted[figure][layer], mean, err))
    inputs: dict[str, Number | str] = {
        "seed": Fraction(draws),
        "trials": Fraction(count),
        "simulate_width": Fraction(w),
    }
    notes = [
        f"simulated: {count} draws of the network at width {w} ({small.heads} heads of {small.head_dim}, "
        f"feed-forward {small.ffn}, vocabulary {small.vocab}, {small.seq_len} positions, batch {BATCH}), seed "
        f"{draws}; the simulation table compares them with the predictions for that network (z: the difference "
        "in standard errors); Monte Carlo figures are printed to the digits their standard error justifies"
    ]
    return tuple(quantities_out), rows, inputs, notes


def _row(figure: str, layer: str, predicted: Any, mean: float, err: float) -> dict[str, str]:
    z = (mean - float(predicted)) / err if err > 0 else 0.0
    digits = max(1, min(8, math.floor(math.log10(abs(mean) / err)) + 2)) if err > 0 and mean else 6
    return {
        "figure": figure,
        "layer": layer,
        "predicted": to_decimal(predicted, 6),
        "simulated": f"{to_decimal(mpmath.mpf(mean), digits)} ± {err:.2g}",
        "z": f"{z:+.2f}",
    }


def _draws_per_trial(model: Model, layers: int) -> int:
    d, f, inner = model.width, model.ffn, model.heads * model.head_dim
    per_layer = d * inner * 4 + d * f * (3 if model.gated else 2)
    if model.decoder_layers:
        per_layer += d * inner * 4
    return layers * per_layer + model.vocab * d * 2 + model.seq_len * d * 2


def _sampler(rng: Any, group: Group, layer: int, layers: int) -> Any:
    """A function shape -> draws of the group's distribution at ``layer``."""
    import numpy as np

    std = math.sqrt(float(group.variance_at(layer, layers)))
    bound = None
    if group.truncation is not None:
        kind, value = group.truncation
        bound = float(value) * std if kind == "sigma" else float(value)

    def draw(*shape: int) -> Any:
        out = rng.standard_normal(shape) * std
        if bound is not None:
            bad = np.abs(out) > bound
            while bad.any():
                out[bad] = rng.standard_normal(int(bad.sum())) * std
                bad = np.abs(out) > bound
        return out

    return draw


def _activation(name: str) -> Any:
    import numpy as np

    if name == "relu":
        return lambda x: np.maximum(x, 0.0)
    if name == "gelu":
        from scipy.special import erf

        return lambda x: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
    if name == "gelu_tanh":
        return lambda x: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    if name == "swish":
        return lambda x: x / (1.0 + np.exp(-x))
    if name == "quick_gelu":
        return lambda x: x / (1.0 + np.exp(-1.702 * x))
    raise InputError(f"{{simulate}} has no numpy form of the activation {name!r}", param="simulate")


def _norm(x: Any, kind: str, gain: float) -> Any:
    import numpy as np

    if kind == "layernorm":
        x = x - x.mean(axis=-1, keepdims=True)
        return gain * x / np.sqrt((x * x).mean(axis=-1, keepdims=True))
    return gain * x / np.sqrt((x * x).mean(axis=-1, keepdims=True))


def run(model: Model, drawn: list[Group], trials: int, seed: int) -> dict[str, Any]:
    """Means and standard errors over ``trials`` draws of every measured figure."""
    import numpy as np

    rng = np.random.default_rng(seed)
    roles = {g.role: g for g in drawn}
    layers = model.decoder_layers or model.layers
    d, h, dh, kv, f, T, V = (
        model.width,
        model.heads,
        model.head_dim,
        model.kv_heads,
        model.ffn,
        model.seq_len,
        model.vocab,
    )
    phi = _activation(model.activation)
    gain = (
        math.sqrt(float(Fraction(model.settings.get("initializer_factor", 1)) ** 2))
        if model.family == "t5"
        else 1.0
    )
    scale = {"1/sqrt(d)": 1 / math.sqrt(dh), "1": 1.0, "1/d": 1 / dh}[model.attention_scale]
    post = model.placement in ("post", "deepnorm")
    alpha = (2 * layers) ** 0.25 if model.placement == "deepnorm" else 1.0
    mask = np.tril(np.ones((T, T), dtype=bool)) if model.causal else np.ones((T, T), dtype=bool)
    records: dict[str, list[Any]] = {
        k: []
        for k in (
            "residual_second_moment",
            "attention_variance",
            "mlp_variance",
            "initial_loss",
            "output_logit_std",
            "final_residual_second_moment",
            "attention_logit_std",
        )
    }
    for _ in range(trials):
        table = _sampler(rng, roles["embedding"], 0, layers)(V, d)
        ids = rng.integers(0, V, size=(BATCH, T))
        x = table[ids]
        if "position" in roles:
            x = x + _sampler(rng, roles["position"], 0, layers)(T, d)[None, :, :]
        if "token_type" in roles and model.type_vocab:
            x = x + _sampler(rng, roles["token_type"], 0, layers)(1, d)[None, :, :]
        if model.embedding_norm:
            x = _norm(x, model.norm, gain)
        encoder = (
            _norm(rng.standard_normal((BATCH, T, d)), model.norm, gain) if model.decoder_layers else None
        )
        residual, attn_vars, mlp_vars = [float((x * x).mean())], [], []
        first_logits = None
        for layer in range(layers):
            draw = {role: _sampler(rng, group, layer, layers) for role, group in roles.items()}
            u = x if post else _norm(x, model.norm, gain)
            q = (u @ draw["q"](d, h * dh)).reshape(BATCH, T, h, dh)
            k = (u @ draw["k"](d, kv * dh)).reshape(BATCH, T, kv, dh)
            v = (u @ draw["v"](d, kv * dh)).reshape(BATCH, T, kv, dh)
            k = np.repeat(k, h // kv, axis=2)
            v = np.repeat(v, h // kv, axis=2)
            logits = np.einsum("bthd,bshd->bhts", q, k) * scale
            if first_logits is None:
                first_logits = logits[:, :, mask]
            logits = np.where(mask[None, None], logits, -np.inf)
            logits = logits - logits.max(axis=-1, keepdims=True)
            weights = np.exp(logits)
            weights /= weights.sum(axis=-1, keepdims=True)
            out = np.einsum("bhts,bshd->bthd", weights, v).reshape(BATCH, T, h * dh)
            attn = out @ draw["o"](h * dh, d)
            attn_vars.append(float((attn * attn).mean()))
            x = _norm(alpha * x + attn, model.norm, gain) if post else x + attn
            if encoder is not None:
                cq = (_norm(x, model.norm, gain) @ draw["cross_q"](d, h * dh)).reshape(BATCH, T, h, dh)
                ck = (encoder @ draw["cross_k"](d, h * dh)).reshape(BATCH, T, h, dh)
                cv = (encoder @ draw["cross_v"](d, h * dh)).reshape(BATCH, T, h, dh)
                cl = np.einsum("bthd,bshd->bhts", cq, ck) * scale
                cl = cl - cl.max(axis=-1, keepdims=True)
                cw = np.exp(cl)
                cw /= cw.sum(axis=-1, keepdims=True)
                x = x + np.einsum("bhts,bshd->bthd", cw, cv).reshape(BATCH, T, h * dh) @ draw["cross_o"](
                    h * dh, d
                )
            u = x if post else _norm(x, model.norm, gain)
            if model.gated:
                hidden = phi(u @ draw["gate"](d, f)) * (u @ draw["up"](d, f))
            else:
                hidden = phi(u @ draw["up"](d, f))
            mlp = hidden @ draw["down"](f, d)
            mlp_vars.append(float((mlp * mlp).mean()))
            x = _norm(alpha * x + mlp, model.norm, gain) if post else x + mlp
            residual.append(float((x * x).mean()))
        final = x if post else _norm(x, model.norm, gain)
        if "transform" in roles:
            final = _norm(
                _activation("gelu")(final @ _sampler(rng, roles["transform"], 0, layers)(d, d)),
                model.norm,
                1.0,
            )
        head = roles["head"]
        weight = table.T if head.tied else _sampler(rng, head, 0, layers)(d, V)
        z = final @ weight
        z = z * math.sqrt(head_rescale2(model))
        top = z.max(axis=-1, keepdims=True)
        lse = top[..., 0] + np.log(np.exp(z - top).sum(axis=-1))
        target = rng.integers(0, V, size=(BATCH, T))
        picked = np.take_along_axis(z, target[..., None], axis=-1)[..., 0]
        records["initial_loss"].append(float((lse - picked).mean()))
        # the RMS of the logits other than each input token's own (a tied head's own-token logit is
        # shifted by about |e|²/rms(x): one logit in V, which the loss barely feels)
        own = np.zeros_like(z, dtype=bool)
        np.put_along_axis(own, ids[..., None], True, axis=-1)
        records["output_logit_std"].append(float(np.sqrt((z * z)[~own].mean())))
        records["final_residual_second_moment"].append(residual[-1])
        assert first_logits is not None  # set at the first layer (residual[-1] above: there is one)
        records["attention_logit_std"].append(float(np.sqrt((first_logits * first_logits).mean())))
        records["residual_second_moment"].append(residual)
        records["attention_variance"].append(attn_vars)
        records["mlp_variance"].append(mlp_vars)
    result: dict[str, Any] = {}
    root = math.sqrt(trials)
    for name, values in records.items():
        array = np.array(values, dtype=float)
        means, errs = array.mean(axis=0), array.std(axis=0, ddof=1) / root
        result[name] = (
            list(zip(means.tolist(), errs.tolist())) if array.ndim == 2 else (float(means), float(errs))
        )
    return result
