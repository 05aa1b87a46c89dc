"""The fixed command lines whose exact output ``tests/test_snapshots.py`` compares byte for byte.

Each case is (name, argv). ``tests/snapshots/NAME.out`` holds its stdout, ``NAME.err`` its stderr
(only when there is any) and ``exit_codes.json`` every exit code. After a deliberate change of
output, regenerate with ``python scripts/update_snapshots.py`` and review the diff.
"""

from __future__ import annotations

CASES: list[tuple[str, tuple[str, ...]]] = [
    # every computing command at its defaults
    ("truncnorm", ("truncnorm", "--json")),
    ("activation_moment_gelu", ("activation-moment", "gelu", "--json")),
    ("activation_moment_tanh", ("activation-moment", "tanh", "--json", "--digits", "30")),
    ("activation_moment_sigmoid", ("activation-moment", "sigmoid", "--json")),
    ("activation_moment_relu", ("activation-moment", "relu", "--json")),
    ("activation_moment_swish", ("activation-moment", "swish", "--json", "--mean", "0.5", "--std", "2")),
    ("activation_moment_softplus", ("activation-moment", "softplus", "--json", "--mean", "-0.3")),
    ("activation_moment_leaky_relu", ("activation-moment", "leaky_relu", "--json")),
    (
        "activation_moment_expression",
        ("activation-moment", "x*tanh(log(1+exp(x)))", "--json", "--digits", "20"),
    ),
    ("activation_moment_expression_abs", ("activation-moment", "abs(x)+max(x,0.5)", "--json")),
    ("selu_solve", ("selu-solve", "--json")),
    ("selu_solve_32", ("selu-solve", "--json", "--digits", "32")),
    ("postnorm_decay", ("postnorm-decay", "--json")),
    ("postnorm_decay_pre", ("postnorm-decay", "--json", "--scheme", "pre")),
    ("postnorm_decay_deepnorm", ("postnorm-decay", "--json", "--scheme", "deepnorm", "--layers", "100")),
    ("postnorm_decay_deepnorm_alpha", ("postnorm-decay", "--json", "--scheme", "deepnorm", "--alpha", "2")),
    (
        "postnorm_decay_deepnet_encdec",
        (
            "postnorm-decay",
            "--json",
            "--scheme",
            "deepnorm",
            "--arch",
            "encdec",
            "--layers",
            "12",
            "--decoder-layers",
            "6",
        ),
    ),
    (
        "postnorm_decay_post_sigma",
        ("postnorm-decay", "--json", "--scheme", "post", "--sigma", "0.02", "--layers", "50"),
    ),
    ("gau_scale", ("gau-scale", "--json")),
    ("gau_scale_relu", ("gau-scale", "--json", "--activation", "relu", "--init-std", "0.02")),
    ("gau_scale_expression", ("gau-scale", "--json", "--activation", "x*sigmoid(x)")),
    ("init", ("init", "--json", "--fan-in", "768")),
    (
        "init_xavier_truncnorm",
        (
            "init",
            "--json",
            "--fan-in",
            "768",
            "--fan-out",
            "512",
            "--scheme",
            "xavier",
            "--distribution",
            "truncnorm",
        ),
    ),
    ("init_he_uniform", ("init", "--json", "--fan-in", "512", "--scheme", "he", "--distribution", "uniform")),
    (
        "init_he_gelu",
        ("init", "--json", "--fan-in", "1024", "--scheme", "he", "--activation", "gelu", "--digits", "30"),
    ),
    (
        "init_residual_tfixup",
        ("init", "--json", "--fan-in", "512", "--residual", "tfixup-encoder", "--layers", "6"),
    ),
    (
        "init_he_leaky",
        (
            "init",
            "--json",
            "--fan-in",
            "100",
            "--scheme",
            "he",
            "--activation",
            "leaky_relu",
            "--slope",
            "0.2",
        ),
    ),
    ("attention", ("attention", "--json")),
    ("initial_loss", ("initial-loss", "--json")),
    ("initial_loss_t5_untied", ("initial-loss", "--vocab", "32128", "--logit-std", "22.6")),
    (
        "initial_loss_derive",
        ("initial-loss", "--vocab", "2", "--logit-std", "1", "--digits", "30", "--derive", "--json"),
    ),
    ("meanfield_relu", ("meanfield", "relu", "--json", "--sigma-w2", "1.5", "--sigma-b2", "0.1", "--derive")),
    ("meanfield_tanh_critical", ("meanfield", "tanh", "--json", "--sigma-b2", "0.05", "--critical")),
    ("kernel_relu_derive", ("kernel", "relu", "--json", "--rho", "0.5", "--derive")),
    ("kernel_tanh_sweep", ("kernel", "tanh", "--json", "--rho", "-1:1:0.5", "--digits", "10")),
    ("kernel_erf_depth", ("kernel", "erf", "--json", "--rho", "0.2", "--depth", "3", "--sigma-w2", "1.5")),
    ("hermite_tanh_dual", ("hermite", "tanh", "--json", "--terms", "6", "--rho", "0.5")),
    ("kernel_glu_depth", ("kernel", "glu", "--json", "--rho", "0.5", "--depth", "3", "--sigma-w2", "3")),
    ("hermite_swiglu_dual", ("hermite", "swiglu", "--json", "--terms", "5", "--rho", "0.5")),
    ("tat_leaky_relu", ("tat", "leaky_relu", "--json", "--depth", "10", "--target-c0", "0.5")),
    ("tat_softplus", ("tat", "softplus", "--json", "--depth", "10", "--target-slope", "1.5")),
    # sweeps: lists and ranges
    ("truncnorm_sweep_list", ("truncnorm", "--json", "--std", "0.01,0.02,1")),
    ("truncnorm_sweep_range", ("truncnorm", "--json", "--high", "1:3:0.5")),
    (
        "activation_moment_sweep_slope",
        ("activation-moment", "leaky_relu", "--json", "--slope", "0.1,0.2,0.3"),
    ),
    ("activation_moment_sweep_std", ("activation-moment", "gelu", "--json", "--std", "0.5:2:0.5")),
    ("selu_solve_sweep", ("selu-solve", "--json", "--input-std", "0.5,1,2")),
    ("postnorm_decay_sweep", ("postnorm-decay", "--json", "--sigma", "0.1,0.5,1", "--threshold", "0.5")),
    ("gau_scale_sweep", ("gau-scale", "--json", "--n", "128,512,2048")),
    ("init_sweep", ("init", "--json", "--fan-in", "64,256,1024", "--scheme", "he")),
    ("attention_sweep", ("attention", "--json", "--d", "64:256:64")),
    ("attention_sweep_two_axes", ("attention", "--json", "--d", "16,64", "--q-std", "0.5,1")),
    # --derive
    ("truncnorm_derive", ("truncnorm", "--json", "--derive")),
    ("activation_moment_relu_derive", ("activation-moment", "relu", "--json", "--derive")),
    ("attention_derive", ("attention", "--json", "--derive")),
    ("postnorm_decay_derive", ("postnorm-decay", "--json", "--derive")),
    ("init_derive", ("init", "--json", "--fan-in", "768", "--derive")),
    # --expect
    ("expect_pass", ("truncnorm", "--json", "--expect", "gamma=0.7737413")),
    ("expect_fail", ("truncnorm", "--json", "--expect", "gamma=0.7737415")),
    ("expect_rtol", ("activation-moment", "gelu", "--json", "--expect", "gain=1.53", "--rtol", "0.01")),
    # errors (exit 2): JSON error documents and stderr wording
    ("error_json_std", ("truncnorm", "--json", "--std", "-1")),
    ("error_std", ("truncnorm", "--std", "-1")),
    ("error_std_text", ("truncnorm", "--std", "abc")),
    ("error_activation_unknown", ("activation-moment", "nosuch", "--json")),
    ("error_activation_diverges", ("activation-moment", "exp(x**2)")),
    ("error_activation_std", ("activation-moment", "gelu", "--std", "0")),
    ("error_activation_slope", ("activation-moment", "gelu", "--slope", "0.1")),
    ("error_gau_activation", ("gau-scale", "--activation", "nosuch")),
    ("error_gau_diverges", ("gau-scale", "--activation", "exp(x**2)", "--json")),
    ("error_init_activation", ("init", "--fan-in", "10", "--scheme", "he", "--activation", "nosuch")),
    ("error_init_slope", ("init", "--fan-in", "10", "--slope", "0.1")),
    ("error_digits", ("truncnorm", "--digits", "0")),
    ("error_format", ("truncnorm", "--format", "xml")),
    ("error_selu_ratio", ("selu-solve", "--target-mean", "0.9", "--json")),
    # simulations with small fixed seeds and trials
    (
        "gau_scale_simulate",
        (
            "gau-scale",
            "--json",
            "--simulate",
            "--seed",
            "3",
            "--trials",
            "2",
            "--s",
            "8",
            "--n",
            "16",
            "--d",
            "32",
            "--e",
            "64",
        ),
    ),
    (
        "gau_scale_seed_sweep",
        (
            "gau-scale",
            "--json",
            "--simulate",
            "--seed",
            "0,1",
            "--trials",
            "2",
            "--s",
            "8",
            "--n",
            "16",
            "--d",
            "32",
            "--e",
            "64",
        ),
    ),
    ("gau_scale_leaky_slope", ("gau-scale", "--json", "--activation", "leaky_relu", "--slope", "0.2")),
    (
        "attention_simulate",
        ("attention", "--json", "--seq-len", "64", "--simulate", "--trials", "200", "--seed", "1"),
    ),
    # listings and verify
    ("verify", ("verify", "--json")),
    ("constants", ("constants", "--json")),
    ("activations", ("activations", "--json")),
    ("identify", ("identify", "1.7139588594436646", ".87962566103423978", "--json")),
    ("audit", ("audit", "tests/fixtures/audit", "--json")),
    # init-report: published configs (written from their hyperparameters) and CI formats
    ("init_report_gpt2", ("init-report", "tests/fixtures/init_report/gpt2_small.json", "--json")),
    (
        "init_report_t5_text",
        ("init-report", "tests/fixtures/init_report/t5_small_untied.json", "--digits", "6"),
    ),
    (
        "init_report_t5_github",
        ("init-report", "tests/fixtures/init_report/t5_small_untied.json", "--format", "github"),
    ),
    (
        "init_report_llama_torchtitan",
        (
            "init-report",
            "tests/fixtures/init_report/llama2_7b.json",
            "--library",
            "torchtitan",
            "--digits",
            "6",
        ),
    ),
    (
        "init_report_gpt2_mup",
        (
            "init-report",
            "tests/fixtures/init_report/gpt2_small.json",
            "--parametrization",
            "mup",
            "--base-width",
            "256",
            "--digits",
            "6",
            "--json",
        ),
    ),
    ("audit_text", ("audit", "tests/fixtures/audit")),
    ("audit_github", ("audit", "tests/fixtures/audit", "--format", "github")),
    # tables (at 100 columns: --format table, as on a terminal), plain text (the default off a
    # terminal, as here) and CSV
    ("truncnorm_table", ("truncnorm", "--std", "0.02", "--digits", "20", "--format", "table")),
    ("postnorm_decay_table", ("postnorm-decay", "--layers", "6", "--format", "table")),
    ("activation_moment_sweep_table", ("activation-moment", "gelu", "--std", "0.5,1", "--format", "table")),
    ("truncnorm_text", ("truncnorm", "--std", "0.02", "--digits", "20")),
    ("postnorm_decay_text", ("postnorm-decay", "--layers", "6")),
    ("activation_moment_sweep_text", ("activation-moment", "gelu", "--std", "0.5,1")),
    ("truncnorm_expect_text", ("truncnorm", "--std", "0.01,0.02", "--expect", "std=0.0176")),
    (
        "attention_simulate_text",
        ("attention", "--seq-len", "64", "--simulate", "--trials", "200", "--seed", "1"),
    ),
    ("activations_text", ("activations",)),
    ("truncnorm_csv", ("truncnorm", "--format", "csv", "--std", "0.01,0.02")),
    ("init_csv", ("init", "--format", "csv", "--fan-in", "64,256,1024", "--scheme", "he")),
    ("postnorm_decay_csv", ("postnorm-decay", "--format", "csv", "--layers", "5")),
    ("activations_csv", ("activations", "--format", "csv")),
    # initializer: what framework init calls sample (BERT, timm, Keras, PyTorch's Linear)
    ("initializer_bert", ("initializer", "tf.random.truncated_normal", "--stddev", "0.02", "--json")),
    ("initializer_timm", ("initializer", "torch.nn.init.trunc_normal_", "--std", "0.02", "--json")),
    (
        "initializer_keras_variance_scaling",
        (
            "initializer",
            "tf.keras.initializers.VarianceScaling",
            "--fan-in",
            "768",
            "--digits",
            "20",
            "--json",
        ),
    ),
    ("initializer_linear", ("initializer", "torch.nn.Linear", "--fan-in", "768", "--json")),
    (
        "initializer_jax_sweep",
        (
            "initializer",
            "jax.nn.initializers.variance_scaling",
            "--scale",
            "2",
            "--mode",
            "fan_avg",
            "--distribution",
            "uniform",
            "--fan-in",
            "64,256",
            "--fan-out",
            "128",
            "--json",
        ),
    ),
    (
        "initializer_table",
        (
            "initializer",
            "torch.nn.init.kaiming_normal_",
            "--fan-in",
            "512",
            "--nonlinearity",
            "relu",
            "--format",
            "table",
        ),
    ),
    (
        "initializer_csv",
        ("initializer", "tf.keras.initializers.HeNormal", "--fan-in", "64,256", "--format", "csv"),
    ),
    ("initializers", ("initializers", "--json")),
    ("error_initializer_name", ("initializer", "trunc_normal", "--json")),
    ("error_initializer_bounds", ("initializer", "torch.nn.init.trunc_normal_", "--a", "2", "--b", "-2")),
]

# What a person reads at a narrow, a common and a wide terminal (``--format table`` stands for
# the terminal; help is laid out by the same width), and piped (the default off a terminal,
# which must not depend on the width): (name, argv), each run at every width in WIDTHS and
# stored as NAME_WIDTH.
WIDTHS = (60, 80, 120)
WIDTH_CASES: list[tuple[str, tuple[str, ...]]] = [
    ("wide_values_table", ("selu-solve", "--digits", "50", "--format", "table")),
    ("sweep_table", ("truncnorm", "--std", "0.01,0.02", "--low", "-1,-2", "--format", "table")),
    ("verify_table", ("verify", "--only", "selu", "--format", "table")),
    ("activations_table", ("activations", "--format", "table")),
    ("wide_values_piped", ("selu-solve", "--digits", "50")),
    ("sweep_piped", ("truncnorm", "--std", "0.01,0.02", "--low", "-1,-2")),
    ("verify_piped", ("verify", "--only", "selu")),
    ("help", ("--help",)),
    ("help_truncnorm", ("truncnorm", "--help")),
    ("help_meanfield", ("meanfield", "--help")),
]
SIZED_CASES: list[tuple[str, int, tuple[str, ...]]] = [
    (f"{name}_{width}", width, argv) for name, argv in WIDTH_CASES for width in WIDTHS
]


def run_sized_case(width: int, argv: tuple[str, ...]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``momentcalc ARGV`` in-process at ``width`` columns."""
    from tests.cli_runner import run

    return run(argv, env={"COLUMNS": str(width)})


def run_case(argv: tuple[str, ...]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``momentcalc ARGV`` in-process at a fixed 100 columns, as a
    fresh process prints it: Arb's global caches are emptied first (its Gauss-Legendre nodes are
    kept at the highest precision any integral asked, and later integrals at lower precision
    start from them: the same proven digits, but error bounds that depend on which cases ran
    before in this process, so that a case passed or failed with the order and the worker)."""
    from flint import ctx

    from tests.cli_runner import run

    ctx.cleanup()
    return run(argv, env={"COLUMNS": "100"})
