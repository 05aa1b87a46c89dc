"""init-report: published configs (GPT-2 small, Llama-2-7B, T5-small with an untied head, BERT-base,
written here from their published hyperparameters), the figures against independent routes
(mpmath quadrature of the activations' moments, the recursion by hand, initial-loss), the checks'
verdicts, the simulation within its Monte Carlo error, bad configs, CI formats and width tables."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from mpmath import mp

from momentcalc import init_report, initial_loss
from tests.conftest import invoke

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "init_report"


def report(name: str, *args: str) -> tuple[int, dict]:
    run = invoke("init-report", str(FIXTURES / name), *args, "--json")
    assert run.code in (0, 1), run.stderr
    return run.code, run.json()


@pytest.fixture(scope="module")
def published():
    return {
        name: report(name)
        for name in ("gpt2_small.json", "llama2_7b.json", "t5_small_untied.json", "bert_base.json")
    }


def value(doc: dict, name: str) -> mpmath.mpf:
    with mp.workdps(40):
        return mpmath.mpf(doc["results"][name]["decimal"])


def verdict(doc: dict, check: str) -> str:
    return next(v["verdict"] for v in doc["verdicts"] if v["check"] == check)


def gaussian_second(phi, variance) -> tuple[mpmath.mpf, mpmath.mpf]:
    """E[φ(√v Z)²] and E[φ'(√v Z)²] by mpmath quadrature (independent of the package)."""
    s = mpmath.sqrt(variance)
    weight = lambda z: mpmath.npdf(z)
    second = mpmath.quad(lambda z: phi(s * z) ** 2 * weight(z), [-mpmath.inf, 0, mpmath.inf])
    deriv = mpmath.quad(lambda z: mpmath.diff(phi, s * z) ** 2 * weight(z), [-mpmath.inf, 0, mpmath.inf])
    return second, deriv


def gelu_tanh(x):
    return x / 2 * (1 + mpmath.tanh(mpmath.sqrt(2 / mpmath.pi) * (x + mpmath.mpf("0.044715") * x**3)))


def silu(x):
    return x / (1 + mpmath.exp(-x))


def harmonic(n: int) -> Fraction:
    return sum((Fraction(1, k) for k in range(1, n + 1)), Fraction(0))


def test_harmonic_numbers_are_the_exact_sums():
    from momentcalc.computations.init_report.forward import harmonic as by_splitting

    for n in (0, 1, 2, 3, 10, 1023, 1024, 2047):
        assert by_splitting(n) == harmonic(n), n


def test_gpt2_small_figures_by_hand(published):
    code, doc = published["gpt2_small.json"]
    assert code == 0
    with mp.workdps(30):
        s2, d, f, L, T = mpmath.mpf("0.02") ** 2, 768, 3072, 12, 1024
        n = Fraction(T) / harmonic(T)
        second, _deriv = gaussian_second(gelu_tanh, s2 * d)
        attn = (s2 / (2 * L)) * d * (s2 * d) / mpmath.mpf(n.numerator) * n.denominator
        mlp = (s2 / (2 * L)) * f * second
        q = [2 * s2]
        for _ in range(L):
            q.append(q[-1] + attn + mlp)
        got = [mpmath.mpf(x) for x in doc["results"]["residual_second_moment"]["decimal"]]
        assert all(abs(a - b) <= 1e-13 * b for a, b in zip(got, q))
        assert abs(value(doc, "final_residual_second_moment") - q[-1]) < 1e-13 * q[-1]
        assert (
            abs(value(doc, "attention_logit_std") - mpmath.sqrt(mpmath.mpf(1) / 64 * 64 * (s2 * d) ** 2))
            < 1e-14
        )
        logit_std = mpmath.sqrt(s2 * d)
        assert abs(value(doc, "output_logit_std") - logit_std) < 1e-14
    # the initial loss is initial-loss's at that logit std (768 = 256*3: S = 0.32*sqrt(3))
    direct = initial_loss(vocab=50257, logit_std=mpmath.nstr(logit_std, 40), digits=15)
    assert doc["results"]["initial_loss"]["decimal"] == direct["initial_loss"].decimal(15)
    assert {verdict(doc, c) for c in ("initial_loss", "depth_scaling", "residual_growth", "tied_head")} == {
        "ok"
    }


def test_llama2_7b_gated_mlp_by_hand(published):
    code, doc = published["llama2_7b.json"]
    assert code == 0
    with mp.workdps(30):
        s2, d, f = mpmath.mpf("0.02") ** 2, 4096, 11008
        second, _ = gaussian_second(silu, s2 * d)
        want = s2 * f * (s2 * d) * second
        got = mpmath.mpf(doc["results"]["mlp_variance"]["decimal"][0])
        assert abs(got - want) < 1e-12 * want
    assert verdict(doc, "residual_growth") == "warn"  # HF's Llama init has no depth scaling
    assert verdict(doc, "tied_head") == "ok" and verdict(doc, "initial_loss") == "ok"
    assert abs(float(value(doc, "output_logit_std")) - 0.02 * 64) < 1e-12


def test_t5_small_untied_head_is_flagged(published):
    code, doc = published["t5_small_untied.json"]
    assert code == 1  # a wrong verdict fails the call, for CI
    excess = value(doc, "excess")
    assert 50 < excess < 120  # tens of nats above ln V (PR #26441 measured about 110 on real text)
    assert abs(value(doc, "output_logit_std") - mpmath.sqrt(512)) < 1e-13
    assert verdict(doc, "initial_loss") == "wrong" and verdict(doc, "tied_head") == "wrong"
    head = next(row for row in doc["parameters"] if row["group"] == "head")
    assert head["std"] == "1.00000" and "lm_head" in head["call"] and "modeling_t5.py" in head["source"]
    # T5's attention: q drawn at (d_model*d_kv)^-1/2 and no 1/sqrt(d) scaling: logits of std 1
    assert abs(value(doc, "attention_logit_std") - 1) < 1e-14


def test_t5_small_tied_is_fine(tmp_path):
    config = json.loads((FIXTURES / "t5_small_untied.json").read_text())
    config["tie_word_embeddings"] = True
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    result = init_report(path, digits=10)
    assert abs(float(result.value("output_logit_std")) - 1) < 1e-12  # shared at std 1, rescaled by d**-0.5
    assert all(v["verdict"] != "wrong" for v in result.extra["verdicts"])


def test_bert_base_post_norm(published):
    code, doc = published["bert_base.json"]
    assert code == 0
    assert all(x == "1.00000000000000" for x in doc["results"]["residual_second_moment"]["decimal"])
    assert abs(value(doc, "output_logit_std") - mpmath.mpf("0.02") * mpmath.sqrt(768)) < 1e-14


def test_gpt2_without_residual_scaling_is_flagged():
    scaled = init_report(FIXTURES / "gpt2_small_scaled.toml", digits=8)
    unscaled = init_report(FIXTURES / "gpt2_small_unscaled.toml", digits=8)
    growth = {v["check"]: v["verdict"] for v in unscaled.extra["verdicts"]}
    assert growth["residual_growth"] == "warn"
    assert {v["check"]: v["verdict"] for v in scaled.extra["verdicts"]}["residual_growth"] == "ok"
    assert float(unscaled.value("residual_growth")) > 20 * float(scaled.value("residual_growth"))
    # the description and the HF config replay the same init
    hf = init_report(FIXTURES / "gpt2_small.json", digits=8)
    assert hf["residual_growth"].decimal(8) == scaled["residual_growth"].decimal(8)


def test_torchtitan_rules():
    result = init_report(FIXTURES / "llama2_7b.json", library="torchtitan", digits=8)
    rows = {row["group"]: row for row in result.extra["parameters"]}
    assert rows["q"]["fires"] == "never" and rows["q"]["truncation"] == "±100.0 std"
    assert rows["head"]["fires"] == "yes" and rows["head"]["truncation"] == "±3.000 std"
    found = {(v["check"], v["parameter"]): v["verdict"] for v in result.extra["verdicts"]}
    assert found[("truncation", "q")] == "warn"
    assert found[("depth_scaling", "up")] == "warn"  # w3 depth-scaled like w2 (torchtitan #1257)
    # the head's std after truncation at ±3 sigma: sqrt(gamma(3))/64
    with mp.workdps(30):
        gamma = 1 - 6 * mpmath.npdf(3) / mpmath.erf(3 / mpmath.sqrt(2))
        assert rows["head"]["std"] == mpmath.nstr(mpmath.sqrt(gamma) / 64, 6, strip_zeros=False)


@pytest.mark.parametrize("library", ["nanogpt", "megatron", "olmo"])
def test_other_libraries_replay(library):
    result = init_report(FIXTURES / "gpt2_small.json", library=library, digits=6)
    sources = {row["source"].split(",")[0] for row in result.extra["parameters"]}
    assert sources == {{"nanogpt": "nanoGPT", "megatron": "Megatron-LM", "olmo": "OLMo"}[library]}
    assert result.inputs["library"] == library


DESCRIPTION = """
[model]
vocab = {vocab}
width = {width}
layers = {layers}
heads = {heads}
ffn = {ffn}
activation = "{activation}"
norm = "{norm}"
placement = "{placement}"
tied = {tied}
seq_len = 1
positions = "learned"
embedding_norm = {embedding_norm}

[init]
std = {std}
embedding_std = {embedding_std}
residual_scaling = "{scaling}"
"""

CASES = {
    "pre-norm gelu, tied, depth-scaled": {
        "activation": "gelu_tanh",
        "norm": "layernorm",
        "placement": "pre",
        "tied": "true",
        "scaling": "1/sqrt(2L)",
        "std": "0.1",
        "embedding_std": "0.05",
        "embedding_norm": "false",
    },
    "pre-norm swiglu, untied, no scaling": {
        "activation": "swiglu",
        "norm": "rmsnorm",
        "placement": "pre",
        "tied": "false",
        "scaling": "none",
        "std": "0.04",
        "embedding_std": "0.5",
        "embedding_norm": "false",
    },
    "post-norm relu, untied": {
        "activation": "relu",
        "norm": "layernorm",
        "placement": "post",
        "tied": "false",
        "scaling": "none",
        "std": "0.08",
        "embedding_std": "1",
        "embedding_norm": "true",
    },
    "pre-norm geglu, tied, per-layer scaling": {
        "activation": "geglu",
        "norm": "rmsnorm",
        "placement": "pre",
        "tied": "true",
        "scaling": "1/sqrt(2(l+1))",
        "std": "0.1",
        "embedding_std": "0.05",
        "embedding_norm": "false",
    },
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_simulation_agrees_within_monte_carlo_error(case, tmp_path):
    path = tmp_path / "model.toml"
    path.write_text(DESCRIPTION.format(vocab=1000, width=256, layers=4, heads=4, ffn=512, **CASES[case]))
    result = init_report(path, simulate=True, seed=7, trials=24, simulate_width=64, digits=6)
    zs = [float(row["z"]) for row in result.extra["simulation"]]
    assert len(zs) >= 4 + 3 * 4
    assert max(abs(z) for z in zs) < 4.5, result.extra["simulation"]
    loss = result["simulated_initial_loss"]
    assert loss.stderr is not None and not loss.certified


BAD = [
    ({"model_type": "gpt2", "vocab_size": 50257, "n_layer": 12, "n_head": 12}, "'n_embd'"),
    ({"model_type": "falcon", "vocab_size": 3}, "'falcon'"),
    ({"model_type": "gpt2", "vocab_size": 50257, "n_embd": 10**9, "n_layer": 12, "n_head": 12}, "'n_embd'"),
    (
        {
            "model_type": "llama",
            "vocab_size": 32000,
            "hidden_size": 4096,
            "num_hidden_layers": 2,
            "num_attention_heads": 32,
        },
        "'intermediate_size'",
    ),
    ({"model_type": "gpt2", "vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 7}, "'n_head'"),
    (
        {"model_type": "gpt2", "vocab_size": "many", "n_embd": 768, "n_layer": 12, "n_head": 12},
        "'vocab_size'",
    ),
    ({"hello": 1}, "'model_type'"),
]


@pytest.mark.parametrize("config,key", BAD)
def test_bad_configs_exit_2_naming_the_key(config, key, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    run = invoke("init-report", str(path))
    assert run.code == 2 and key in run.stderr and run.stdout == "", run
    assert run.stderr.count("\n") == 1 and "CONFIG" in run.stderr


def test_unreadable_and_unparsable(tmp_path):
    run = invoke("init-report", str(tmp_path / "missing.json"))
    assert run.code == 2 and "is not a file" in run.stderr
    (tmp_path / "broken.json").write_text("{not json")
    run = invoke("init-report", str(tmp_path / "broken.json"), "--json")
    assert run.code == 2 and run.json()["error"]["code"] == 2
    run = invoke("init-report", str(FIXTURES / "gpt2_small.json"), "--library", "jax")
    assert run.code == 2 and "--library" in run.stderr


def test_ci_formats_point_at_the_config():
    path = str(FIXTURES / "t5_small_untied.json")
    run = invoke("init-report", path, "--format", "github")
    assert run.code == 1
    lines = run.stdout.splitlines()
    assert lines and all(line.startswith("::") for line in lines)
    assert any(
        line.startswith("::error file=") and ",line=14," in line for line in lines
    )  # tie_word_embeddings
    run = invoke("init-report", path, "--format", "sarif")
    sarif = json.loads(run.stdout)
    results = sarif["runs"][0]["results"]
    assert {r["level"] for r in results} == {"error"} and results[0]["locations"][0]["physicalLocation"][
        "region"
    ]["startLine"] == 14


def test_expect_and_get():
    path = str(FIXTURES / "gpt2_small.json")
    run = invoke("init-report", path, "--get", "initial_loss", "--get", "output_logit_std", "--digits", "6")
    assert run.code == 0 and run.stdout == "10.9785\t0.554256\n"
    run = invoke("init-report", path, "--expect", "initial_loss=10.97850")
    assert run.code == 0, run.stderr
    run = invoke("init-report", path, "--expect", "initial_loss=10.82490")
    assert run.code == 1 and "initial_loss" in run.stderr


def test_width_tables_flag_a_contradiction():
    result = init_report(FIXTURES / "gpt2_small.json", parametrization="ntp", base_width=256, digits=6)
    assert result.inputs["parametrization"] == "ntk"
    rows = {row["group"]: row for row in result.extra["width"]}
    assert rows["q"]["forward"] == "m^-0.5 = 0.57735" and rows["q"]["code_init_std"] == "1"
    # no published Adam rule for the NTK parametrization: n/a, with the reason in a note
    assert {row["lr_adam"] for row in rows.values()} == {"n/a"}
    assert any("no Adam rule is published" in note for note in result.notes)
    umup = init_report(FIXTURES / "gpt2_small.json", parametrization="umup", base_width=256, digits=6)
    rows = {row["group"]: row for row in umup.extra["width"]}
    assert rows["q"]["lr_adam"] == "m^-0.5 = 0.57735" and rows["head"]["lr_adam"] == "1"
    assert {row["lr_sgd"] for row in rows.values()} == {"n/a"}
    assert any("lr_scale_func_adam" in note for note in umup.notes)
    mup = init_report(FIXTURES / "gpt2_small.json", parametrization="mup", base_width=256, digits=6)
    rows = {row["group"]: row for row in mup.extra["width"]}
    assert rows["head"]["init_std"] == "m^-1 = 0.333333" and rows["q"]["lr_adam"] == "m^-1 = 0.333333"
    flagged = {v["parameter"] for v in mup.extra["verdicts"] if v["check"] == "width"}
    assert {"head", "q", "q, k"} <= flagged
    # muP's 1/d attention scale in the forward figures: logits 1/sqrt(64) of SP's
    sp = float(init_report(FIXTURES / "gpt2_small.json", digits=6).value("attention_logit_std"))
    assert abs(float(mup.value("attention_logit_std")) - sp / 8) < 1e-12
    run = invoke("init-report", str(FIXTURES / "gpt2_small.json"), "--parametrization", "mup")
    assert run.code == 2 and "--base-width" in run.stderr


# A grid of step 1/10 on [-20, 20] by default (the sups lie near 0, where every bound is met with
# room to spare); the step 1/50 grid (2.3 s of CPU) with -m reference.
@pytest.mark.parametrize("per_unit", [10, pytest.param(50, marks=pytest.mark.reference)])
def test_lipschitz_bounds_of_the_activations(per_unit):
    """gaussian.LIPSCHITZ: sup|φ'| and sup|φ''| stay below the bounds on a fine grid."""
    from momentcalc.computations.init_report.gaussian import LIPSCHITZ
    from momentcalc.catalog import resolve

    for name, (l1, l2) in LIPSCHITZ.items():
        act = resolve(name)
        with mp.workdps(20):
            for i in range(-20 * per_unit, 20 * per_unit + 1):
                x = mpmath.mpf(i) / per_unit + mpmath.mpf(1) / 977  # (off relu's kink)
                assert abs(act.derivative(x, {})) <= mpmath.mpf(l1.numerator) / l1.denominator, (name, x)
                if l2:
                    second = mpmath.diff(lambda t: act.derivative(t, {}), x)
                    assert abs(second) <= mpmath.mpf(l2.numerator) / l2.denominator, (name, x)


@pytest.mark.parametrize("positions", [20001, 131072])
def test_long_contexts_use_the_exact_harmonic_number(tmp_path, positions):
    """Llama-3's 131072 positions (Mistral's 32768, Qwen2's ...): the attention output's variance
    is Var(v)·H_T/T, with H_T by mpmath; was a fixed-width ball that could not reach 15 digits,
    three minutes of CPU and then exit 2 naming a --digits of 1563."""
    config = json.loads((FIXTURES / "llama2_7b.json").read_text())
    config["max_position_embeddings"] = positions
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    result = init_report(path)
    with mp.workdps(30):
        values = 4096 * mpmath.mpf("0.02") ** 2  # the normed stream (1) through v_proj
        want = values * mpmath.harmonic(positions) / positions
        got = mpmath.mpf(mpmath.nstr(result.value("attention_output_variance")[0], 20))
        assert abs(got - want) < 1e-14 * want


def test_tied_t5_own_logit_is_rescaled_like_the_output(tmp_path):
    """T5 ties its head and multiplies the decoder output by d_model^-0.5 (as output_logit_std does):
    each token's own logit is |e|²·d^-0.5/rms(x_L) = sqrt(512/q_L) ≈ 11.19, not 253.1."""
    config = json.loads((FIXTURES / "t5_small_untied.json").read_text())
    config["tie_word_embeddings"] = True
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    result = init_report(path, digits=10)
    q_last = float(result.value("final_residual_second_moment"))
    shift = math.sqrt(512 / q_last)
    tied = next(v for v in result.extra["verdicts"] if v["check"] == "tied_head")
    assert f"sits near {shift:.4g} " in tied["message"] and 11 < shift < 12
    # one logit of 32128 moved from about N(0, 1) to the shift: about 0.86 nats
    impact = math.log1p((math.exp(shift) - math.exp(0.5)) / (32128 * math.exp(0.5)))
    assert f"adding about {impact:.2g} nats" in tied["message"] and tied["verdict"] == "warn"


@pytest.mark.parametrize("table, key", [("init", "residual_scalng"), ("model", "widht"), ("init", "foo")])
def test_a_description_key_it_does_not_have_is_exit_2(tmp_path, table, key):
    """A misspelt key in a model description was read as its default, silently (residual
    growth 1973.71, the unscaled figure, for a description that meant 1/sqrt(2L))."""
    text = (FIXTURES / "gpt2_small_scaled.toml").read_text()
    text = text.replace(f"[{table}]\n", f"[{table}]\n{key} = 1\n", 1)
    path = tmp_path / "model.toml"
    path.write_text(text)
    run = invoke("init-report", str(path))
    assert run.code == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert f"[{table}] has no key {key!r}" in run.stderr
