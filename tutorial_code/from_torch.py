"""Copy weights from PyTorch's built-in modules into the tutorial's, to compare.

Once both hold the same weights, equal outputs mean the hand-written module and
PyTorch's compute the same function.
"""

# --8<-- [start:imports]
import torch
from torch import nn

from tutorial_code.encoder import EncoderLayer
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.validation import (
    check_torch_attention,
    check_torch_layer,
    check_torch_module,
)

# --8<-- [end:imports]
# isort: split
# chapter 10 shows them first
from tutorial_code.decoder import DecoderLayer, Transformer


# --8<-- [start:multi_head_attention_from_torch]
def multi_head_attention_from_torch(
    torch_attention: nn.MultiheadAttention,
) -> MultiHeadAttention:
    """A `MultiHeadAttention` holding the weights of `torch_attention`.

    `nn.MultiheadAttention` stores W_Q, W_K and W_V stacked in one
    `in_proj_weight` (3 * d_model, d_model), and W_O as `out_proj`.

    Args:
        torch_attention: Built with `batch_first=True`, with or without biases;
            `kdim`, `vdim`, `add_bias_kv` and `add_zero_attn` left at their
            defaults.

    Returns:
        A new module, in the same training mode, that gives the same output.

    Raises:
        TypeError: If `torch_attention` is not an `nn.MultiheadAttention`.
        ValueError: If it uses an option this module lacks (named in the error).

    Examples:
        >>> theirs = nn.MultiheadAttention(16, 4, batch_first=True)
        >>> ours = multi_head_attention_from_torch(theirs)
        >>> x = torch.randn(2, 5, 16)
        >>> torch.allclose(ours(x)[0], theirs(x, x, x)[0], atol=1e-6)
        True
    """
    check_torch_attention(torch_attention)
    bias = torch_attention.in_proj_bias is not None
    ours = MultiHeadAttention(
        torch_attention.embed_dim,
        torch_attention.num_heads,
        dropout=torch_attention.dropout,
        bias=bias,
    )
    copy_multi_head_attention_weights(torch_attention, ours)
    return ours.train(torch_attention.training)


def copy_multi_head_attention_weights(
    source: nn.MultiheadAttention, target: MultiHeadAttention
) -> None:
    """Copy the weights of `source` into `target` (same d_model and biases)."""
    with torch.no_grad():
        # each (d_model, d_model)
        W_Q, W_K, W_V = source.in_proj_weight.chunk(3, dim=0)
        target.W_Q.weight.copy_(W_Q)
        target.W_K.weight.copy_(W_K)
        target.W_V.weight.copy_(W_V)
        target.W_O.weight.copy_(source.out_proj.weight)
        if source.in_proj_bias is not None:
            b_Q, b_K, b_V = source.in_proj_bias.chunk(3)
            target.W_Q.bias.copy_(b_Q)
            target.W_K.bias.copy_(b_K)
            target.W_V.bias.copy_(b_V)
            target.W_O.bias.copy_(source.out_proj.bias)


# --8<-- [end:multi_head_attention_from_torch]


# --8<-- [start:encoder_layer_from_torch]
def _copy_feed_forward_and_norms(
    torch_layer: nn.Module, ours: nn.Module, norms: tuple[str, ...]
) -> None:
    """Copy linear1, linear2 to `ours.feed_forward` and the named LayerNorms."""
    ours.feed_forward.load_state_dict(
        {"linear1." + k: v for k, v in torch_layer.linear1.state_dict().items()}
        | {
            "linear2." + k: v
            for k, v in torch_layer.linear2.state_dict().items()
        }
    )
    for name in norms:
        getattr(ours, name).load_state_dict(
            getattr(torch_layer, name).state_dict()
        )
        getattr(ours, name).eps = getattr(torch_layer, name).eps


def encoder_layer_from_torch(
    torch_layer: nn.TransformerEncoderLayer,
) -> EncoderLayer:
    """An `EncoderLayer` holding the weights of `torch_layer`.

    Args:
        torch_layer: Built with `batch_first=True`, ReLU and biases (PyTorch's
            defaults, apart from `batch_first`).

    Returns:
        A new layer, in the same training mode, that gives the same output.

    Raises:
        TypeError: If `torch_layer` is not an `nn.TransformerEncoderLayer`.
        ValueError: If it is not batch-first, without ReLU or without biases.

    Examples:
        >>> theirs = nn.TransformerEncoderLayer(
        ...     16, 4, dim_feedforward=32, dropout=0.0, batch_first=True
        ... )
        >>> ours = encoder_layer_from_torch(theirs)
        >>> x = torch.randn(2, 5, 16)
        >>> torch.allclose(ours(x)[0], theirs(x), atol=1e-5)
        True
    """
    check_torch_layer(torch_layer, nn.TransformerEncoderLayer)
    attention = torch_layer.self_attn
    ours = EncoderLayer(
        attention.embed_dim,
        attention.num_heads,
        torch_layer.linear1.out_features,
        dropout=torch_layer.dropout.p,
        norm_first=torch_layer.norm_first,
    )
    copy_multi_head_attention_weights(attention, ours.attention)
    _copy_feed_forward_and_norms(torch_layer, ours, ("norm1", "norm2"))
    return ours.train(torch_layer.training)


# --8<-- [end:encoder_layer_from_torch]


# --8<-- [start:decoder_from_torch]
def decoder_layer_from_torch(
    torch_layer: nn.TransformerDecoderLayer,
) -> DecoderLayer:
    """A `DecoderLayer` holding the weights of `torch_layer`.

    Args:
        torch_layer: Built with `batch_first=True`, ReLU and biases.

    Raises:
        TypeError: If `torch_layer` is not an `nn.TransformerDecoderLayer`.
        ValueError: If it is not batch-first, without ReLU or without biases.

    Examples:
        >>> theirs = nn.TransformerDecoderLayer(
        ...     16, 4, dim_feedforward=32, dropout=0.0, batch_first=True
        ... )
        >>> ours = decoder_layer_from_torch(theirs)
        >>> x, memory = torch.randn(2, 3, 16), torch.randn(2, 5, 16)
        >>> torch.allclose(ours(x, memory)[0], theirs(x, memory), atol=1e-5)
        True
    """
    check_torch_layer(torch_layer, nn.TransformerDecoderLayer)
    attention = torch_layer.self_attn
    ours = DecoderLayer(
        attention.embed_dim,
        attention.num_heads,
        torch_layer.linear1.out_features,
        dropout=torch_layer.dropout.p,
        norm_first=torch_layer.norm_first,
    )
    copy_multi_head_attention_weights(
        torch_layer.self_attn, ours.self_attention
    )
    copy_multi_head_attention_weights(
        torch_layer.multihead_attn, ours.cross_attention
    )
    _copy_feed_forward_and_norms(torch_layer, ours, ("norm1", "norm2", "norm3"))
    return ours.train(torch_layer.training)


def transformer_from_torch(torch_model: nn.Transformer) -> Transformer:
    """A `Transformer` holding the weights of `torch_model`.

    Args:
        torch_model: Built with `batch_first=True`, ReLU and biases.

    Raises:
        TypeError: If `torch_model` is not an `nn.Transformer`.
        ValueError: If it is not batch-first, without ReLU or without biases.
    """
    check_torch_module(torch_model, nn.Transformer, "torch_model")
    encoder_layers, decoder_layers = (
        torch_model.encoder.layers,
        torch_model.decoder.layers,
    )
    first = encoder_layers[0]
    check_torch_layer(
        first, nn.TransformerEncoderLayer, "torch_model's first layer"
    )
    ours = Transformer(
        first.self_attn.embed_dim,
        first.self_attn.num_heads,
        len(encoder_layers),
        len(decoder_layers),
        first.linear1.out_features,
        dropout=first.dropout.p,
        norm_first=first.norm_first,
    )
    ours.encoder_layers = nn.ModuleList(
        encoder_layer_from_torch(layer) for layer in encoder_layers
    )
    ours.decoder_layers = nn.ModuleList(
        decoder_layer_from_torch(layer) for layer in decoder_layers
    )
    for name in ("encoder", "decoder"):
        torch_norm, our_norm = (
            getattr(torch_model, name).norm,
            getattr(ours, f"{name}_norm"),
        )
        our_norm.load_state_dict(torch_norm.state_dict())
        our_norm.eps = torch_norm.eps
    return ours.train(torch_model.training)


# --8<-- [end:decoder_from_torch]
