"""Copy the weights of Hugging Face `transformers` models into Llama and GPT-2.

`transformers` is the reference implementation of these models: if `LlamaModel`
and `GPT2Model` give the logits of `LlamaForCausalLM` and `GPT2LMHeadModel`
holding the same weights, they compute the same function, and every checkpoint
in `transformers`' format runs in them.

The converters refuse, with a `ValueError` naming the setting, a configuration
whose computation these models do not reproduce (RoPE scaling, biases, sliding
windows, other activations, ...), rather than return a model that differs.

`transformers` is imported only when a converter is called; install the version
pinned in `requirements.txt`.
"""

# --8<-- [start:imports]
from torch import nn

from tutorial_code.gpt2 import GPT2Model
from tutorial_code.llama import LlamaModel

# --8<-- [end:imports]


# --8<-- [start:checks]
def _import_transformers():
    """The `transformers` package, or an ImportError saying how to get it."""
    try:
        import transformers
    except ImportError as error:
        raise ImportError(
            "the converters of tutorial_code.from_transformers "
            "need the transformers package: pip install "
            "transformers, at the version pinned in requirements.txt "
            "(pip install -r requirements.txt installs it)"
        ) from error
    return transformers


def _wrong_class(model: object, wanted: str, base: str) -> str:
    """The message for a model of another class; a hint for one without head."""
    got = type(model).__name__
    hint = f"; load it with {wanted}, which adds the output layer"
    hint = hint if got == base else ""
    return f"model must be a transformers {wanted}, got {got}{hint}"


def _refuse(config: object, setting: str, fix: str) -> None:
    """Raise the ValueError of a setting that this model does not compute."""
    what = type(config).__name__
    message = (
        f"the {what} has {setting}, which this site's model does not compute"
    )
    raise ValueError(f"{message}; {fix}")


def _check_common(config: object) -> None:
    """Refusals for both families: quantized weights, a sliding window."""
    if getattr(config, "quantization_config", None) is not None:
        _refuse(
            config, "quantized weights", "load the model without quantization"
        )
    window = getattr(config, "sliding_window", None)
    if window is not None:
        setting = (
            f"sliding_window={window} (each position sees the last few only)"
        )
        _refuse(config, setting, "this model attends to every earlier position")


def _check_llama_config(config: object) -> None:
    """Refuse RoPE scaling, biases, another activation, `_check_common`'s."""
    _check_common(config)
    rope = dict(config.rope_parameters or {})
    if rope.get("rope_type", "default") != "default":
        fix = (
            "use a model with rope_type 'default' "
            "(plain frequencies base^(-2i/d))"
        )
        _refuse(config, f"RoPE scaling rope_parameters={rope}", fix)
    extra = sorted(set(rope) - {"rope_type", "rope_theta"})
    if extra:
        _refuse(
            config, f"the rope_parameters {extra}", "only rope_theta is read"
        )
    if config.attention_bias:
        fix = "this model's attention has no biases"
        _refuse(config, "attention_bias=True (biases in q/k/v/o_proj)", fix)
    if config.mlp_bias:
        _refuse(
            config, "mlp_bias=True (biases in the MLP)", "SwiGLU has no biases"
        )
    if config.hidden_act != "silu":
        fix = "this model's SwiGLU gates with SiLU ('silu')"
        _refuse(config, f"hidden_act={config.hidden_act!r}", fix)


def _check_gpt2_config(config: object) -> None:
    """Refuse cross-attention, other scalings, activations, unequal dropouts."""
    _check_common(config)
    if config.add_cross_attention:
        _refuse(
            config, "add_cross_attention=True", "this model is decoder-only"
        )
    if config.activation_function not in ("gelu_new", "gelu_pytorch_tanh"):
        fix = (
            "this model's feed-forward network uses the tanh GELU ('gelu_new')"
        )
        _refuse(
            config, f"activation_function={config.activation_function!r}", fix
        )
    if not config.scale_attn_weights:
        fix = "this model divides the scores by sqrt(d_k), as GPT-2 does"
        _refuse(config, "scale_attn_weights=False", fix)
    if config.scale_attn_by_inverse_layer_idx:
        setting = "scale_attn_by_inverse_layer_idx=True (scores / layer number)"
        _refuse(config, setting, "this model scales by 1/sqrt(d_k) only")
    if config.reorder_and_upcast_attn:
        fix = "build the model with reorder_and_upcast_attn=False"
        _refuse(config, "reorder_and_upcast_attn=True", fix)
    dropouts = {
        "resid_pdrop": config.resid_pdrop,
        "embd_pdrop": config.embd_pdrop,
        "attn_pdrop": config.attn_pdrop,
    }
    if len(set(dropouts.values())) > 1:
        fix = "this model takes one dropout probability: set all three equal"
        _refuse(config, f"unequal dropouts {dropouts}", fix)


# --8<-- [end:checks]


# --8<-- [start:llama_from_transformers]
def llama_from_transformers(model: nn.Module) -> LlamaModel:
    """This site's `LlamaModel` with the weights of a `LlamaForCausalLM`.

    The parts are named differently: `q_proj` is `W_Q`, `input_layernorm` is
    `attention_norm`, `mlp.gate_proj` is `feed_forward.gate`, `lm_head` is
    `output`. Both use the `rotate_half` pairing: projections copy unchanged.

    Returns:
        A new model on the CPU, float32, in the training mode of `model`:
        `ours(ids, mask.bool())` gives `model(ids, attention_mask=mask).logits`.

    Raises:
        ImportError: If `transformers` is not installed.
        TypeError: If `model` is not a `LlamaForCausalLM`.
        ValueError: If its configuration asks for what this model does not
            compute: RoPE scaling, biases, a sliding window, an activation other
            than SiLU, quantized weights.

    Examples:
        >>> import torch
        >>> from transformers import LlamaConfig, LlamaForCausalLM
        >>> config = LlamaConfig(vocab_size=50, hidden_size=32,
        ...     intermediate_size=64, num_hidden_layers=2,
        ...     num_attention_heads=4, num_key_value_heads=2,
        ...     bos_token_id=0, eos_token_id=1)
        >>> theirs = LlamaForCausalLM(config).eval()
        >>> ours = llama_from_transformers(theirs)
        >>> ids = torch.tensor([[3, 1, 4, 1, 5]])
        >>> bool((ours(ids) - theirs(ids).logits).abs().max() < 1e-4)
        True
    """
    transformers = _import_transformers()
    if not isinstance(model, transformers.LlamaForCausalLM):
        raise TypeError(_wrong_class(model, "LlamaForCausalLM", "LlamaModel"))
    config = model.config
    _check_llama_config(config)
    ours = LlamaModel(
        config.vocab_size,
        config.hidden_size,
        config.num_hidden_layers,
        config.num_attention_heads,
        config.num_key_value_heads,
        config.intermediate_size,
        head_dim=config.head_dim,
        rope_base=float(config.rope_parameters["rope_theta"]),
        eps=config.rms_norm_eps,
        tie_embeddings=bool(config.tie_word_embeddings),
        attention_dropout=float(config.attention_dropout or 0.0),
    )
    weights = {  # this site's name: transformers' name
        "embedding.weight": "model.embed_tokens.weight",
        "final_norm.weight": "model.norm.weight",
        "output.weight": "lm_head.weight",
    }
    for i in range(config.num_hidden_layers):
        hf, mine = f"model.layers.{i}.", f"layers.{i}."
        weights |= {
            f"{mine}attention_norm.weight": f"{hf}input_layernorm.weight",
            f"{mine}attention.W_Q.weight": f"{hf}self_attn.q_proj.weight",
            f"{mine}attention.W_K.weight": f"{hf}self_attn.k_proj.weight",
            f"{mine}attention.W_V.weight": f"{hf}self_attn.v_proj.weight",
            f"{mine}attention.W_O.weight": f"{hf}self_attn.o_proj.weight",
            f"{mine}feed_forward_norm.weight": (
                f"{hf}post_attention_layernorm.weight"
            ),
            f"{mine}feed_forward.gate.weight": f"{hf}mlp.gate_proj.weight",
            f"{mine}feed_forward.up.weight": f"{hf}mlp.up_proj.weight",
            f"{mine}feed_forward.down.weight": f"{hf}mlp.down_proj.weight",
        }
    state = model.state_dict()
    ours.load_state_dict(
        {mine: state[hf].float() for mine, hf in weights.items()}
    )
    return ours.train(model.training)


# --8<-- [end:llama_from_transformers]


# --8<-- [start:gpt2_from_transformers]
def gpt2_from_transformers(model: nn.Module) -> GPT2Model:
    """This site's `GPT2Model` with the weights of a `GPT2LMHeadModel`.

    GPT-2 stores its projections as `Conv1D` layers, whose weight is an
    `nn.Linear`'s transposed, (in, out), and computes W_Q, W_K and W_V in one
    `c_attn` of width 3 * d_model: the converter transposes and splits them.

    Returns:
        A new model on the CPU, float32, in the training mode of `model`:
        `ours(ids, mask.bool())` gives `model(ids, attention_mask=mask).logits`.

    Raises:
        ImportError: If `transformers` is not installed.
        TypeError: If `model` is not a `GPT2LMHeadModel`.
        ValueError: If its configuration asks for what this model does not
            compute: cross-attention, other attention scalings,
            `reorder_and_upcast_attn`, an activation other than the tanh GELU,
            unequal dropouts, quantized weights.

    Examples:
        >>> import torch
        >>> from transformers import GPT2Config, GPT2LMHeadModel
        >>> config = GPT2Config(vocab_size=50, n_embd=32, n_layer=2, n_head=4,
        ...                     n_positions=16, bos_token_id=0, eos_token_id=1)
        >>> theirs = GPT2LMHeadModel(config).eval()
        >>> ours = gpt2_from_transformers(theirs)
        >>> ids = torch.tensor([[3, 1, 4, 1, 5]])
        >>> bool((ours(ids) - theirs(ids).logits).abs().max() < 1e-4)
        True
    """
    transformers = _import_transformers()
    if not isinstance(model, transformers.GPT2LMHeadModel):
        raise TypeError(_wrong_class(model, "GPT2LMHeadModel", "GPT2Model"))
    config = model.config
    _check_gpt2_config(config)
    d_model = config.n_embd
    ours = GPT2Model(
        config.vocab_size,
        d_model,
        config.n_layer,
        config.n_head,
        d_ff=config.n_inner or 4 * d_model,
        max_len=config.n_positions,
        eps=config.layer_norm_epsilon,
        dropout=float(config.resid_pdrop),
        tie_embeddings=bool(config.tie_word_embeddings),
    )
    state = model.state_dict()
    weights = {
        "embedding.weight": state["transformer.wte.weight"],
        "positions.table": state["transformer.wpe.weight"],
        "final_norm.weight": state["transformer.ln_f.weight"],
        "final_norm.bias": state["transformer.ln_f.bias"],
        "output.weight": state["lm_head.weight"],
    }
    for i in range(config.n_layer):
        hf, mine = f"transformer.h.{i}.", f"layers.{i}."
        # Conv1D weights are (in, out): transpose to nn.Linear's (out, in).
        W_Q, W_K, W_V = state[f"{hf}attn.c_attn.weight"].T.split(d_model, dim=0)
        b_Q, b_K, b_V = state[f"{hf}attn.c_attn.bias"].split(d_model)
        weights |= {
            f"{mine}norm1.weight": state[f"{hf}ln_1.weight"],
            f"{mine}norm1.bias": state[f"{hf}ln_1.bias"],
            f"{mine}attention.W_Q.weight": W_Q,
            f"{mine}attention.W_K.weight": W_K,
            f"{mine}attention.W_V.weight": W_V,
            f"{mine}attention.W_Q.bias": b_Q,
            f"{mine}attention.W_K.bias": b_K,
            f"{mine}attention.W_V.bias": b_V,
            f"{mine}attention.W_O.weight": state[f"{hf}attn.c_proj.weight"].T,
            f"{mine}attention.W_O.bias": state[f"{hf}attn.c_proj.bias"],
            f"{mine}norm2.weight": state[f"{hf}ln_2.weight"],
            f"{mine}norm2.bias": state[f"{hf}ln_2.bias"],
            f"{mine}feed_forward.linear1.weight": state[
                f"{hf}mlp.c_fc.weight"
            ].T,
            f"{mine}feed_forward.linear1.bias": state[f"{hf}mlp.c_fc.bias"],
            f"{mine}feed_forward.linear2.weight": state[
                f"{hf}mlp.c_proj.weight"
            ].T,
            f"{mine}feed_forward.linear2.bias": state[f"{hf}mlp.c_proj.bias"],
        }
    ours.load_state_dict(
        {name: tensor.float() for name, tensor in weights.items()}
    )
    return ours.train(model.training)


# --8<-- [end:gpt2_from_transformers]
