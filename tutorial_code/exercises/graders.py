"""The checks of every exercise, one grader per piece of code a learner writes or repairs.

A grader is a list of `(name, check)` pairs; each check takes the learner's module. The
reference is this package's own code, the same code the unit tests compare with PyTorch, and
each hint names a mistake that the site's troubleshooting page reproduces or that learners make
often. Inputs are small and seeded, so a grade takes a fraction of a second.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import torch
from torch import nn

from tutorial_code import (
    attention,
    decoder,
    digit_model,
    encoder,
    feed_forward,
    language_model,
    masks,
    multi_head,
    positional,
)
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.exercises.checks import Wrong, expect_close, expect_error
from tutorial_code.from_torch import copy_multi_head_attention_weights
from tutorial_code.reverse_task import Seq2SeqModel, shift_right

Grader = list[tuple[str, Callable[[ModuleType], None]]]


def _generator(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _twin(learner_class: type[nn.Module], reference: nn.Module, *args, **kwargs) -> nn.Module:
    """The learner's module built with the same arguments, holding the reference's weights, in eval mode."""
    module = learner_class(*args, **kwargs)
    try:
        module.load_state_dict(reference.state_dict())
    except RuntimeError as error:
        raise Wrong(
            f"your {learner_class.__name__} does not hold the same parameters as the reference: {error}",
            "keep `__init__` as the starter gives it, and write only the method it asks for",
        ) from None
    return module.eval()


# ---------------------------------------------------------------- why attention


def _check_recurrent(learner: ModuleType) -> None:
    torch.manual_seed(0)
    rnn = nn.RNN(4, 6, batch_first=True)
    x = torch.randn(2, 7, 4, generator=_generator())
    with torch.no_grad():
        expected = rnn(x)[0]
        w_ih, b_ih, w_hh, b_hh = rnn.weight_ih_l0, rnn.bias_ih_l0, rnn.weight_hh_l0, rnn.bias_hh_l0
        fresh = torch.tanh(x @ w_ih.T + b_ih + b_hh)  # every step from h = 0
        h, linear = torch.zeros(2, 6), []
        for t in range(7):
            h = x[:, t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh
            linear.append(h)
        mistakes = [
            (expected.transpose(0, 1), "your states are (T, B, d_hidden): stack them along dim=1, batch first"),
            (fresh, "every step starts again from zero: feed each step the hidden state h the step before left"),
            (torch.stack(linear, 1), "apply tanh at every step, inside the recurrence"),
        ]
        expect_close(learner.recurrent_by_hand(rnn, x), expected, "the hidden states against nn.RNN's", mistakes)


def _check_recurrent_error(learner: ModuleType) -> None:
    expect_error(
        lambda: learner.recurrent_by_hand(nn.RNN(4, 6, num_layers=2, batch_first=True), torch.randn(2, 3, 4)),
        (ValueError,),
        "a two-layer nn.RNN",
    )


RECURRENT: Grader = [
    ("the hidden states, step by step", _check_recurrent),
    ("a clear error for an RNN it does not follow", _check_recurrent_error),
]

# ---------------------------------------------------------------- scaled dot-product attention

TOO_SHARP = "your weights are too sharp: did you divide the scores by sqrt(d_k)?"
BY_D_K = "your weights are too flat: divide the scores by sqrt(d_k), not by d_k"
WRONG_AXIS = (
    "each column of your weights sums to 1, not each row: take the softmax over the keys, the last axis (dim=-1)"
)
FLIPPED = (
    "your weights land on the keys the mask blocks: on this site True means 'may attend', "
    "so fill the scores with -inf where the mask is False (~mask)"
)
AFTER_SOFTMAX = (
    "the rows of your weights no longer sum to 1: apply the mask to the scores before the softmax, not to the weights"
)
NAN_ROW = (
    "a query whose keys are all masked gets NaN: its scores are all -inf and softmax computes 0/0. "
    "Give such rows zero weights (and so a zero output)"
)
LEAK = (
    "a query whose keys are all masked spreads its weight over every key: a large negative number instead of "
    "-inf leaks once every score of a row is equally large. Give fully masked rows zero weights"
)


def _attention_inputs(t_q: int = 4, t_k: int = 6) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = _generator()
    # Scores with a spread of about 4 (not 1), so that leaving out the scaling shows.
    query = torch.randn(2, 3, t_q, 16, generator=g) * 2
    key = torch.randn(2, 3, t_k, 16, generator=g) * 2
    value = torch.randn(2, 3, t_k, 5, generator=g)
    return query, key, value


def _weights_mistakes(query: torch.Tensor, key: torch.Tensor) -> list:
    scores = query @ key.transpose(-2, -1)
    return [
        (torch.softmax(scores, dim=-1), TOO_SHARP),
        (torch.softmax(scores / query.size(-1), dim=-1), BY_D_K),
        (torch.softmax(scores / math.sqrt(query.size(-1)), dim=-2), WRONG_AXIS),
        (lambda got: torch.allclose(got.sum(dim=-2), torch.ones(()), atol=1e-4), WRONG_AXIS),
    ]


def _check_unmasked(learner: ModuleType) -> None:
    query, key, value = _attention_inputs()
    output, weights = learner.scaled_dot_product_attention(query, key, value)
    _, expected_weights = scaled_dot_product_attention(query, key, value)
    expect_close(
        weights, expected_weights, "the weights (T_q = 4 queries, T_k = 6 keys)", _weights_mistakes(query, key)
    )
    # PyTorch's own function is the reference for the output.
    torch_output = nn.functional.scaled_dot_product_attention(query, key, value)
    expect_close(output, torch_output, "the output (against torch.nn.functional.scaled_dot_product_attention)")


def _check_boolean_mask(learner: ModuleType) -> None:
    query, key, value = _attention_inputs(5, 5)
    mask = masks.causal_mask(5)
    output, weights = learner.scaled_dot_product_attention(query, key, value, mask)
    expected_output, expected_weights = scaled_dot_product_attention(query, key, value, mask)
    scaled = torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(query.size(-1)), dim=-1)  # weights before any mask
    mistakes = [
        (scaled_dot_product_attention(query, key, value, ~mask)[1], FLIPPED),
        (lambda got: bool((got[..., ~mask] > 1e-6).any()) and not bool((got[..., mask] > 1e-6).all()), FLIPPED),
        (scaled * mask, AFTER_SOFTMAX),
        (lambda got: not torch.allclose(got.sum(-1), torch.ones(()), atol=1e-4), AFTER_SOFTMAX),
        *_weights_mistakes(query, key)[:3],
    ]
    expect_close(weights, expected_weights, "the weights under a causal mask", mistakes)
    expect_close(output, expected_output, "the output under a causal mask")


def _check_float_mask(learner: ModuleType) -> None:
    query, key, value = _attention_inputs()
    bias = torch.randn(4, 6, generator=_generator(1))
    output, weights = learner.scaled_dot_product_attention(query, key, value, bias)
    torch_output = nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=bias)
    hint = "a float mask is added to the scores (scores + mask), it is not a boolean"
    expect_close(output, torch_output, "the output with a float mask added to the scores", [(lambda got: True, hint)])


def _check_fully_masked_row(learner: ModuleType) -> None:
    query, key, value = _attention_inputs()
    mask = torch.ones(4, 6, dtype=torch.bool)
    mask[0] = False  # query 0 may attend to nothing
    output, weights = learner.scaled_dot_product_attention(query, key, value, mask)
    expected_output, expected_weights = scaled_dot_product_attention(query, key, value, mask)
    mistakes = [
        (lambda got: bool(torch.isnan(got).any()), NAN_ROW),
        (lambda got: torch.allclose(got[..., 0, :], torch.full_like(got[..., 0, :], 1 / 6), atol=1e-4), LEAK),
    ]
    expect_close(weights, expected_weights, "the weights of a query whose keys are all masked", mistakes)
    expect_close(output, expected_output, "the output of a query whose keys are all masked", mistakes[:1])


def _check_attention_errors(learner: ModuleType) -> None:
    query, key, value = torch.randn(2, 4, 8), torch.randn(2, 4, 6), torch.randn(2, 4, 5)
    expect_error(
        lambda: learner.scaled_dot_product_attention(query, key, value),
        (ValueError,),
        "query and key of widths 8 and 6",
    )


ATTENTION: Grader = [
    ("weights and output without a mask", _check_unmasked),
    ("a boolean causal mask", _check_boolean_mask),
    ("a float mask", _check_float_mask),
    ("a query whose keys are all masked", _check_fully_masked_row),
    ("a clear error for mismatched shapes", _check_attention_errors),
]

SAME_PROJECTION = (
    "queries and keys come from the same projection, so the score of t for s equals that of s for t: "
    "keys need their own W_K"
)


def _check_self_attention(learner: ModuleType) -> None:
    torch.manual_seed(0)
    reference = attention.SelfAttention(8, 4).eval()
    ours = _twin(learner.SelfAttention, reference, 8, 4)
    x, mask = torch.randn(2, 5, 8, generator=_generator()), masks.causal_mask(5)
    with torch.no_grad():
        query, value = reference.W_Q(x), reference.W_V(x)
        mistakes = [
            (scaled_dot_product_attention(query, query, value, mask)[1], SAME_PROJECTION),
            (reference(x)[1], "the mask is ignored: pass it on to the attention"),
        ]
        output, weights = ours(x, mask)
        expect_close(weights, reference(x, mask)[1], "the weights, with a causal mask", mistakes)
        expect_close(output, reference(x, mask)[0], "the output")


def _check_self_attention_error(learner: ModuleType) -> None:
    torch.manual_seed(0)
    layer = learner.SelfAttention(8, 4)
    expect_error(lambda: layer(torch.randn(2, 5, 6)), (ValueError,), "token vectors of width 6 for d_model = 8")


SELF_ATTENTION: Grader = [
    ("SelfAttention.forward against the reference", _check_self_attention),
    ("a clear error for the wrong width", _check_self_attention_error),
]

# ---------------------------------------------------------------- masks


def _check_causal(learner: ModuleType) -> None:
    ones = torch.ones(5, 5, dtype=torch.bool)
    mistakes = [
        (ones.tril(1), "token t can see token t + 1: tril() with no offset keeps exactly the diagonal"),
        (ones.tril(-1), "the diagonal is missing: a token may always attend to itself"),
        (ones.triu(1), "the mask is flipped: on this site True means 'may attend', so keep the lower triangle"),
        (ones.triu(), "that is the upper triangle: it lets each token see the future and hides the past"),
    ]
    expect_close(learner.causal_mask(5), masks.causal_mask(5), "causal_mask(5)", mistakes)
    for seq_len in (1, 2, 7):
        expect_close(learner.causal_mask(seq_len), masks.causal_mask(seq_len), f"causal_mask({seq_len})")


def _check_causal_error(learner: ModuleType) -> None:
    expect_error(lambda: learner.causal_mask(0), (ValueError,), "causal_mask(0)")


def _check_padding(learner: ModuleType) -> None:
    lengths = torch.tensor([3, 1, 5])
    expected = masks.padding_mask(lengths, max_len=6)
    mistakes = [
        (~expected, "the mask is flipped: True marks the real tokens, which may be attended to"),
        (expected[:, 0, 0], "return shape (B, 1, 1, T), so that it broadcasts over heads and queries"),
        (masks.padding_mask(lengths + 1, max_len=6), "one padding position too many is allowed: use <, not <="),
    ]
    expect_close(learner.padding_mask(lengths, max_len=6), expected, "padding_mask([3, 1, 5], max_len=6)", mistakes)
    expect_close(
        learner.padding_mask(torch.tensor([2, 4])), masks.padding_mask(torch.tensor([2, 4])),
        "padding_mask([2, 4]) with max_len left out", [(lambda got: True, "max_len defaults to the longest length")],
    )  # fmt: skip


def _check_padding_errors(learner: ModuleType) -> None:
    expect_error(lambda: learner.padding_mask(torch.tensor([2.0, 3.0])), (TypeError,), "float lengths")
    expect_error(lambda: learner.padding_mask(torch.tensor([2, 7]), max_len=4), (ValueError,), "a length above max_len")


def _check_to_torch(learner: ModuleType) -> None:
    mask = masks.causal_mask(4)
    expected = masks.to_torch_multihead_mask(mask)
    hint = "nn.MultiheadAttention reads True as 'blocked', the opposite of this site: flip the mask"
    expect_close(learner.to_torch_multihead_mask(mask), expected, "the converted causal mask", [(mask, hint)])
    attention = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(1, 4, 8, generator=_generator())
    _, weights = attention(x, x, x, attn_mask=learner.to_torch_multihead_mask(mask))
    expect_close(weights, weights * mask, "nn.MultiheadAttention's weights with your mask", [(lambda got: True, hint)])


def _check_to_torch_error(learner: ModuleType) -> None:
    expect_error(lambda: learner.to_torch_multihead_mask(torch.ones(2, 2)), (TypeError,), "a float mask")


CAUSAL_MASK: Grader = [
    ("causal_mask for several lengths", _check_causal),
    ("an error for seq_len 0", _check_causal_error),
]
PADDING_MASK: Grader = [("padding_mask", _check_padding), ("clear errors for bad lengths", _check_padding_errors)]
TO_TORCH_MASK: Grader = [("the converted mask", _check_to_torch), ("an error for a float mask", _check_to_torch_error)]

# ---------------------------------------------------------------- heads

NO_TRANSPOSE = (
    "the heads got mixed with the positions: view x as (B, T, h, d_k) and then transpose(1, 2); "
    "reshaping straight to (B, h, T, d_k) cuts the sequence, not the features"
)


def _check_split(learner: ModuleType) -> None:
    x = torch.randn(2, 5, 12, generator=_generator())
    mistakes = [(x.reshape(2, 3, 5, 4), NO_TRANSPOSE)]
    expect_close(learner.split_heads(x, 3), multi_head.split_heads(x, 3), "split_heads(x of (2, 5, 12), 3)", mistakes)


def _check_combine(learner: ModuleType) -> None:
    heads = torch.randn(2, 3, 5, 4, generator=_generator())
    mistakes = [(heads.reshape(2, 5, 12), NO_TRANSPOSE)]
    expected = multi_head.combine_heads(heads)
    expect_close(learner.combine_heads(heads), expected, "combine_heads(x of (2, 3, 5, 4))", mistakes)


def _check_round_trip(learner: ModuleType) -> None:
    x = torch.randn(2, 5, 12, generator=_generator(1))
    expect_close(learner.combine_heads(learner.split_heads(x, 4)), x, "combine_heads(split_heads(x, 4))")


HEADS: Grader = [
    ("split_heads", _check_split),
    ("combine_heads", _check_combine),
    ("combine_heads undoes split_heads", _check_round_trip),
]


def _check_multi_head(learner: ModuleType) -> None:
    torch.manual_seed(0)
    reference = multi_head.MultiHeadAttention(12, 3).eval()
    ours = _twin(learner.MultiHeadAttention, reference, 12, 3)
    g = _generator()
    query, memory = torch.randn(2, 4, 12, generator=g), torch.randn(2, 6, 12, generator=g)
    mask = masks.padding_mask(torch.tensor([6, 3]))
    expected, _ = reference(query, memory, memory, mask=mask)
    projections = (reference.W_Q, reference.W_K, reference.W_V)
    heads, _ = scaled_dot_product_attention(
        *(multi_head.split_heads(w(x), 3) for w, x in zip(projections, (query, memory, memory), strict=True)),
        mask,
    )  # fmt: skip
    mistakes = [
        (multi_head.combine_heads(heads), "the heads are concatenated but not mixed: apply W_O to the combined heads"),
        (reference(query, memory, memory)[0], "the mask is ignored: pass it on to the attention of every head"),
        (lambda got: got.shape == (2, 4, 12) and torch.allclose(got, reference(query)[0][:, :4], atol=1e-5),
         "keys and values come from `key` and `value`, not from `query`"),
    ]  # fmt: skip
    with torch.no_grad():
        output, weights = ours(query, memory, memory, mask=mask)
    expect_close(output, expected, "the output of cross-attention with a padding mask", mistakes)
    with torch.no_grad():
        self_output, _ = ours(query)
    expect_close(self_output, reference(query)[0], "the output of self-attention (key and value left out)")


MULTI_HEAD: Grader = [("MultiHeadAttention.forward against the reference", _check_multi_head)]

# ---------------------------------------------------------------- positions


def _check_table(learner: ModuleType) -> None:
    expected = positional.sinusoidal_table(50, 16)
    position = torch.arange(50.0)[:, None]
    frequency = torch.exp(torch.arange(0, 16, 2) * (-math.log(10000.0) / 16))
    swapped = torch.stack([torch.cos(position * frequency), torch.sin(position * frequency)], dim=-1).flatten(1)
    halves = torch.cat([torch.sin(position * frequency), torch.cos(position * frequency)], dim=1)
    slow = torch.exp(torch.arange(8) * (-math.log(10000.0) / 16))
    too_slow = torch.stack([torch.sin(position * slow), torch.cos(position * slow)], dim=-1).flatten(1)
    mistakes = [
        (swapped, "sines and cosines are swapped: even features (0, 2, ...) hold the sines"),
        (halves, "the sines fill the first half and the cosines the second: this table interleaves them, "
                 "sin in even features, cos in odd ones"),
        (too_slow, "the frequencies fall too slowly: feature pair i uses 10000^(2i / d_model), so the exponent "
                   "steps by 2 / d_model per pair"),
    ]  # fmt: skip
    expect_close(learner.sinusoidal_table(50, 16), expected, "sinusoidal_table(50, 16)", mistakes, atol=1e-4)


def _check_table_error(learner: ModuleType) -> None:
    expect_error(lambda: learner.sinusoidal_table(10, 7), (ValueError,), "an odd d_model")


SINUSOIDAL_TABLE: Grader = [("the table", _check_table), ("an error for an odd d_model", _check_table_error)]


def _check_rotation(learner: ModuleType) -> None:
    backwards = "your matrix moves the positions back: R_k must turn PE[pos] into PE[pos + k]; flip the sines' signs"
    expect_close(
        learner.shift_rotation(3, 8), positional.shift_rotation(3, 8), "shift_rotation(3, 8)",
        [(positional.shift_rotation(-3, 8), backwards)], atol=1e-5,
    )  # fmt: skip
    table = positional.sinusoidal_table(40, 8)
    expect_close(table[:35] @ learner.shift_rotation(5, 8).T, table[5:], "PE[pos] moved 5 positions on", atol=1e-4)


def _check_rotation_error(learner: ModuleType) -> None:
    expect_error(lambda: learner.shift_rotation(1, 5), (ValueError,), "an odd d_model")


SHIFT_ROTATION: Grader = [("R_k", _check_rotation), ("an error for an odd d_model", _check_rotation_error)]

# ---------------------------------------------------------------- feed-forward and layers


NO_ACTIVATION = "with no activation the two layers make one linear map: put a ReLU between them"


def _check_feed_forward(learner: ModuleType) -> None:
    torch.manual_seed(0)
    reference = feed_forward.FeedForward(8, 32).eval()
    ours = _twin(learner.FeedForward, reference, 8, 32)
    x = torch.randn(2, 5, 8, generator=_generator())
    mistakes = [
        (reference.linear2(reference.linear1(x)), NO_ACTIVATION),
        (lambda got: bool((got >= 0).all()), "ReLU goes between the two linear layers, not after the second"),
    ]  # fmt: skip
    with torch.no_grad():
        expect_close(ours(x), reference(x), "the output", mistakes)


FEED_FORWARD: Grader = [("FeedForward.forward against the reference", _check_feed_forward)]

PRE_NORM = (
    "you built the other order: norm_first=True normalizes each sub-layer's input and adds its output to x "
    "untouched, x + attention(norm1(x)); norm_first=False normalizes after the sum, norm1(x + attention(x))"
)
DROPOUT_ON_X = (
    "with both sub-layers outputting zeros, a training-mode pass still changed x: Dropout is applied to the "
    "residual stream. Drop only what a sub-layer adds: x + dropout(sublayer(x))"
)


def _layer_pair(learner_class: type[nn.Module], reference_class: type[nn.Module], norm_first: bool):
    torch.manual_seed(0)
    reference = reference_class(16, 4, 32, dropout=0.0, norm_first=norm_first).eval()
    return reference, _twin(learner_class, reference, 16, 4, 32, dropout=0.0, norm_first=norm_first)


def _check_encoder_layer(learner: ModuleType, norm_first: bool) -> None:
    reference, ours = _layer_pair(learner.EncoderLayer, encoder.EncoderLayer, norm_first)
    other, _ = _layer_pair(learner.EncoderLayer, encoder.EncoderLayer, not norm_first)
    x = torch.randn(2, 5, 16, generator=_generator())
    mask = masks.padding_mask(torch.tensor([5, 3]))
    with torch.no_grad():
        output, _ = ours(x, mask=mask)
        mistakes = [
            (other(x, mask=mask)[0], PRE_NORM),
            (reference(x)[0], "the mask is ignored: pass it to the attention"),
        ]
        expect_close(output, reference(x, mask=mask)[0], f"the output with norm_first={norm_first}", mistakes)


def _check_zero_sublayers(learner: ModuleType) -> None:
    torch.manual_seed(0)
    layer = learner.EncoderLayer(16, 4, 32, dropout=0.5, norm_first=True).train()
    with torch.no_grad():
        for linear in (layer.attention.W_O, layer.feed_forward.linear2):
            linear.weight.zero_()
            linear.bias.zero_()
    x = torch.randn(2, 5, 16, generator=_generator())
    with torch.no_grad():
        output, _ = layer(x)
    expect_close(
        output,
        x,
        "a pre-norm layer whose sub-layers output zeros, in training mode",
        [(lambda got: True, DROPOUT_ON_X)],
    )


ENCODER_LAYER: Grader = [
    ("post-norm (norm_first=False)", lambda learner: _check_encoder_layer(learner, False)),
    ("pre-norm (norm_first=True)", lambda learner: _check_encoder_layer(learner, True)),
    ("dropout touches only what a sub-layer adds", _check_zero_sublayers),
]


def _check_decoder_layer(learner: ModuleType, norm_first: bool) -> None:
    reference, ours = _layer_pair(learner.DecoderLayer, decoder.DecoderLayer, norm_first)
    other, _ = _layer_pair(learner.DecoderLayer, decoder.DecoderLayer, not norm_first)
    g = _generator()
    x, memory = torch.randn(2, 4, 16, generator=g), torch.randn(2, 6, 16, generator=g)
    target_mask, memory_mask = masks.causal_mask(4), masks.padding_mask(torch.tensor([6, 2]))
    with torch.no_grad():
        output, self_weights, cross_weights = ours(x, memory, target_mask, memory_mask)
        expected = reference(x, memory, target_mask, memory_mask)
        mistakes = [
            (other(x, memory, target_mask, memory_mask)[0], PRE_NORM),
            (reference(x, memory, None, memory_mask)[0],
             "the decoder sees the future: pass target_mask to the self-attention"),
            (reference(x, memory, target_mask, None)[0],
             "the padding of the source gets attention: pass memory_mask to the cross-attention"),
        ]  # fmt: skip
        expect_close(output, expected[0], f"the output with norm_first={norm_first}", mistakes)
    expect_close(cross_weights, expected[2], "the cross-attention weights (queries from x, keys from memory)")


DECODER_LAYER: Grader = [
    ("post-norm (norm_first=False)", lambda learner: _check_decoder_layer(learner, False)),
    ("pre-norm (norm_first=True)", lambda learner: _check_decoder_layer(learner, True)),
]

# ---------------------------------------------------------------- training


def _check_schedule(learner: ModuleType) -> None:
    for schedule in digit_model.SCHEDULES:
        steps = range(0, 400, 7)
        got = torch.tensor([float(learner.learning_rate_factor(s, 400, 100, schedule)) for s in steps])
        expected = torch.tensor([digit_model.learning_rate_factor(s, 400, 100, schedule) for s in steps])
        mistakes = [
            (lambda got: abs(got[0].item()) < 1e-9,
             "at step 0 your factor is 0, so the first step leaves the weights unchanged: "
             "rise as (step + 1) / warmup_steps"),
            (torch.tensor([1 / math.sqrt(s + 1) if s >= 100 else (s + 1) / 100 for s in steps]),
             "after the warm-up the factor must go on from 1: use sqrt(warmup_steps / (step + 1))"),
        ]  # fmt: skip
        expect_close(got, expected, f"the {schedule!r} factors with 100 warm-up steps of 400", mistakes, atol=1e-6)


def _check_schedule_error(learner: ModuleType) -> None:
    expect_error(lambda: learner.learning_rate_factor(0, 10, 0, "linear"), (ValueError,), "an unknown schedule")


SCHEDULE: Grader = [("every schedule", _check_schedule), ("an error for an unknown schedule", _check_schedule_error)]


def _check_classifier(learner: ModuleType) -> None:
    torch.manual_seed(0)
    body = encoder.Encoder(vocab_size=7, d_model=16, num_heads=4, d_ff=32, num_layers=1, dropout=0.0, pad_id=0)
    reference = encoder.EncoderClassifier(body, 3).eval()
    ours = _twin(learner.EncoderClassifier, reference, body, 3)
    tokens = torch.tensor([[3, 4, 5, 0, 0], [1, 2, 3, 4, 5]])
    with torch.no_grad():
        encoded, _ = body(tokens)
        plain_mean = reference.head(encoded.mean(dim=1))
        mistakes = [(plain_mean, "your mean counts the padding positions: average over the real tokens only")]
        expect_close(ours(tokens), reference(tokens), "the logits of two sequences, one padded", mistakes)
        longer = torch.cat([tokens, torch.zeros(2, 3, dtype=torch.long)], dim=1)
        expect_close(ours(longer), reference(tokens), "the logits after three more padding tokens")


CLASSIFIER: Grader = [("EncoderClassifier.forward against the reference", _check_classifier)]

# ---------------------------------------------------------------- checking against PyTorch


def _check_copy(learner: ModuleType) -> None:
    torch.manual_seed(0)
    source = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    with torch.no_grad():
        source.in_proj_bias.normal_()
        source.out_proj.bias.normal_()
    target = multi_head.MultiHeadAttention(8, 2).eval()
    learner.copy_multi_head_attention_weights(source, target)
    expected = multi_head.MultiHeadAttention(8, 2).eval()
    copy_multi_head_attention_weights(source, expected)
    q, k, v = source.in_proj_weight.detach().chunk(3)
    for name, weight in (("W_Q", q), ("W_K", k), ("W_V", v)):
        mistakes = [
            (weight.T, "nn.Linear stores its weight as (out, in), like in_proj_weight: copy it without .T"),
            *[(other, "in_proj_weight stacks W_Q, W_K and W_V in that order, along dim 0")
              for other in (q, k, v) if other is not weight],
        ]  # fmt: skip
        expect_close(
            getattr(target, name).weight.detach(), getattr(expected, name).weight.detach(), f"{name}.weight", mistakes
        )
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        expect_close(
            getattr(target, name).bias.detach(), getattr(expected, name).bias.detach(), f"{name}.bias",
            [(lambda got: True, "copy the biases too: in_proj_bias holds three, out_proj.bias one")],
        )  # fmt: skip
    x = torch.randn(2, 5, 8, generator=_generator())
    with torch.no_grad():
        expect_close(target(x)[0], source(x, x, x)[0], "the copy's output against nn.MultiheadAttention's")


COPY_WEIGHTS: Grader = [("the weights copied from nn.MultiheadAttention", _check_copy)]

# ---------------------------------------------------------------- encoder-decoder


def _check_shift_right(learner: ModuleType) -> None:
    target = torch.tensor([[7, 8, 9, 1], [2, 3, 4, 5]])
    start = torch.full((2, 1), 10)
    mistakes = [
        (target, "the target is not shifted: the decoder would be given the very token it must predict"),
        (torch.cat([target[:, 1:], start], 1), "you shifted left: the start token goes first, then the target "
                                                 "without its last token"),
        (torch.cat([torch.zeros(2, 1, dtype=torch.long), target[:, :-1]], 1), "the first token must be BOS (10)"),
    ]  # fmt: skip
    expect_close(learner.shift_right(target), shift_right(target), "shift_right of two targets", mistakes)


SHIFT_RIGHT: Grader = [("shift_right", _check_shift_right)]


def _check_seq2seq(learner: ModuleType) -> None:
    torch.manual_seed(0)
    reference = Seq2SeqModel().eval()
    ours = _twin(learner.Seq2SeqModel, reference)
    g = _generator()
    source, target = torch.randint(0, 10, (2, 8), generator=g), torch.randint(0, 10, (2, 6), generator=g)
    changed = target.clone()
    changed[:, 3:] = (changed[:, 3:] + 1) % 10  # only positions 3, 4, 5 change
    with torch.no_grad():
        before, after = ours(source, target)[0], ours(source, changed)[0]
        expect_close(
            after[:, :3], before[:, :3], "the logits of positions 0-2 after a change of the tokens at 3-5",
            [(lambda got: True, "the decoder sees the future: pass a causal mask as target_mask")],
        )  # fmt: skip
        expect_close(before, reference(source, target)[0], "the logits")


SEQ2SEQ: Grader = [("the past does not depend on the future", _check_seq2seq)]

# ---------------------------------------------------------------- language model

NATS = "that is in nats: divide by ln 2 (or use log2) to count bits"
UNSMOOTHED = "a character the training text never shows got probability 0 (infinite bits): add one to every count"


def _language_data() -> tuple[torch.Tensor, torch.Tensor]:
    g = _generator()
    train = torch.randint(0, 5, (200,), generator=g)  # id 5 never occurs in training
    held_out = torch.cat([torch.randint(0, 5, (50,), generator=g), torch.tensor([5, 2])])
    return train, held_out


def _as_tensor(value: object, what: str) -> torch.Tensor:
    try:
        return torch.tensor(float(value), dtype=torch.float64)
    except (TypeError, ValueError):
        raise Wrong(f"{what} should be a number, got {type(value).__name__}") from None


def _check_unigram(learner: ModuleType) -> None:
    train, held_out = _language_data()
    expected = language_model.unigram_bpc(train, held_out, 6)
    got = _as_tensor(learner.unigram_bpc(train, held_out, 6), "unigram_bpc")
    mistakes = [(torch.tensor(expected * math.log(2)), NATS), (lambda got: bool(torch.isinf(got)), UNSMOOTHED)]
    expect_close(got, torch.tensor(expected), "the unigram bits per character", mistakes, atol=1e-6)


def _check_bigram(learner: ModuleType) -> None:
    train, held_out = _language_data()
    expected = language_model.bigram_bpc(train, held_out, 6)
    pairs = train[:-1] * 6 + train[1:]
    counts = torch.bincount(pairs, minlength=36).double().view(6, 6) + 1
    by_column = -torch.log2(counts / counts.sum(dim=0, keepdim=True))[held_out[:-1], held_out[1:]].mean()
    mistakes = [
        (torch.tensor(expected * math.log(2)), NATS),
        (lambda got: bool(torch.isinf(got)), UNSMOOTHED.replace("character", "pair of characters")),
        (by_column, "normalize each row: P(next | previous) sums to 1 over the next character"),
    ]
    got = _as_tensor(learner.bigram_bpc(train, held_out, 6), "bigram_bpc")
    expect_close(got, torch.tensor(expected), "the bigram bits per character", mistakes, atol=1e-6)


UNIGRAM: Grader = [("unigram bits per character", _check_unigram)]
BIGRAM: Grader = [("bigram bits per character", _check_bigram)]

# ---------------------------------------------------------------- KV cache


def _check_cache(learner: ModuleType) -> None:
    torch.manual_seed(0)
    model = language_model.CharTransformer(vocab_size=12, d_model=16, num_heads=2, num_layers=2, context=16).eval()
    tokens = torch.randint(0, 12, (2, 9), generator=_generator())
    with torch.no_grad():
        full, _ = model(tokens)
    cache = learner.KVCache()
    prefill = learner.forward_with_cache(model, tokens[:, :1], cache)
    expect_close(prefill, full[:, :1], "the logits of the first token")
    if cache.length != 1:
        raise Wrong(f"after one token the cache holds {cache.length} positions",
                    "append each layer's new keys and values to cache.keys and cache.values")  # fmt: skip
    offset_zero = language_model.forward_with_cache(model, tokens[:, 1:2], language_model.KVCache(
        [k.clone() for k in cache.keys], [v.clone() for v in cache.values]), position_offset=0)  # fmt: skip
    step = learner.forward_with_cache(model, tokens[:, 1:2], cache)
    wrong_position = "the new token got position 0: its position is cache.length, the number of tokens before it"
    expect_close(step, full[:, 1:2], "the logits of the second token, from the cache", [(offset_zero, wrong_position)])
    several = learner.forward_with_cache(model, tokens[:, 2:6], cache)
    no_mask = "new tokens given together must not see each other's future: use rows cache.length.. of a causal mask"
    expect_close(several, full[:, 2:6], "the logits of four tokens given at once", [(lambda got: True, no_mask)])
    for t in range(6, 9):
        expect_close(learner.forward_with_cache(model, tokens[:, t : t + 1], cache), full[:, t : t + 1],
                     f"the logits of token {t}, from the cache", [(lambda got: True, wrong_position)])  # fmt: skip


def _check_cache_error(learner: ModuleType) -> None:
    torch.manual_seed(0)
    model = language_model.CharTransformer(vocab_size=12, d_model=16, num_heads=2, num_layers=1, context=4).eval()
    expect_error(
        lambda: learner.forward_with_cache(model, torch.zeros(1, 5, dtype=torch.long), learner.KVCache()),
        (ValueError,), "five tokens for a context of four",
    )  # fmt: skip


KV_CACHE: Grader = [
    ("cached logits equal the full model's", _check_cache),
    ("an error past the context", _check_cache_error),
]
