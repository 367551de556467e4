"""Checks of what the tutorial's functions receive; messages say what to fix.

A misuse ends in a sentence naming the argument, what it expects and what it
got, not in an error from deep inside PyTorch (`index out of range in self`).

A check's `what` is the argument's name, for the message. Shape letters:
B = batch size, T = sequence length, d_model = width of a token vector,
V = vocabulary size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

_SHAPES = {1: "(T,)", 2: "(B, T)"}


def describe(value: object) -> str:
    """A value in a few words for a message: its dtype and shape, or its type.

    Examples:
        >>> describe(torch.zeros(2, 3))
        'a tensor of dtype torch.float32 and shape (2, 3)'
    """
    if isinstance(value, torch.Tensor):
        return f"a tensor of dtype {value.dtype} and shape {tuple(value.shape)}"
    return type(value).__name__


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_token_ids(
    tokens: torch.Tensor | Sequence[int],
    vocab_size: int,
    what: str = "tokens",
    dims: int = 2,
    max_len: int | None = None,
    empty_ok: bool = False,
    lists: bool = False,
) -> None:
    """Refuse token ids a model cannot embed: wrong type, shape, length or id.

    Args:
        tokens: Integer ids, (B, T) with `dims=2` or (T,) with `dims=1`.
        vocab_size: V; every id must lie in [0, V).
        max_len: Most positions the model accepts (its context), or None.
        empty_ok: Whether T = 0 is accepted (averages over it are NaN).
        lists: Whether a list of ints is accepted too, for `dims=1`.

    Raises:
        TypeError: If `tokens` is not an integer tensor (or, with `lists`, a
            list of ints).
        ValueError: If the shape, the length or an id is out of range.

    Examples:
        >>> check_token_ids(torch.tensor([[1, 2, 7]]), vocab_size=4)
        Traceback (most recent call last):
        ...
        ValueError: token ids must lie in [0, vocab_size=4), got 7 in tokens
        at position (0, 2)
    """
    if (
        lists
        and dims == 1
        and isinstance(tokens, Sequence)
        and not isinstance(tokens, str)
    ):
        if not all(_is_int(i) for i in tokens):
            raise TypeError(
                f"{what} must hold integer ids, got "
                f"{[type(i).__name__ for i in tokens][:5]}"
            )
        tokens = torch.tensor(list(tokens), dtype=torch.long)
    if not isinstance(tokens, torch.Tensor):
        raise TypeError(
            f"{what} must be a tensor of integer ids (torch.long), got "
            f"{type(tokens).__name__}"
        )
    if tokens.dtype.is_floating_point or tokens.dtype.is_complex:
        raise TypeError(
            f"{what} must be integer ids (torch.long), got "
            f"{describe(tokens)}; use {what}.long()"
        )
    if tokens.dtype == torch.bool:
        raise TypeError(
            f"{what} must be integer ids (torch.long), got dtype torch.bool"
        )
    if tokens.dim() != dims:
        raise ValueError(
            f"{what} must have shape {_SHAPES[dims]}, got shape "
            f"{tuple(tokens.shape)}"
        )
    length = tokens.size(-1)
    if length == 0 and not empty_ok:
        raise ValueError(
            f"{what} holds no positions (shape "
            f"{tuple(tokens.shape)}): give at least one token"
        )
    if max_len is not None and length > max_len:
        raise ValueError(
            f"at most {max_len} tokens fit the context, got {length} in "
            f"{what}; keep the last {max_len}"
        )
    # shapes without values (a stand-in for another device): nothing to read
    if tokens.is_meta:
        return
    outside = (tokens < 0) | (tokens >= vocab_size)
    if outside.any():
        position = tuple(int(i) for i in outside.nonzero()[0])
        raise ValueError(
            f"token ids must lie in [0, vocab_size={vocab_size}), got "
            f"{int(tokens[position])} in {what} at position {position}"
        )


def check_width(
    x: torch.Tensor, d_model: int, what: str = "x", dims: int | None = 3
) -> None:
    """Refuse token vectors of the wrong width, shape or dtype.

    Args:
        x: Token vectors, floating point, (B, T, d_model).
        dims: Number of dimensions expected; None accepts any number of leading
            axes, as a position-wise layer does.

    Raises:
        TypeError: If `x` is not a floating-point tensor.
        ValueError: If `x` has not `dims` dimensions or its last is not
            `d_model`.

    Examples:
        >>> check_width(torch.zeros(2, 5, 6), d_model=8)
        Traceback (most recent call last):
        ...
        ValueError: x must have shape (B, T, d_model=8), got shape (2, 5, 6)
    """
    if not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point:
        raise TypeError(
            f"{what} must be a floating-point tensor "
            f"of token vectors, got {describe(x)}"
        )
    expected = (
        f"(B, T, d_model={d_model})"
        if dims == 3
        else f"(..., d_model={d_model})"
    )
    if (
        (dims is not None and x.dim() != dims)
        or x.dim() == 0
        or x.size(-1) != d_model
    ):
        raise ValueError(
            f"{what} must have shape {expected}, got shape {tuple(x.shape)}"
        )


def check_numbers(numbers: torch.Tensor, what: str = "numbers") -> None:
    """Refuse what a digit model cannot read: not floats, not (B, T), or T = 0.

    Raises:
        TypeError: If `numbers` is not a floating-point tensor.
        ValueError: If it is not 2-D or holds no positions.
    """
    if (
        not isinstance(numbers, torch.Tensor)
        or not numbers.dtype.is_floating_point
    ):
        raise TypeError(
            f"{what} must be a float tensor, got "
            f"{describe(numbers)}; use {what}.float()"
        )
    if numbers.dim() != 2:
        raise ValueError(
            f"{what} must have shape (B, T), got shape {tuple(numbers.shape)}"
        )
    if numbers.size(1) == 0:
        raise ValueError(
            f"{what} holds no positions (shape "
            f"{tuple(numbers.shape)}): give at least one number"
        )


def check_count(value: int, what: str, minimum: int = 1) -> None:
    """Refuse a count (a size, a number of steps) that is not an int >= minimum.

    Raises:
        TypeError: If `value` is not an int (a bool or a float is refused).
        ValueError: If `value` is below `minimum`.

    Examples:
        >>> check_count(0, "batch_size")
        Traceback (most recent call last):
        ...
        ValueError: batch_size must be >= 1, got 0
    """
    if not _is_int(value):
        raise TypeError(
            f"{what} must be an int, got {value!r} ({type(value).__name__})"
        )
    if value < minimum:
        raise ValueError(f"{what} must be >= {minimum}, got {value}")


def check_counts(**counts: int) -> None:
    """`check_count` for each keyword (`batch_size=batch_size`), minimum 1."""
    for what, value in counts.items():
        check_count(value, what)


def check_flags(**flags: bool) -> None:
    """Refuse an on/off setting that is not True or False: the string
    `'False'` is true, and would switch the setting on.

    Raises:
        TypeError: If a value is not a bool.

    Examples:
        >>> check_flags(causal="False")
        Traceback (most recent call last):
        ...
        TypeError: causal must be True or False, got 'False' (str)
    """
    for what, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(
                f"{what} must be True or False, got {value!r} "
                f"({type(value).__name__})"
            )


def check_probabilities(**values: float) -> None:
    """Refuse a probability, such as a dropout rate, outside [0, 1].

    Raises:
        TypeError: If a value is not a number.
        ValueError: If a value is not in [0, 1] (NaN included).

    Examples:
        >>> check_probabilities(dropout=1.5)
        Traceback (most recent call last):
        ...
        ValueError: dropout must be a probability in [0, 1], got 1.5
    """
    for what, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(
                f"{what} must be a probability in [0, 1], got {value!r} "
                f"({type(value).__name__})"
            )
        if not 0 <= value <= 1:  # also refuses NaN
            raise ValueError(
                f"{what} must be a probability in [0, 1], got {value}"
            )


def check_positive(**values: float | None) -> None:
    """Refuse settings that are not finite numbers > 0; None (not used) passes.

    Args:
        **values: The settings by name, as in `lr=lr, clip_norm=clip_norm`.

    Raises:
        TypeError: If a value is not a number.
        ValueError: If a value is not finite or not above zero.

    Examples:
        >>> check_positive(lr=-1.0)
        Traceback (most recent call last):
        ...
        ValueError: lr must be a finite number > 0, got -1.0
    """
    for what, value in values.items():
        if value is None:
            continue
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise TypeError(
                f"{what} must be a number, got {value!r} "
                f"({type(value).__name__})"
            )
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"{what} must be a finite number > 0, got {value}")


def check_float_tensors(**tensors: torch.Tensor) -> None:
    """Refuse tensors, by name, that are not floating point of one dtype.

    Raises:
        TypeError: If one is not a floating-point tensor, or not of the first's
            dtype.
    """
    first = None
    for what, x in tensors.items():
        if not isinstance(x, torch.Tensor) or not x.dtype.is_floating_point:
            raise TypeError(
                f"{what} must be a floating-point tensor, got {describe(x)}"
            )
        if first is not None and x.dtype != first[1].dtype:
            raise TypeError(
                f"{first[0]} and {what} must have the same dtype, got "
                f"{first[1].dtype} and {x.dtype}; convert one with "
                f".to({first[1].dtype})"
            )
        first = first or (what, x)


def check_attention_inputs(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor
) -> None:
    """Refuse a query, key and value that attention cannot combine.

    Raises:
        TypeError: If one is not a floating-point tensor of the query's dtype.
        ValueError: If one has fewer than 2 axes (..., T, d), the query's and
            the key's widths d_k differ, or keys and values differ in number.
    """
    check_float_tensors(query=query, key=key, value=value)
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise ValueError(
            "query, key and value need at least 2 dimensions (..., T, d), "
            "got shapes "
            f"{tuple(query.shape)}, {tuple(key.shape)}, {tuple(value.shape)}"
        )
    if query.size(-1) != key.size(-1):
        raise ValueError(
            "query and key must have the same last dimension d_k, "
            f"got {query.size(-1)} and {key.size(-1)}: "
            "each score is the dot product of a query and a key"
        )
    if key.size(-2) != value.size(-2):
        raise ValueError(
            "key and value must hold the same number of positions T_k, "
            f"got {key.size(-2)} and {value.size(-2)}: one value per key"
        )


def check_attention_mask(mask: torch.Tensor, scores_shape: torch.Size) -> None:
    """Refuse a mask that is not boolean or float, or does not fit the scores.

    Args:
        mask: Boolean (`True` = may attend) or float (added to the scores).
        scores_shape: The attention scores' shape (..., T_q, T_k).

    Raises:
        TypeError: If `mask` is not a tensor, or is an integer tensor.
        ValueError: If it does not broadcast to `scores_shape`.
    """
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"mask must be a torch.Tensor, got {describe(mask)}")
    if mask.dtype != torch.bool and not mask.dtype.is_floating_point:
        raise TypeError(
            "mask must be boolean (True = may attend) or floating point "
            f"(added to the scores), got dtype {mask.dtype}; "
            "for a 0/1 mask use mask.bool()"
        )
    try:
        broadcast = torch.broadcast_shapes(mask.shape, scores_shape)
    except RuntimeError:
        broadcast = None
    if broadcast != scores_shape:
        raise ValueError(
            f"mask of shape {tuple(mask.shape)} cannot broadcast to the "
            f"attention scores of shape {tuple(scores_shape)}; "
            "a padding mask should be "
            "(B, 1, 1, T) with a heads axis or (B, 1, T) without one, "
            "a causal mask (T, T)"
        )


def check_sampling(
    temperature: float, top_k: int | None, vocab_size: int
) -> None:
    """Refuse sampling settings that divide by zero, make NaN or exceed V.

    Args:
        temperature: Divides the logits; must be finite and above zero.
        top_k: How many of the most likely tokens to keep, 1 to `vocab_size`, or
            None for all.

    Raises:
        TypeError: If `top_k` is not an int or None.
        ValueError: If `temperature` or `top_k` is out of range.
    """
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not temperature > 0
    ):
        raise ValueError(
            f"temperature must be > 0, got {temperature!r}; for the single "
            "most likely token use top_k=1"
        )
    if not math.isfinite(temperature):
        raise ValueError(
            f"temperature must be > 0 and finite, got {temperature}"
        )
    if top_k is not None:
        check_count(top_k, "top_k")
        if top_k > vocab_size:
            raise ValueError(
                f"top_k must be <= vocab_size={vocab_size}, got {top_k}; "
                "top_k=None keeps every token"
            )


def check_cache_step(
    model: nn.Module, tokens: torch.Tensor, cache: object, position_offset: int
) -> None:
    """Refuse new tokens (B, n) a KV cache cannot take.

    Args:
        model: The `CharTransformer` whose cache it is.
        cache: The `KVCache` of the earlier positions.
        position_offset: The position of the first new token.

    Raises:
        TypeError: If `cache` is not chapter 12's `KVCache`, `tokens` is not an
            integer tensor or `position_offset` not an int.
        ValueError: If an id is outside the vocabulary, the cache holds another
            batch size, or the new positions do not fit the model's context.
    """
    if not isinstance(getattr(cache, "keys", None), list):
        raise TypeError(
            "cache must be a language_model.KVCache(), one for all the "
            f"layers of a CharTransformer, got {describe(cache)}"
        )
    check_token_ids(tokens, model.embedding.num_embeddings)
    batch, n = tokens.shape
    if cache.keys and cache.keys[0].size(0) != batch:
        raise ValueError(
            f"the cache holds {cache.keys[0].size(0)} sequences and tokens has "
            f"{batch}; start a new KVCache() for a new batch"
        )
    check_count(position_offset, "position_offset", minimum=0)
    if cache.length + n > model.context:
        raise ValueError(
            f"the cache holds {cache.length} positions and {n} "
            f"more do not fit the context of {model.context}; "
            "start a new cache from the last tokens"
        )
    if position_offset + n > model.context:
        raise ValueError(
            f"position_offset={position_offset} puts {n} new tokens at "
            f"positions {position_offset} to {position_offset + n - 1}, past "
            f"the context of {model.context} (positions 0 to "
            f"{model.context - 1})"
        )


def check_share(value: float, what: str, hint: str = "") -> None:
    """Refuse a share, such as label smoothing, that is not a number in [0, 1).

    Args:
        hint: Appended to the message, for example `"; the paper uses 0.1"`.

    Raises:
        TypeError: If `value` is not a number.
        ValueError: If `value` is not in [0, 1) (NaN included).

    Examples:
        >>> check_share(1.0, "label_smoothing")
        Traceback (most recent call last):
        ...
        ValueError: label_smoothing must be in [0, 1), got 1.0
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(
            f"{what} must be a number in [0, 1), got {value!r} "
            f"({type(value).__name__})"
        )
    if not 0 <= value < 1:  # also refuses NaN
        raise ValueError(f"{what} must be in [0, 1), got {value}{hint}")


def check_same_batch(**tensors: torch.Tensor) -> None:
    """Refuse tensors, by name, whose first axes (the batch) differ.

    Examples:
        >>> check_same_batch(source=torch.zeros(2), written=torch.zeros(3))
        Traceback (most recent call last):
        ...
        ValueError: source and written must hold the same number of sequences B,
        got 2 and 3
    """
    sizes = {what: x.size(0) for what, x in tensors.items()}
    if len(set(sizes.values())) > 1:
        got = " and ".join(str(size) for size in sizes.values())
        raise ValueError(
            f"{' and '.join(sizes)} must hold the "
            f"same number of sequences B, got {got}"
        )


def check_padding_mask(
    padding_mask: torch.Tensor | None, batch: int, length: int
) -> None:
    """Refuse a padding mask that is not boolean (B, length).

    Args:
        padding_mask: Boolean, True = a real token, (B, length); None passes.
        length: The positions the mask covers: the cached ones and the new ones.

    Raises:
        TypeError: If `padding_mask` is not boolean (transformers'
            `attention_mask` is 0/1).
        ValueError: If its shape is not (B, length).
    """
    if padding_mask is None:
        return
    if (
        not isinstance(padding_mask, torch.Tensor)
        or padding_mask.dtype != torch.bool
    ):
        got = (
            f"dtype {padding_mask.dtype}"
            if isinstance(padding_mask, torch.Tensor)
            else type(padding_mask).__name__
        )
        raise TypeError(
            f"padding_mask must be boolean (True = a real token), got {got}; "
            "for transformers' 0/1 attention_mask pass attention_mask.bool()"
        )
    if tuple(padding_mask.shape) != (batch, length):
        raise ValueError(
            f"padding_mask must have shape (B, {length}) = {(batch, length)}: "
            "one entry per cached and new position, got shape "
            f"{tuple(padding_mask.shape)}"
        )


def check_window_cache(
    cache: object, key: torch.Tensor, value: torch.Tensor
) -> None:
    """Refuse new keys and values a sliding-window cache cannot join to its own.

    Args:
        cache: The `SlidingWindowCache`.
        key: The new keys, (B, h, n, d_k).
        value: The new values, (B, h, n, d_v).

    Raises:
        TypeError: If `cache` is not a sliding-window cache (has no `window`).
        ValueError: If the new keys or values differ from the kept ones in B, h
            or width.
    """
    if not isinstance(getattr(cache, "window", None), int) or not hasattr(
        cache, "append"
    ):
        raise TypeError(
            f"cache must be a SlidingWindowCache, got {type(cache).__name__}"
        )
    for what, new, kept in (
        ("key", key, cache.keys),
        ("value", value, cache.values),
    ):
        if kept is not None and (
            new.shape[:-2] != kept.shape[:-2] or new.size(-1) != kept.size(-1)
        ):
            raise ValueError(
                f"the cache keeps {what}s of shape {tuple(kept.shape)} "
                f"(B, h, m, d); the new {what} has shape "
                f"{tuple(new.shape)}, and must match it in B, h and "
                "d: start a new SlidingWindowCache for a new batch"
            )


def check_targets(
    logits: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100
) -> None:
    """Refuse targets that do not fit the logits or leave nothing to score.

    A classifier's logits (B, C) need targets (B,), a tagger's (B, T, C) need
    (B, T); mixed up, B = T gives a wrong accuracy without any error.

    Raises:
        ValueError: If `targets` is not of the shape of `logits` without its
            last axis, or every target is `ignore_index`.

    Examples:
        >>> check_targets(torch.zeros(4, 9, 2), torch.zeros(4).long())
        Traceback (most recent call last):
        ...
        ValueError: the model gave logits of shape (4, 9, 2), which need targets
        of shape (4, 9), got (4,): a tagger's (B, T, C) logits need a label per
        token (token_labels), a classifier's (B, C) one per sequence
        (sequence_labels)
    """
    if logits.shape[:-1] != targets.shape:
        raise ValueError(
            f"the model gave logits of shape {tuple(logits.shape)}, "
            f"which need targets of shape {tuple(logits.shape[:-1])}, "
            f"got {tuple(targets.shape)}: a tagger's (B, T, C) "
            "logits need a label per token (token_labels), a "
            "classifier's (B, C) one per sequence (sequence_labels)"
        )
    if not (targets != ignore_index).any():
        raise ValueError(
            f"every target is {ignore_index} (a padded position, not scored): "
            "nothing to score; give at least one real token"
        )


def check_generating_model(model: object) -> None:
    """Refuse a model without `new_cache()` (`LlamaModel`, `GPT2Model` have it).

    Raises:
        TypeError: If `model` has no `new_cache()` (chapter 11's model).
    """
    if not callable(getattr(model, "new_cache", None)):
        raise TypeError(
            "model must map (B, T) ids to (B, T, V) logits "
            "and have new_cache(), as LlamaModel and "
            f"GPT2Model do, got {type(model).__name__}; "
            "for chapter 11's CharTransformer use generate"
        )


# -------------------------------------------------- importing PyTorch's modules

_CONVERTERS = {
    nn.MultiheadAttention: "multi_head_attention_from_torch",
    nn.TransformerEncoderLayer: "encoder_layer_from_torch",
    nn.TransformerDecoderLayer: "decoder_layer_from_torch",
    nn.Transformer: "transformer_from_torch",
}


def check_torch_module(
    module: object, kind: type[nn.Module], what: str
) -> None:
    """Refuse a module that is not a `kind`, and name the converter it needs.

    Raises:
        TypeError: If `module` is not an instance of `kind`.
    """
    if isinstance(module, kind):
        return
    converters = [
        f"; for an nn.{k.__name__} use {name}"
        for k, name in _CONVERTERS.items()
        if isinstance(module, k)
    ]
    hint = converters[0] if converters else ""
    raise TypeError(
        f"{what} must be an nn.{kind.__name__}, got "
        f"{type(module).__name__}{hint}"
    )


def check_torch_attention(
    attention: nn.Module, what: str = "torch_attention"
) -> None:
    """Refuse an `nn.MultiheadAttention` the tutorial's cannot equal.

    Refused by name: `batch_first=False`, `add_zero_attn=True`,
    `add_bias_kv=True`, and `kdim` or `vdim` other than `embed_dim`.

    Raises:
        TypeError: If `attention` is not an `nn.MultiheadAttention`.
        ValueError: If it uses one of the refused options.
    """
    check_torch_module(attention, nn.MultiheadAttention, what)
    if not attention.batch_first:
        raise ValueError(
            f"{what} was built with batch_first=False and reads (T, B, "
            "d_model); this tutorial's tensors are (B, T, d_model): build the "
            "PyTorch module with batch_first=True (its weights load unchanged)"
        )
    if attention.add_zero_attn:
        raise ValueError(
            f"{what} was built with add_zero_attn=True, which appends a zero "
            "key and value that this tutorial's MultiHeadAttention does not "
            "have; build it with add_zero_attn=False"
        )
    if attention.bias_k is not None or attention.bias_v is not None:
        raise ValueError(
            f"{what} was built with add_bias_kv=True, which appends learned "
            "bias_k and bias_v that this tutorial's MultiHeadAttention does "
            "not have; build it with add_bias_kv=False"
        )
    if (
        attention.kdim != attention.embed_dim
        or attention.vdim != attention.embed_dim
    ):
        raise ValueError(
            f"{what} has kdim={attention.kdim} and vdim={attention.vdim}, "
            f"but embed_dim={attention.embed_dim}; this "
            "tutorial's MultiHeadAttention reads keys and "
            "values of width d_model: leave kdim and vdim unset"
        )


def check_torch_layer(
    torch_layer: nn.Module, kind: type[nn.Module], what: str = "torch_layer"
) -> None:
    """Refuse a PyTorch layer of `kind` the tutorial's layer cannot equal.

    Refused by name: another kind of layer, `batch_first=False`, an activation
    other than ReLU, and `bias=False` (the tutorial's layers have biases).

    Args:
        kind: `nn.TransformerEncoderLayer` or `nn.TransformerDecoderLayer`.

    Raises:
        TypeError: If `torch_layer` is not a `kind`.
        ValueError: If it uses one of the refused options.
    """
    check_torch_module(torch_layer, kind, what)
    if not torch_layer.self_attn.batch_first:
        raise ValueError(
            f"{what} was built with batch_first=False; "
            "build the PyTorch layer with batch_first=True: "
            "this tutorial's tensors are (B, T, d_model)"
        )
    if not (
        torch_layer.activation is nn.functional.relu
        or isinstance(torch_layer.activation, nn.ReLU)
    ):
        raise ValueError(
            f"{what} uses activation={torch_layer.activation}; only "
            "activation='relu' is supported"
        )
    if torch_layer.linear1.bias is None:
        raise ValueError(
            f"{what} was built with bias=False; this tutorial's layers always "
            "have biases: build it with bias=True"
        )
    attentions = (
        ("self_attn", "multihead_attn")
        if kind is nn.TransformerDecoderLayer
        else ("self_attn",)
    )
    for name in attentions:
        check_torch_attention(getattr(torch_layer, name), f"{what}.{name}")


def check_cache_append(
    held: torch.Tensor | None, K: torch.Tensor, V: torch.Tensor
) -> None:
    """Refuse keys and values one layer's cache cannot append.

    Args:
        held: The keys the cache holds, (B, h_kv, t, d_k), or None.
        K: New keys, (B, h_kv, n, d_k).
        V: New values, (B, h_kv, n, d_k).

    Raises:
        TypeError: If `K` or `V` is not a floating-point tensor, or their dtype
            or device differs from the held keys'.
        ValueError: If `K` or `V` has not four axes, they differ in shape, or
            (B, h_kv, d_k) differs from the held keys'.

    Examples:
        >>> K, V = torch.ones(1, 2, 3, 4), torch.ones(1, 2, 2, 4)
        >>> check_cache_append(None, K, V)
        Traceback (most recent call last):
        ...
        ValueError: K and V must have the same shape (B, h_kv, n, d_k), got
        (1, 2, 3, 4) and (1, 2, 2, 4)
    """
    check_float_tensors(K=K, V=V)
    for what, tensor in (("K", K), ("V", V)):
        if tensor.dim() != 4:
            raise ValueError(
                f"{what} must have shape (B, h_kv, n, d_k), got shape "
                f"{tuple(tensor.shape)}"
            )
    if K.shape != V.shape:
        raise ValueError(
            "K and V must have the same shape (B, h_kv, n, d_k), got "
            f"{tuple(K.shape)} and {tuple(V.shape)}"
        )
    if held is None:
        return
    kept = (held.size(0), held.size(1), held.size(3))
    if (K.size(0), K.size(1), K.size(3)) != kept:
        raise ValueError(
            f"the cache holds keys of (B, h_kv, d_k) = {kept}, the new ones "
            f"are {(K.size(0), K.size(1), K.size(3))}: start a new cache for "
            "a new batch or model"
        )
    if (K.dtype, K.device) != (held.dtype, held.device):
        raise TypeError(
            f"the cache holds {held.dtype} keys on {held.device}, the new ones "
            f"are {K.dtype} on {K.device}: append keys of the same dtype and "
            "device"
        )
