"""A transformer's shape and init scheme, read from a Hugging Face ``config.json`` or from a small
model description (JSON, TOML, or YAML where PyYAML is installed).

A Hugging Face config is recognised by its ``model_type``: ``gpt2``, ``llama``, ``mistral``,
``qwen2``, ``t5``, ``bert``, ``gpt_neox``; the keys each family's configuration class reads, with
that class's defaults where a key is left out (``n_inner`` None is 4·``n_embd`` …), and the
structural ones (vocabulary, width, layers, heads) required. A description has a ``[model]``
table (``vocab``, ``width``, ``layers``, ``heads``, ``ffn``, ``activation``, optional ``kv_heads``,
``head_dim``, ``norm``, ``placement``, ``tied``, ``seq_len``, ``positions``) and an ``[init]``
table (``std``, ``embedding_std``, ``head_std``, ``truncation`` in σ or ``truncation_absolute``,
``residual_scaling``): see the README.

Every error is an InputError naming the key (exit 2).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

from ...engine.numbers import as_number, to_text
from ...errors import InputError

FAMILIES = ("gpt2", "llama", "mistral", "qwen2", "t5", "bert", "gpt_neox")
# Sizes beyond these are refused as absurd (a typo: a width of 4e9).
LIMITS = {"vocab": 10**8, "width": 10**6, "layers": 10**5, "heads": 10**5, "ffn": 10**7, "seq_len": 10**8}
# Activations a feed-forward layer may use: name in the config -> catalog name.
ACTIVATIONS = {
    "gelu": "gelu",
    "gelu_new": "gelu_tanh",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_fast": "gelu_tanh",
    "gelu_tanh": "gelu_tanh",
    "relu": "relu",
    "silu": "swish",
    "swish": "swish",
    "quick_gelu": "quick_gelu",
}
# Gated feed-forward units: name -> the gate's catalog activation.
GATED = {"swiglu": "swish", "geglu": "gelu", "reglu": "relu", "geglu_tanh": "gelu_tanh"}
MAX_CONFIG_BYTES = 4 << 20


class Init(NamedTuple):
    """A description's own init scheme (library ``custom``): variances are exact."""

    std: Fraction
    embedding_std: Fraction
    head_std: Fraction | None  # None: the embedding's (tied) or std
    truncation: tuple[str, Fraction] | None  # ("sigma", c) or ("absolute", a): ±c·std or ±a
    residual_scaling: str  # none | 1/sqrt(2L) | 1/sqrt(2(l+1)) | 1/sqrt(L)


class Model(NamedTuple):
    """What the report needs of a model, whatever file it came from."""

    family: str  # a transformers model_type, or "custom"
    vocab: int
    width: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    activation: str  # catalog name of the activation (the gate's for a gated unit)
    gated: bool
    norm: str  # layernorm | rmsnorm
    placement: str  # pre | post | deepnorm
    tied: bool
    seq_len: int
    causal: bool
    positions: str  # learned | rotary | relative
    type_vocab: int  # BERT's token types (0: none)
    embedding_norm: bool  # a norm right after the embeddings (BERT)
    attention_scale: str  # "1/sqrt(d)" | "1" (T5) | "1/d" (muP)
    decoder_layers: int  # encoder-decoder (T5): the decoder's layers, 0 otherwise
    parallel_residual: bool  # GPT-NeoX: x + attn(ln1 x) + mlp(ln2 x)
    settings: Mapping[str, Any]  # the family's init settings (initializer_range, factor, ...)
    init: Init | None  # a description's init table
    keys: Mapping[str, str]  # our field -> the key the file spells it with (messages)
    path: str


def head_rescale2(model: Model) -> Fraction:
    """The square of the factor the model multiplies the final hidden state by before a tied head:
    d_model^-1 for T5 (transformers, models/t5/modeling_t5.py, T5ForConditionalGeneration.forward:
    ``sequence_output * (self.model_dim**-0.5)`` when the embeddings are tied), else 1."""
    return Fraction(1, model.width) if model.family == "t5" and model.tied else Fraction(1)


def read_config(path: object) -> tuple[Model, str]:
    """The model described by the file at ``path`` and the text read (for line numbers)."""
    name = str(path)
    file = Path(name)
    try:
        if not file.is_file():
            raise InputError(f"{{config}} {name!r} is not a file", param="config")
        if file.stat().st_size > MAX_CONFIG_BYTES:
            raise InputError(
                f"{{config}} {name!r} is larger than {MAX_CONFIG_BYTES >> 20} MiB", param="config"
            )
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(
            f"{{config}} {name!r} cannot be read: {error.__class__.__name__}", param="config"
        ) from None
    data = parse_text(text, file.suffix.lower(), name)
    return model_of(data, name), text


def parse_text(text: str, suffix: str, name: str) -> Mapping[str, Any]:
    """The document in ``text``: JSON, TOML (``.toml``) or YAML (``.yaml``/``.yml``, PyYAML)."""
    try:
        if suffix == ".toml":
            import tomllib

            data: Any = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:
                raise InputError(
                    f"{{config}} {name!r} is YAML, which needs PyYAML (pip install pyyaml); "
                    "or write the description as TOML or JSON",
                    param="config",
                ) from None
            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except InputError:
        raise
    except Exception as error:  # a parser's own error: the file is not what it claims
        detail = str(error).splitlines()[0][:120] if str(error) else error.__class__.__name__
        raise InputError(f"{{config}} {name!r} cannot be parsed: {detail}", param="config") from None
    if not isinstance(data, Mapping):
        raise InputError(f"{{config}} {name!r} is not a table of keys", param="config")
    return data


def _missing(key: str, where: str) -> InputError:
    return InputError(f"{{config}}: missing key {key!r} ({where})", param="config")


def _whole(
    data: Mapping[str, Any], key: str, where: str, limit: str | None = None, default: Any = None
) -> int:
    value = data.get(key)
    if value is None:  # absent, or null (GPT-2's n_inner: None means 4*n_embd)
        value = default
    if value is None:
        raise _missing(key, where)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"{{config}}: {key!r} must be a whole number, got {value!r}", param="config")
    try:
        number = as_number(value, key)
    except InputError:
        raise InputError(
            f"{{config}}: {key!r} must be a whole number, got {value!r}", param="config"
        ) from None
    if number.denominator != 1 or number < 1:
        raise InputError(
            f"{{config}}: {key!r} must be a whole number >= 1, got {to_text(number)}", param="config"
        )
    top = LIMITS.get(limit or "")
    if top is not None and number > top:
        raise InputError(
            f"{{config}}: {key!r} = {to_text(number)} is absurd for a {limit} (at most {top:.0e})",
            param="config",
        )
    return int(number)


def _number(data: Mapping[str, Any], key: str, default: Any, *, positive: bool = True) -> Fraction:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputError(f"{{config}}: {key!r} must be a number, got {value!r}", param="config")
    try:
        number = Fraction(as_number(str(value) if isinstance(value, float) else value, key))
    except InputError:
        raise InputError(f"{{config}}: {key!r} must be a number, got {value!r}", param="config") from None
    if positive and number <= 0:
        raise InputError(f"{{config}}: {key!r} must be greater than 0, got {to_text(number)}", param="config")
    return number


def _flag(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise InputError(f"{{config}}: {key!r} must be true or false, got {value!r}", param="config")
    return value


def _choice(value: Any, key: str, allowed: Mapping[str, Any] | tuple[str, ...]) -> str:
    text = str(value).strip().lower() if isinstance(value, str) else None
    if text is None or text not in allowed:
        raise InputError(
            f"{{config}}: {key!r} = {value!r} is not one of {', '.join(allowed)}", param="config"
        )
    return text


def _heads(width: int, heads: int, key: str) -> int:
    if width % heads:
        raise InputError(f"{{config}}: {key!r} = {heads} does not divide the width {width}", param="config")
    return width // heads


def model_of(data: Mapping[str, Any], path: str = "") -> Model:
    """The Model of a parsed config (a Hugging Face config or a description)."""
    if "model_type" in data:
        family = data["model_type"]
        if not isinstance(family, str) or family not in FAMILIES:
            raise InputError(
                f"{{config}}: 'model_type' {family!r} is not a family init-report knows "
                f"(known: {', '.join(FAMILIES)}; or write a model description)",
                param="config",
            )
        return _READERS[family](data, path)
    if "model" in data:
        return _description(data, path)
    raise InputError(
        "{config}: missing key 'model_type' (a Hugging Face config.json) or a 'model' table (a description)",
        param="config",
    )


def _gpt2(data: Mapping[str, Any], path: str) -> Model:
    where = "gpt2 config"
    width = _whole(data, "n_embd", where, "width")
    heads = _whole(data, "n_head", where, "heads")
    act = _choice(data.get("activation_function", "gelu_new"), "activation_function", ACTIVATIONS)
    return Model(
        family="gpt2",
        vocab=_whole(data, "vocab_size", where, "vocab"),
        width=width,
        layers=_whole(data, "n_layer", where, "layers"),
        heads=heads,
        kv_heads=heads,
        head_dim=_heads(width, heads, "n_head"),
        ffn=_whole(data, "n_inner", where, "ffn", default=4 * width),
        activation=ACTIVATIONS[act],
        gated=False,
        norm="layernorm",
        placement="pre",
        tied=_flag(data, "tie_word_embeddings", True),
        seq_len=_whole(data, "n_positions", where, "seq_len", default=1024),
        causal=True,
        positions="learned",
        type_vocab=0,
        embedding_norm=False,
        attention_scale="1/sqrt(d)" if _flag(data, "scale_attn_weights", True) else "1",
        decoder_layers=0,
        parallel_residual=False,
        settings={"initializer_range": _number(data, "initializer_range", "0.02")},
        init=None,
        keys={"vocab": "vocab_size", "width": "n_embd", "layers": "n_layer", "std": "initializer_range"},
        path=path,
    )


def _llama(data: Mapping[str, Any], path: str) -> Model:
    family = str(data["model_type"])
    where = f"{family} config"
    width = _whole(data, "hidden_size", where, "width")
    heads = _whole(data, "num_attention_heads", where, "heads")
    kv = _whole(data, "num_key_value_heads", where, "heads", default=heads)
    if heads % kv:
        raise InputError(
            f"{{config}}: 'num_key_value_heads' = {kv} does not divide 'num_attention_heads' = {heads}",
            param="config",
        )
    head_dim = data.get("head_dim")
    act = _choice(data.get("hidden_act", "silu"), "hidden_act", ACTIVATIONS)
    return Model(
        family=family,
        vocab=_whole(data, "vocab_size", where, "vocab"),
        width=width,
        layers=_whole(data, "num_hidden_layers", where, "layers"),
        heads=heads,
        kv_heads=kv,
        head_dim=_heads(width, heads, "num_attention_heads")
        if head_dim is None
        else _whole(data, "head_dim", where),
        ffn=_whole(data, "intermediate_size", where, "ffn"),
        activation=ACTIVATIONS[act],
        gated=True,
        norm="rmsnorm",
        placement="pre",
        tied=_flag(data, "tie_word_embeddings", False),
        seq_len=_whole(data, "max_position_embeddings", where, "seq_len", default=2048),
        causal=True,
        positions="rotary",
        type_vocab=0,
        embedding_norm=False,
        attention_scale="1/sqrt(d)",
        decoder_layers=0,
        parallel_residual=False,
        settings={"initializer_range": _number(data, "initializer_range", "0.02")},
        init=None,
        keys={
            "vocab": "vocab_size",
            "width": "hidden_size",
            "layers": "num_hidden_layers",
            "std": "initializer_range",
        },
        path=path,
    )


def _t5(data: Mapping[str, Any], path: str) -> Model:
    where = "t5 config"
    width = _whole(data, "d_model", where, "width")
    layers = _whole(data, "num_layers", where, "layers")
    proj = data.get("feed_forward_proj", "relu")
    if not isinstance(proj, str):
        raise InputError(f"{{config}}: 'feed_forward_proj' must be text, got {proj!r}", param="config")
    gated = proj.startswith("gated-")
    act = _choice(proj.removeprefix("gated-"), "feed_forward_proj", ACTIVATIONS)
    heads = _whole(data, "num_heads", where, "heads")
    return Model(
        family="t5",
        vocab=_whole(data, "vocab_size", where, "vocab"),
        width=width,
        layers=layers,
        heads=heads,
        kv_heads=heads,
        head_dim=_whole(data, "d_kv", where, "width"),
        ffn=_whole(data, "d_ff", where, "ffn"),
        activation=ACTIVATIONS[act],
        gated=gated,
        norm="rmsnorm",
        placement="pre",
        tied=_flag(data, "tie_word_embeddings", True),
        seq_len=_whole(data, "n_positions", where, "seq_len", default=512),
        causal=True,
        positions="relative",
        type_vocab=0,
        embedding_norm=False,
        attention_scale="1",
        decoder_layers=_whole(data, "num_decoder_layers", where, "layers", default=layers),
        parallel_residual=False,
        settings={"initializer_factor": _number(data, "initializer_factor", "1.0")},
        init=None,
        keys={
            "vocab": "vocab_size",
            "width": "d_model",
            "layers": "num_decoder_layers",
            "std": "initializer_factor",
        },
        path=path,
    )


def _bert(data: Mapping[str, Any], path: str) -> Model:
    where = "bert config"
    width = _whole(data, "hidden_size", where, "width")
    heads = _whole(data, "num_attention_heads", where, "heads")
    act = _choice(data.get("hidden_act", "gelu"), "hidden_act", ACTIVATIONS)
    return Model(
        family="bert",
        vocab=_whole(data, "vocab_size", where, "vocab"),
        width=width,
        layers=_whole(data, "num_hidden_layers", where, "layers"),
        heads=heads,
        kv_heads=heads,
        head_dim=_heads(width, heads, "num_attention_heads"),
        ffn=_whole(data, "intermediate_size", where, "ffn"),
        activation=ACTIVATIONS[act],
        gated=False,
        norm="layernorm",
        placement="post",
        tied=_flag(data, "tie_word_embeddings", True),
        seq_len=_whole(data, "max_position_embeddings", where, "seq_len", default=512),
        causal=False,
        positions="learned",
        type_vocab=int(data.get("type_vocab_size", 2) or 0),
        embedding_norm=True,
        attention_scale="1/sqrt(d)",
        decoder_layers=0,
        parallel_residual=False,
        settings={"initializer_range": _number(data, "initializer_range", "0.02")},
        init=None,
        keys={
            "vocab": "vocab_size",
            "width": "hidden_size",
            "layers": "num_hidden_layers",
            "std": "initializer_range",
        },
        path=path,
    )


def _gpt_neox(data: Mapping[str, Any], path: str) -> Model:
    where = "gpt_neox config"
    width = _whole(data, "hidden_size", where, "width")
    heads = _whole(data, "num_attention_heads", where, "heads")
    act = _choice(data.get("hidden_act", "gelu"), "hidden_act", ACTIVATIONS)
    return Model(
        family="gpt_neox",
        vocab=_whole(data, "vocab_size", where, "vocab"),
        width=width,
        layers=_whole(data, "num_hidden_layers", where, "layers"),
        heads=heads,
        kv_heads=heads,
        head_dim=_heads(width, heads, "num_attention_heads"),
        ffn=_whole(data, "intermediate_size", where, "ffn"),
        activation=ACTIVATIONS[act],
        gated=False,
        norm="layernorm",
        placement="pre",
        tied=_flag(data, "tie_word_embeddings", False),
        seq_len=_whole(data, "max_position_embeddings", where, "seq_len", default=2048),
        causal=True,
        positions="rotary",
        type_vocab=0,
        embedding_norm=False,
        attention_scale="1/sqrt(d)",
        decoder_layers=0,
        parallel_residual=_flag(data, "use_parallel_residual", True),
        settings={"initializer_range": _number(data, "initializer_range", "0.02")},
        init=None,
        keys={
            "vocab": "vocab_size",
            "width": "hidden_size",
            "layers": "num_hidden_layers",
            "std": "initializer_range",
        },
        path=path,
    )


_READERS = {
    "gpt2": _gpt2,
    "llama": _llama,
    "mistral": _llama,
    "qwen2": _llama,
    "t5": _t5,
    "bert": _bert,
    "gpt_neox": _gpt_neox,
}
RESIDUAL_SCALINGS = ("none", "1/sqrt(2L)", "1/sqrt(2(l+1))", "1/sqrt(L)")


# A description's keys (a config.json's extra keys are normal; a description's are typos)
MODEL_KEYS = (
    "vocab", "width", "layers", "heads", "kv_heads", "head_dim", "ffn", "activation", "norm",
    "placement", "tied", "seq_len", "causal", "positions", "embedding_norm",
)  # fmt: skip
INIT_KEYS = ("std", "embedding_std", "head_std", "truncation", "truncation_absolute", "residual_scaling")


def _known_keys(table: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
    """InputError naming the first key of ``table`` a description does not have (a misspelt
    'residual_scalng' was read as the default, silently)."""
    for key in table:
        if key not in known:
            raise InputError(
                f"{{config}}: {where} has no key {key!r}; its keys are {', '.join(known)}", param="config"
            )


def _description(data: Mapping[str, Any], path: str) -> Model:
    model = data["model"]
    init = data.get("init", {})
    if not isinstance(model, Mapping):
        raise InputError("{config}: 'model' must be a table", param="config")
    if not isinstance(init, Mapping):
        raise InputError("{config}: 'init' must be a table", param="config")
    _known_keys(data, ("model", "init"), "the description")
    _known_keys(model, MODEL_KEYS, "[model]")
    _known_keys(init, INIT_KEYS, "[init]")
    where = "model description"
    width = _whole(model, "width", where, "width")
    heads = _whole(model, "heads", where, "heads")
    kv = _whole(model, "kv_heads", where, "heads", default=heads)
    if heads % kv:
        raise InputError(f"{{config}}: 'kv_heads' = {kv} does not divide 'heads' = {heads}", param="config")
    activation = model.get("activation")
    if activation is None:
        raise _missing("activation", where)
    name = _choice(activation, "activation", (*ACTIVATIONS, *GATED))
    gated = name in GATED
    placement = _choice(model.get("placement", "pre"), "placement", ("pre", "post", "deepnorm"))
    std = _number(init, "std", "0.02")
    truncation: tuple[str, Fraction] | None = None
    if "truncation" in init and "truncation_absolute" in init:
        raise InputError(
            "{config}: give 'truncation' (in std) or 'truncation_absolute', not both", param="config"
        )
    if "truncation" in init:
        truncation = ("sigma", _number(init, "truncation", None))
    elif "truncation_absolute" in init:
        truncation = ("absolute", _number(init, "truncation_absolute", None))
    scaling = init.get("residual_scaling", "none")
    if not isinstance(scaling, str) or scaling.replace(" ", "") not in RESIDUAL_SCALINGS:
        raise InputError(
            f"{{config}}: 'residual_scaling' = {scaling!r} is not one of {', '.join(RESIDUAL_SCALINGS)}",
            param="config",
        )
    head_std = init.get("head_std")
    return Model(
        family="custom",
        vocab=_whole(model, "vocab", where, "vocab"),
        width=width,
        layers=_whole(model, "layers", where, "layers"),
        heads=heads,
        kv_heads=kv,
        head_dim=_whole(model, "head_dim", where, "width", default=_heads(width, heads, "heads")),
        ffn=_whole(model, "ffn", where, "ffn"),
        activation=GATED[name] if gated else ACTIVATIONS[name],
        gated=gated,
        norm=_choice(model.get("norm", "layernorm"), "norm", ("layernorm", "rmsnorm")),
        placement=placement,
        tied=_flag(model, "tied", True),
        seq_len=_whole(model, "seq_len", where, "seq_len", default=1024),
        causal=_flag(model, "causal", True),
        positions=_choice(model.get("positions", "rotary"), "positions", ("learned", "rotary", "relative")),
        type_vocab=0,
        embedding_norm=_flag(model, "embedding_norm", False),
        attention_scale="1/sqrt(d)",
        decoder_layers=0,
        parallel_residual=False,
        settings={},
        init=Init(
            std=std,
            embedding_std=_number(init, "embedding_std", str(std)),
            head_std=None if head_std is None else _number(init, "head_std", None),
            truncation=truncation,
            residual_scaling=scaling.replace(" ", ""),
        ),
        keys={"vocab": "vocab", "width": "width", "layers": "layers", "std": "std"},
        path=path,
    )


def key_line(text: str, key: str) -> int:
    """The 1-based line of the first mention of ``key`` in the config's text (1 if none)."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith((f'"{key}"', f"{key} ", f"{key}=", f"{key}:")):
            return number
    return 1


def rsqrt_text(n: int) -> str:
    root = math.isqrt(n)
    return f"1/{root}" if root * root == n else f"1/sqrt({n})"
