"""The misuse probe: the package's answer to calls that are wrong, one case per row.

Every row of `CASES` is a misuse a learner or a user could make. Each must end in an exception
of the stated type whose message names the problem (the argument, what was expected, what came):
never `index out of range in self`, `mat1 and mat2 shapes cannot be multiplied`, a NaN or an empty
result. Where PyTorch's own module answers a misuse in a way we keep (an empty batch passes
through, a dtype mismatch raises PyTorch's error), `ALIKE` shows ours and PyTorch's side by side.

Case ids start with their kind (`shape-`, `dtype-`, `mask-`, `length-`, `vocabulary-`, `generation-`,
`cache-`, `conversion-`, `training-`, `settings-`); the counts by kind are printed at the end of a run.
Tiny models (d_model 8) and no training step keep the whole file to a few seconds.
"""

import functools
import math
from collections import Counter

import pytest
import torch
from conftest import REPORT
from torch import nn

from tutorial_code.attention import SelfAttention, scaled_dot_product_attention
from tutorial_code.debugging import attention_entropy
from tutorial_code.decoder import DecoderLayer, Transformer
from tutorial_code.digit_model import DigitModel, evaluate, learning_rate_factor, train_digit_model
from tutorial_code.efficiency import FusedQKVAttention, matmul_gflops, padding_fraction
from tutorial_code.encoder import Encoder, EncoderClassifier, EncoderLayer
from tutorial_code.feed_forward import FeedForward
from tutorial_code.from_torch import (
    decoder_layer_from_torch,
    encoder_layer_from_torch,
    multi_head_attention_from_torch,
    transformer_from_torch,
)
from tutorial_code.gpt2 import GPT2Model
from tutorial_code.grouped_query import GroupedQueryAttention, grouped_attention
from tutorial_code.language_model import (
    CharTransformer,
    CharVocabulary,
    KVCache,
    bits_per_character,
    forward_with_cache,
    generate,
    random_windows,
    train_language_model,
)
from tutorial_code.llama import LlamaModel, greedy_generate, held_out_bpc, train_next_character
from tutorial_code.local_attention import (
    SlidingWindowCache,
    band_mask,
    blocked_local_attention,
    dilated_mask,
    reachable,
    sliding_window_step,
)
from tutorial_code.masks import (
    causal_mask,
    merge_masks,
    padding_mask,
    padding_mask_from_tokens,
    to_torch_multihead_mask,
)
from tutorial_code.multi_head import EfficientMultiHeadAttention, MultiHeadAttention
from tutorial_code.padded_tasks import (
    PAD,
    EncoderTagger,
    accuracy,
    add_padding,
    sequence_labels,
    token_labels,
    train_padded,
)
from tutorial_code.positional import (
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    positional_encoding,
    sinusoidal_table,
)
from tutorial_code.residual import Block, gradient_norm_per_layer
from tutorial_code.reverse_task import (
    Seq2SeqModel,
    beam_search,
    greedy_decode,
    sequence_accuracy,
    sequence_log_prob,
    train_reversal,
)
from tutorial_code.rms_norm import RMSNorm
from tutorial_code.rotary import apply_rotary, interleaved_to_half, rotary_angles
from tutorial_code.sum_task import make_batch, predict_sum, train_sum_model
from tutorial_code.swiglu import SwiGLU
from tutorial_code.tasks import argmax_batch, first_minus_last_batch

D, H, V = 8, 2, 10  # width, heads and vocabulary of every tiny model below


# ---------------------------------------------------------------- tiny models, built once


@functools.cache
def mha() -> MultiHeadAttention:
    torch.manual_seed(0)
    return MultiHeadAttention(D, H).eval()


@functools.cache
def efficient() -> EfficientMultiHeadAttention:
    return EfficientMultiHeadAttention(D, H).eval()


@functools.cache
def encoder_layer() -> EncoderLayer:
    return EncoderLayer(D, H, 16, dropout=0.0).eval()


@functools.cache
def decoder_layer() -> DecoderLayer:
    return DecoderLayer(D, H, 16, dropout=0.0).eval()


@functools.cache
def transformer() -> Transformer:
    return Transformer(D, H, 1, 1, 16, dropout=0.0).eval()


@functools.cache
def encoder() -> Encoder:
    return Encoder(vocab_size=V, d_model=D, num_heads=H, d_ff=16, num_layers=1, max_len=12, dropout=0.0).eval()


@functools.cache
def classifier() -> EncoderClassifier:
    return EncoderClassifier(encoder(), 3).eval()


@functools.cache
def char_model() -> CharTransformer:
    torch.manual_seed(0)
    return CharTransformer(vocab_size=V, d_model=D, num_heads=H, num_layers=1, context=8).eval()


@functools.cache
def seq2seq() -> Seq2SeqModel:
    return Seq2SeqModel(d_model=D, num_heads=H, d_ff=16, max_len=12).eval()


@functools.cache
def digit_model() -> DigitModel:
    return DigitModel(d_model=D, num_heads=H, d_ff=16, num_layers=1, max_len=8).eval()


@functools.cache
def gqa() -> GroupedQueryAttention:
    torch.manual_seed(0)
    return GroupedQueryAttention(D, H, num_kv_heads=1).eval()


@functools.cache
def llama() -> LlamaModel:
    torch.manual_seed(0)
    return LlamaModel(V, D, num_layers=1, num_heads=H, num_kv_heads=1, d_ff=16).eval()


@functools.cache
def gpt2() -> GPT2Model:
    torch.manual_seed(0)
    return GPT2Model(V, D, num_layers=1, num_heads=H, max_len=8).eval()


def new_tagger() -> EncoderTagger:
    encoder = Encoder(vocab_size=11, d_model=D, num_heads=H, d_ff=16, num_layers=1, dropout=0.0, pad_id=PAD)
    return EncoderTagger(encoder, 2)


@functools.cache
def tagger() -> EncoderTagger:
    torch.manual_seed(0)
    return new_tagger().eval()


def x(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0))


def ids(*shape: int, high: int = V) -> torch.Tensor:
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(0))


def cached(tokens: int = 3, batch: int = 2) -> KVCache:
    """A cache that already holds `tokens` positions of `batch` sequences."""
    cache = KVCache()
    forward_with_cache(char_model(), ids(batch, tokens), cache)
    return cache


def layer_caches_of(model: LlamaModel | GPT2Model, tokens: int = 3, batch: int = 2) -> list:
    """A model's per-layer caches after `tokens` positions of `batch` sequences."""
    cache = model.new_cache()
    model(ids(batch, tokens), cache=cache)
    return cache


def window_cache(batch: int = 1, heads: int = 2, width: int = 4) -> SlidingWindowCache:
    """A sliding-window cache (window 3) that keeps 2 positions of (batch, heads, width) keys and values."""
    cache = SlidingWindowCache(3)
    sliding_window_step(*[x(batch, heads, 2, width)] * 3, cache)
    return cache


def window_step(*shape: int, cache: SlidingWindowCache | KVCache) -> torch.Tensor:
    return sliding_window_step(*[x(*shape)] * 3, cache)


def torch_attention(**options) -> nn.MultiheadAttention:
    return nn.MultiheadAttention(D, H, **({"batch_first": True} | options))


def torch_encoder_layer(**options) -> nn.TransformerEncoderLayer:
    return nn.TransformerEncoderLayer(D, H, 16, **({"batch_first": True} | options))


def torch_decoder_layer(**options) -> nn.TransformerDecoderLayer:
    return nn.TransformerDecoderLayer(D, H, 16, **({"batch_first": True} | options))


def no_batches(batch_size: int, seq_len: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    raise AssertionError("the arguments should have been refused before any batch was drawn")


def case(name: str, call, error: type[Exception], message: str, *marks):
    return pytest.param(call, error, message, id=name, marks=marks)


QUIET_NESTED_TENSOR = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")


B, T = 2, 5
KEEP = torch.tensor([[True] * 5, [True, True, True, False, False]])  # (B, T): True = a real token
SQUARE = torch.tensor([[3, 4, 5, PAD], [1, 2, PAD, PAD], [7, PAD, PAD, PAD], [9, 9, 9, 9]])  # B = T = 4, padded

CASES = [
    # ---- shape: a tensor with the wrong number of axes or the wrong width
    case("shape-sdpa-query-1d", lambda: scaled_dot_product_attention(x(4), x(3, 4), x(3, 4)), ValueError,
         r"need at least 2 dimensions \(\.\.\., T, d\), got shapes \(4,\)"),
    case("shape-sdpa-d_k", lambda: scaled_dot_product_attention(x(3, 8), x(3, 4), x(3, 4)), ValueError,
         "query and key must have the same last dimension d_k, got 8 and 4"),
    case("shape-sdpa-T_k", lambda: scaled_dot_product_attention(x(3, 8), x(3, 8), x(4, 8)), ValueError,
         "key and value must hold the same number of positions T_k, got 3 and 4"),
    case("shape-self-attention-width", lambda: SelfAttention(D)(x(B, T, 6)), ValueError,
         r"x must have shape \(B, T, d_model=8\), got shape \(2, 5, 6\)"),
    case("shape-self-attention-2d", lambda: SelfAttention(D)(x(T, D)), ValueError,
         r"x must have shape \(B, T, d_model=8\), got shape \(5, 8\)"),
    case("shape-mha-query-width", lambda: mha()(x(B, T, 6)), ValueError,
         r"query must have shape \(B, T, d_model=8\), got shape \(2, 5, 6\)"),
    case("shape-mha-key-width", lambda: mha()(x(B, T, D), x(B, 7, 6), x(B, 7, 6)), ValueError,
         r"key must have shape \(B, T, d_model=8\), got shape \(2, 7, 6\)"),
    case("shape-mha-key-value-lengths", lambda: mha()(x(B, T, D), x(B, 7, D), x(B, 6, D)), ValueError,
         r"key and value must have the same \(B, T_k\), got \(2, 7, 8\) and \(2, 6, 8\)"),
    case("shape-mha-batch", lambda: mha()(x(B, T, D), x(3, 7, D), x(3, 7, D)), ValueError,
         "query and key must have the same batch size, got 2 and 3"),
    case("shape-mha-2d-query", lambda: mha()(x(T, D)), ValueError, r"query must have shape \(B, T, d_model=8\)"),
    case("shape-efficient-width", lambda: efficient()(x(B, T, 4)), ValueError,
         r"query must have shape \(B, T, d_model=8\), got shape \(2, 5, 4\)"),
    case("shape-encoder-layer-width", lambda: encoder_layer()(x(B, T, 6)), ValueError,
         r"must have shape \(B, T, d_model=8\), got shape \(2, 5, 6\)"),
    case("shape-decoder-memory-width", lambda: decoder_layer()(x(B, 3, D), x(B, 7, 4)), ValueError,
         r"key must have shape \(B, T, d_model=8\), got shape \(2, 7, 4\)"),
    case("shape-decoder-batch", lambda: decoder_layer()(x(B, 3, D), x(3, 7, D)), ValueError,
         "query and key must have the same batch size, got 2 and 3"),
    case("shape-transformer-source-width", lambda: transformer()(x(B, 7, 6), x(B, 3, D)), ValueError,
         r"must have shape \(B, T, d_model=8\), got shape \(2, 7, 6\)"),
    case("shape-feed-forward-width", lambda: FeedForward(D, 16)(x(B, T, 6)), ValueError,
         r"x must have shape \(\.\.\., d_model=8\), got shape \(2, 5, 6\)"),
    case("shape-residual-block-width", lambda: Block(D)(x(B, T, 6)), ValueError,
         r"x must have shape \(\.\.\., d_model=8\)"),
    case("shape-fused-qkv-width", lambda: FusedQKVAttention(D, H)(x(B, T, 6)), ValueError,
         r"x must have shape \(B, T, d_model=8\), got shape \(2, 5, 6\)"),
    case("shape-sinusoidal-width", lambda: SinusoidalPositionalEncoding(D, 16)(x(B, T, 6)), ValueError,
         r"x must have shape \(B, T, d_model=8\), got shape \(2, 5, 6\)"),
    case("shape-learned-positions-2d", lambda: LearnedPositionalEncoding(D, 16)(x(T, D)), ValueError,
         r"x must have shape \(B, T, d_model=8\), got shape \(5, 8\)"),
    case("shape-encoder-tokens-1d", lambda: encoder()(ids(T)), ValueError,
         r"tokens must have shape \(B, T\), got shape \(5,\)"),
    case("shape-char-model-tokens-3d", lambda: char_model()(ids(1, 2, 3)), ValueError,
         r"tokens must have shape \(B, T\), got shape \(1, 2, 3\)"),
    case("shape-seq2seq-source-1d", lambda: seq2seq()(ids(8), ids(B, 3)), ValueError,
         r"source must have shape \(B, T\), got shape \(8,\)"),
    case("shape-digit-model-1d", lambda: digit_model()(x(T)), ValueError,
         r"numbers must have shape \(B, T\), got shape \(5,\)"),
    case("shape-padding-mask-lengths-2d", lambda: padding_mask(torch.tensor([[3, 1]])), ValueError,
         r"lengths must have shape \(B,\), got shape \(1, 2\)"),
    case("shape-padding-mask-from-tokens-1d", lambda: padding_mask_from_tokens(ids(T)), ValueError,
         r"tokens must have shape \(B, T\), got shape \(5,\)"),
    case("shape-generate-prompt-2d", lambda: generate(char_model(), ids(1, 3), 2), ValueError,
         r"prompt must have shape \(T,\), got shape \(1, 3\)"),
    case("shape-decode-2d", lambda: CharVocabulary(list("abc")).decode(torch.tensor([[0, 1]])), ValueError,
         r"ids must have shape \(T,\), got shape \(1, 2\)"),
    case("shape-merge-masks-query-1d", lambda: merge_masks(causal_mask(3), None, x(3), x(B, 3, D)), ValueError,
         r"query and key must be \(B, T, \.\.\.\), got shapes \(3,\) and \(2, 3, 8\)"),
    # this round's modules: rotary positions, grouped-query attention, local attention, padded tasks
    case("shape-rms-norm-width", lambda: RMSNorm(D)(x(B, T, 6)), ValueError,
         "x must end with d_model=8 features, got 6"),
    case("shape-rotary-one-axis", lambda: apply_rotary(x(4)), ValueError,
         r"x must have shape \(\.\.\., T, head_dim\), got shape \(4,\)"),
    case("shape-gqa-width", lambda: gqa()(x(B, T, 6)), ValueError,
         r"x must have shape \(B, T, d_model=8\), got shape \(2, 5, 6\)"),
    case("shape-grouped-attention-no-heads-axis", lambda: grouped_attention(x(4, 3, 8), x(1, 3, 8), x(1, 3, 8)),
         ValueError, r"need h_kv dividing h, got shapes \(4, 3, 8\) and \(1, 3, 8\)"),
    case("shape-blocked-cross-attention", lambda: blocked_local_attention(x(B, T, 4), x(B, 7, 4), x(B, 7, 4), 2),
         ValueError, r"query and key must both be \(\.\.\., T, d_k\), of one shape \(self-attention\), got \(2, 5, 4\) "
                     r"and \(2, 7, 4\)"),
    case("shape-add-padding-one-sequence", lambda: add_padding(torch.tensor([3, 4]), 2), ValueError,
         r"tokens must have shape \(B, T\), got shape \(2,\)"),
    case("shape-log-prob-other-batch", lambda: sequence_log_prob(seq2seq(), ids(2, 8), ids(3, 8)), ValueError,
         "source and written must hold the same number of sequences B, got 2 and 3"),
    case("shape-accuracy-tagger-with-sequence-labels", lambda: accuracy(tagger(), sequence_labels, SQUARE),
         ValueError, r"the model gave logits of shape \(4, 4, 2\), which need targets of shape \(4, 4\), got \(4,\): "
                     r"a tagger's \(B, T, C\) logits need a label per token \(token_labels\)"),
    # ---- dtype: integers where floats belong, floats where ids belong, masks of the wrong type
    case("dtype-sdpa-integer-query", lambda: scaled_dot_product_attention(*[ids(3, 4)] * 3), TypeError,
         "query must be a floating-point tensor, got a tensor of dtype torch.int64"),
    case("dtype-sdpa-mixed", lambda: scaled_dot_product_attention(x(3, 4), x(3, 4).double(), x(3, 4)), TypeError,
         r"query and key must have the same dtype, got torch.float32 and torch.float64; convert one with \.to"),
    case("dtype-sdpa-list", lambda: scaled_dot_product_attention([[1.0]], x(1, 1), x(1, 1)), TypeError,
         "query must be a floating-point tensor, got list"),
    case("dtype-sdpa-integer-mask", lambda: scaled_dot_product_attention(*[x(3, 4)] * 3, mask=ids(3, 3, high=2)),
         TypeError, r"for a 0/1 mask use mask\.bool\(\)"),
    case("dtype-self-attention-integer", lambda: SelfAttention(D)(ids(B, T, D)), TypeError,
         "x must be a floating-point tensor of token vectors, got a tensor of dtype torch.int64"),
    case("dtype-feed-forward-integer", lambda: FeedForward(D, 16)(ids(B, T, D)), TypeError,
         "x must be a floating-point tensor"),
    case("dtype-fused-qkv-integer", lambda: FusedQKVAttention(D, H)(ids(B, T, D)), TypeError,
         "x must be a floating-point tensor"),
    case("dtype-encoder-float-tokens", lambda: encoder()(torch.rand(B, T)), TypeError,
         r"tokens must be integer ids \(torch\.long\), got a tensor of dtype torch\.float32"),
    case("dtype-encoder-bool-tokens", lambda: encoder()(torch.ones(B, T, dtype=torch.bool)), TypeError,
         r"tokens must be integer ids \(torch\.long\), got dtype torch\.bool"),
    case("dtype-char-model-float-tokens", lambda: char_model()(torch.rand(B, T)), TypeError,
         "tokens must be integer ids"),
    case("dtype-seq2seq-float-target", lambda: seq2seq()(ids(B, 8), torch.rand(B, 3)), TypeError,
         "target_input must be integer ids"),
    case("dtype-digit-model-integers", lambda: digit_model()(ids(B, T)), TypeError,
         r"numbers must be a float tensor, got a tensor of dtype torch\.int64 .*; use numbers\.float\(\)"),
    case("dtype-generate-float-prompt", lambda: generate(char_model(), torch.tensor([1.0, 2.0]), 2), TypeError,
         "prompt must be integer ids"),
    case("dtype-decode-float-tensor", lambda: CharVocabulary(list("abc")).decode(torch.tensor([0.0, 1.0])),
         TypeError, "ids must be integer ids"),
    case("dtype-decode-list-of-floats", lambda: CharVocabulary(list("abc")).decode([0, 1.5]), TypeError,
         r"ids must hold integer ids, got \['int', 'float'\]"),
    case("dtype-cache-float-tokens", lambda: forward_with_cache(char_model(), torch.rand(1, 2), KVCache()),
         TypeError, "tokens must be integer ids"),
    case("dtype-padding-mask-float-lengths", lambda: padding_mask(torch.tensor([1.0, 2.0])), TypeError,
         r"lengths must be an integer tensor of shape \(B,\)"),
    case("dtype-to-torch-mask-float", lambda: to_torch_multihead_mask(torch.ones(2, 2)), TypeError,
         r"mask must be a boolean tensor \(True = may attend\), got dtype torch\.float32"),
    case("dtype-mha-integer-mask", lambda: mha()(x(B, T, D), mask=ids(T, T, high=2)), TypeError,
         r"got dtype torch\.int64; for a 0/1 mask use mask\.bool\(\)"),
    case("dtype-mha-list-mask", lambda: mha()(x(B, T, D), mask=[[True] * T] * T), TypeError,
         "mask must be a torch.Tensor, got list"),
    case("dtype-mha-float-key-padding", lambda: mha()(x(B, T, D), key_is_real=KEEP.float()), TypeError,
         r"key_is_real must be boolean, True for a real token .*got a tensor of dtype torch\.float32"),
    case("dtype-mha-integer-key-padding", lambda: mha()(x(B, T, D), key_is_real=KEEP.long()), TypeError,
         "key_is_real must be boolean"),
    case("dtype-rms-norm-integer", lambda: RMSNorm(D)(ids(B, T, D)), TypeError,
         r"x must be a floating-point tensor, got a tensor of dtype torch\.int64 and shape \(2, 5, 8\)"),
    case("dtype-rotary-integer", lambda: apply_rotary(ids(B, T, 4)), TypeError,
         r"x must be a floating-point tensor, got a tensor of dtype torch\.int64"),
    case("dtype-rotary-fractional-offset", lambda: apply_rotary(x(B, T, 4), offset=1.5), TypeError,
         r"offset must be an int, got 1\.5 \(float\)"),
    case("dtype-reachable-integer-mask", lambda: reachable(band_mask(4, 2).long(), 2), TypeError,
         r"mask must be a boolean tensor \(True = may attend\), got torch\.int64"),
    case("dtype-add-padding-float-tokens", lambda: add_padding(torch.tensor([[3.0, 4.0]]), 2), TypeError,
         r"tokens must be integer ids \(torch\.long\), got a tensor of dtype torch\.float32"),
    # ---- mask: a (B, T) padding mask where (T_q, T_k) belongs, shapes that do not fit
    case("mask-mha-batch-by-time", lambda: mha()(x(B, T, D), mask=KEEP), ValueError,
         r"a 2-D mask is read as \(T_q, T_k\) = \(5, 5\), got shape \(2, 5\); a \(B, T_k\) padding mask goes in "
         r"key_is_real"),
    case("mask-mha-one-row", lambda: mha()(x(B, T, D), mask=KEEP[:1]), ValueError,
         r"a 2-D mask is read as \(T_q, T_k\) = \(5, 5\), got shape \(1, 5\)"),
    case("mask-mha-one-column", lambda: mha()(x(B, T, D), mask=torch.ones(T, 1, dtype=torch.bool)), ValueError,
         r"a 2-D mask is read as \(T_q, T_k\)"),
    case("mask-mha-three-axes", lambda: mha()(x(B, T, D), mask=torch.ones(B, T, T, dtype=torch.bool)), ValueError,
         r"mask must be \(T_q, T_k\) = \(5, 5\) or have four axes, .*got shape \(2, 5, 5\)"),
    case("mask-mha-one-axis", lambda: mha()(x(B, T, D), mask=KEEP[0]), ValueError,
         r"or have four axes, broadcastable to \(B, h, T_q, T_k\), got shape \(5,\)"),
    case("mask-mha-four-axes-wrong", lambda: mha()(x(B, T, D), mask=torch.ones(3, 1, 1, T, dtype=torch.bool)),
         ValueError, r"mask of shape \(3, 1, 1, 5\) cannot broadcast to the attention scores of shape \(2, 2, 5, 5\)"),
    case("mask-mha-key-padding-length", lambda: mha()(x(B, T, D), key_is_real=KEEP[:, :4]), ValueError,
         r"key_is_real must have shape \(B, T_k\) = \(2, 5\), got \(2, 4\)"),
    case("mask-mha-key-padding-batch", lambda: mha()(x(B, T, D), key_is_real=KEEP[:1]), ValueError,
         r"key_is_real must have shape \(B, T_k\) = \(2, 5\), got \(1, 5\)"),
    case("mask-mha-key-padding-four-axes", lambda: mha()(x(B, T, D), key_is_real=KEEP[:, None, None, :]),
         ValueError, r"key_is_real must have shape \(B, T_k\) = \(2, 5\), got \(2, 1, 1, 5\)"),
    case("mask-mha-cross-key-padding-of-queries", lambda: mha()(x(B, T, D), x(B, 7, D), key_is_real=KEEP),
         ValueError, r"key_is_real must have shape \(B, T_k\) = \(2, 7\), got \(2, 5\)"),
    case("mask-efficient-batch-by-time", lambda: efficient()(x(B, T, D), mask=KEEP), ValueError,
         "padding mask goes in key_is_real"),
    case("mask-efficient-key-padding", lambda: efficient()(x(B, T, D), key_is_real=KEEP.T), ValueError,
         r"key_is_real must have shape \(B, T_k\) = \(2, 5\), got \(5, 2\)"),
    case("mask-fused-qkv-batch-by-time", lambda: FusedQKVAttention(D, H)(x(B, T, D), mask=KEEP), ValueError,
         r"a 2-D mask is read as \(T_q, T_k\)"),
    case("mask-encoder-layer-batch-by-time", lambda: encoder_layer()(x(B, T, D), mask=KEEP), ValueError,
         "padding mask goes in key_is_real"),
    case("mask-encoder-layer-key-padding", lambda: encoder_layer()(x(B, T, D), key_is_real=KEEP[:, :3]),
         ValueError, r"key_is_real must have shape \(B, T_k\) = \(2, 5\)"),
    case("mask-encoder-batch-by-time", lambda: encoder()(ids(B, T), mask=KEEP), ValueError,
         "padding mask goes in key_is_real"),
    case("mask-decoder-memory-mask-square", lambda: decoder_layer()(x(B, 3, D), x(B, 7, D), memory_mask=causal_mask(3)),
         ValueError, r"a 2-D mask is read as \(T_q, T_k\) = \(3, 7\), got shape \(3, 3\)"),
    case("mask-decoder-memory-key-padding", lambda: decoder_layer()(x(B, 3, D), x(B, 7, D),
                                                                    memory_is_real=KEEP),
         ValueError, r"key_is_real must have shape \(B, T_k\) = \(2, 7\), got \(2, 5\)"),
    case("mask-transformer-source-key-padding", lambda: transformer()(x(B, 7, D), x(B, 3, D),
                                                                      source_is_real=KEEP),
         ValueError, r"key_is_real must have shape \(B, T_k\) = \(2, 7\)"),
    case("mask-digit-model-batch-by-time", lambda: digit_model()(x(B, T), mask=KEEP), ValueError,
         "padding mask goes in key_is_real"),
    case("mask-sdpa-not-broadcastable", lambda: scaled_dot_product_attention(*[x(B, T, D)] * 3, mask=KEEP[:, :4]),
         ValueError, r"mask of shape \(2, 4\) cannot broadcast to the attention scores of shape \(2, 5, 5\)"),
    case("mask-sdpa-padding-of-other-batch", lambda: scaled_dot_product_attention(
        *[x(B, H, T, 4)] * 3, mask=torch.ones(3, 1, 1, T, dtype=torch.bool)), ValueError,
         r"a padding mask should be \(B, 1, 1, T\)"),
    case("mask-padding-negative-length", lambda: padding_mask(torch.tensor([-1, 2])), ValueError,
         r"lengths must be >= 0, got \[-1, 2\]"),
    case("mask-padding-length-over-max", lambda: padding_mask(torch.tensor([5]), max_len=3), ValueError,
         r"a length in \[5\] exceeds max_len=3"),
    case("mask-causal-zero", lambda: causal_mask(0), ValueError, "seq_len must be >= 1, got 0"),
    case("dtype-causal-float-length", lambda: causal_mask(3.0), TypeError, "seq_len must be an int, got float"),
    case("mask-padding-negative-max-len", lambda: padding_mask(torch.tensor([], dtype=torch.long), max_len=-1),
         ValueError, "max_len must be >= 0, got -1"),
    case("mask-band-zero-window", lambda: band_mask(4, 0), ValueError, "window must be >= 1, got 0"),
    case("mask-dilated-zero-dilation", lambda: dilated_mask(5, 2, 0), ValueError, "dilation must be >= 1, got 0"),
    case("mask-reachable-not-square", lambda: reachable(torch.ones(3, 4, dtype=torch.bool), 2), ValueError,
         r"mask must be one layer's \(T, T\) mask, got shape \(3, 4\)"),
    case("mask-llama-transformers-attention-mask", lambda: llama()(ids(B, T), torch.ones(B, T, dtype=torch.long)),
         TypeError, r"padding_mask must be boolean \(True = a real token\), got dtype torch\.int64; for "
                    r"transformers' 0/1 attention_mask pass attention_mask\.bool\(\)"),
    case("mask-gqa-padding-of-other-batch", lambda: gqa()(x(B, T, D), torch.ones(3, T, dtype=torch.bool)),
         ValueError, r"padding_mask must have shape \(B, 5\) = \(2, 5\): one entry per cached and new position, got "
                     r"shape \(3, 5\)"),
    case("mask-gqa-padding-list", lambda: gqa()(x(B, T, D), KEEP.tolist()), TypeError,
         "padding_mask must be boolean \\(True = a real token\\), got list"),
    # ---- length: empty sequences and batches, sequences longer than a model takes
    case("length-encoder-empty", lambda: encoder()(ids(B, 0)), ValueError,
         r"tokens holds no positions \(shape \(2, 0\)\): give at least one token"),
    case("length-classifier-empty", lambda: classifier()(ids(B, 0)), ValueError, "tokens holds no positions"),
    case("length-char-model-empty", lambda: char_model()(ids(B, 0)), ValueError, "tokens holds no positions"),
    case("length-char-model-past-context", lambda: char_model()(ids(1, 9)), ValueError,
         "at most 8 tokens fit the context, got 9 in tokens; keep the last 8"),
    case("length-seq2seq-empty-target", lambda: seq2seq()(ids(B, 8), ids(B, 0)), ValueError,
         "target_input holds no positions"),
    case("length-seq2seq-source-too-long", lambda: seq2seq()(ids(B, 13), ids(B, 3)), ValueError,
         "sequence length 13 exceeds max_len=12 of the position table"),
    case("length-digit-model-empty", lambda: digit_model()(x(B, 0)), ValueError,
         r"numbers holds no positions \(shape \(2, 0\)\)"),
    case("length-digit-model-too-long", lambda: digit_model()(x(B, 9)), ValueError,
         "sequence length 9 exceeds max_len=8"),
    case("length-predict-sum-empty", lambda: predict_sum(digit_model(), []), ValueError, "numbers holds no positions"),
    case("length-encoder-too-long", lambda: encoder()(ids(1, 13)), ValueError, "sequence length 13 exceeds max_len=12"),
    case("length-generate-empty-prompt", lambda: generate(char_model(), ids(0), 2), ValueError,
         r"prompt holds no positions \(shape \(0,\)\): give at least one token"),
    case("length-cache-no-tokens", lambda: forward_with_cache(char_model(), ids(1, 0), KVCache()), ValueError,
         "tokens holds no positions"),
    case("length-argmax-too-long", lambda: argmax_batch(2, 11), ValueError,
         r"seq_len must be <= 10 .*distinct.*, got 11"),
    case("length-argmax-empty", lambda: argmax_batch(2, 0), ValueError, "seq_len must be >= 1, got 0"),
    case("length-first-minus-last-empty", lambda: first_minus_last_batch(2, 0), ValueError,
         "seq_len must be >= 1, got 0"),
    case("length-make-batch-empty-batch", lambda: make_batch(0, 8), ValueError, "batch_size must be >= 1, got 0"),
    case("length-random-windows-empty-batch", lambda: random_windows(ids(50), 0, 8, torch.Generator()), ValueError,
         "batch_size must be >= 1, got 0"),
    case("length-random-windows-short-text", lambda: random_windows(ids(9), 2, 8, torch.Generator()), ValueError,
         r"len\(ids\) must be >= 10, got 9"),
    case("length-bits-per-character-short-text", lambda: bits_per_character(char_model(), ids(8)), ValueError,
         r"len\(ids\) must be >= 9, got 8"),
    case("length-entropy-one-key", lambda: attention_entropy(torch.ones(3, 1)), ValueError,
         r"the number of keys, weights\.size\(-1\), must be >= 2, got 1"),
    case("length-padding-fraction-no-lengths", lambda: padding_fraction([], 4, bucketed=True), ValueError,
         "sequences must be >= 1, got 0"),
    case("length-padding-fraction-batch-zero", lambda: padding_fraction([3, 4], 0, bucketed=False), ValueError,
         "batch_size must be >= 1, got 0"),
    case("length-greedy-negative", lambda: greedy_decode(seq2seq(), ids(B, 8), -1), ValueError,
         "length must be >= 0, got -1"),
    case("length-sequence-accuracy-none", lambda: sequence_accuracy(seq2seq(), 0), ValueError,
         "sequences must be >= 1, got 0"),
    case("length-blocked-empty", lambda: blocked_local_attention(*[x(B, 0, 4)] * 3, 2), ValueError,
         r"the sequence holds no positions \(T = 0\): give at least one"),
    case("length-sliding-window-step-no-positions", lambda: window_step(1, 2, 0, 4, cache=SlidingWindowCache(2)),
         ValueError, r"query, key and value must hold the same new positions, \(B, h, n, d\) with n >= 1"),
    case("length-gpt2-past-max-len", lambda: gpt2()(ids(1, 9)), ValueError,
         "0 cached and 9 new positions exceed max_len=8"),
    case("length-held-out-bpc-zero-context", lambda: held_out_bpc(llama(), ids(20), context=0), ValueError,
         "context must be >= 1, got 0"),
    case("length-accuracy-only-padding", lambda: accuracy(tagger(), token_labels, torch.full((B, 3), PAD)),
         ValueError, r"every target is -100 \(a padded position, not scored\): nothing to score"),
    case("length-beam-past-max-len", lambda: beam_search(seq2seq(), ids(B, 8), 13, 2), ValueError,
         "sequence length 13 exceeds max_len=12"),
    # ---- vocabulary: ids outside [0, V), negative ids, unknown characters
    case("vocabulary-encoder-too-large", lambda: encoder()(torch.tensor([[1, 10]])), ValueError,
         r"token ids must lie in \[0, vocab_size=10\), got 10 in tokens at position \(0, 1\)"),
    case("vocabulary-encoder-negative", lambda: encoder()(torch.tensor([[1, -1]])), ValueError,
         r"token ids must lie in \[0, vocab_size=10\), got -1 in tokens"),
    case("vocabulary-classifier-too-large", lambda: classifier()(torch.tensor([[3, 12]])), ValueError,
         r"got 12 in tokens at position \(0, 1\)"),
    case("vocabulary-char-model-too-large", lambda: char_model()(torch.tensor([[3, 10]])), ValueError,
         r"token ids must lie in \[0, vocab_size=10\), got 10 in tokens"),
    case("vocabulary-char-model-negative", lambda: char_model()(torch.tensor([[-3, 1]])), ValueError,
         r"got -3 in tokens at position \(0, 0\)"),
    case("vocabulary-seq2seq-source", lambda: seq2seq()(torch.tensor([[1, 11]]), ids(1, 2)), ValueError,
         r"token ids must lie in \[0, vocab_size=11\), got 11 in source"),
    case("vocabulary-seq2seq-target-negative", lambda: seq2seq()(ids(1, 3), torch.tensor([[10, -2]])), ValueError,
         "got -2 in target_input"),
    case("vocabulary-greedy-source", lambda: greedy_decode(seq2seq(), torch.tensor([[1, 12]]), 2), ValueError,
         "got 12 in source"),
    case("vocabulary-generate-too-large", lambda: generate(char_model(), torch.tensor([1, 10]), 2), ValueError,
         r"token ids must lie in \[0, vocab_size=10\), got 10 in prompt at position \(1,\)"),
    case("vocabulary-generate-negative", lambda: generate(char_model(), torch.tensor([-1]), 2), ValueError,
         "got -1 in prompt"),
    case("vocabulary-cache-too-large", lambda: forward_with_cache(char_model(), torch.tensor([[10]]), KVCache()),
         ValueError, r"token ids must lie in \[0, vocab_size=10\), got 10 in tokens"),
    case("vocabulary-decode-negative", lambda: CharVocabulary(list("abc")).decode([0, -1]), ValueError,
         r"token ids must lie in \[0, vocab_size=3\), got -1 in ids at position \(1,\)"),
    case("vocabulary-decode-too-large-list", lambda: CharVocabulary(list("abc")).decode([3]), ValueError,
         "got 3 in ids"),
    case("vocabulary-decode-too-large-tensor", lambda: CharVocabulary(list("abc")).decode(torch.tensor([2, 7])),
         ValueError, r"got 7 in ids at position \(1,\)"),
    case("vocabulary-encode-unknown", lambda: CharVocabulary.of("abc").encode("abz"), ValueError,
         r"characters not in the vocabulary: \['z'\]"),
    case("vocabulary-llama-too-large", lambda: llama()(torch.tensor([[1, 10]])), ValueError,
         r"token ids must lie in \[0, vocab_size=10\), got 10 in tokens at position \(0, 1\)"),
    case("vocabulary-token-labels-outside", lambda: token_labels(torch.tensor([[3, 11]])), ValueError,
         r"token ids must lie in \[0, vocab_size=11\), got 11 in tokens"),
    # ---- generation: new_tokens, temperature, top_k
    case("generation-negative-new-tokens", lambda: generate(char_model(), ids(3), -2), ValueError,
         "new_tokens must be >= 0, got -2"),
    case("generation-fractional-new-tokens", lambda: generate(char_model(), ids(3), 2.5), TypeError,
         r"new_tokens must be an int, got 2\.5 \(float\)"),
    case("generation-zero-temperature", lambda: generate(char_model(), ids(3), 2, temperature=0), ValueError,
         "temperature must be > 0, got 0; for the single most likely token use top_k=1"),
    case("generation-negative-temperature", lambda: generate(char_model(), ids(3), 2, temperature=-1.0), ValueError,
         r"temperature must be > 0, got -1\.0"),
    case("generation-nan-temperature", lambda: generate(char_model(), ids(3), 2, temperature=math.nan), ValueError,
         "temperature must be > 0, got nan"),
    case("generation-infinite-temperature", lambda: generate(char_model(), ids(3), 2, temperature=math.inf),
         ValueError, "temperature must be > 0 and finite, got inf"),
    case("generation-top-k-zero", lambda: generate(char_model(), ids(3), 2, top_k=0), ValueError,
         "top_k must be >= 1, got 0"),
    case("generation-top-k-negative", lambda: generate(char_model(), ids(3), 2, top_k=-3), ValueError,
         "top_k must be >= 1, got -3"),
    case("generation-top-k-over-vocabulary", lambda: generate(char_model(), ids(3), 2, top_k=11), ValueError,
         "top_k must be <= vocab_size=10, got 11; top_k=None keeps every token"),
    case("generation-top-k-float", lambda: generate(char_model(), ids(3), 2, top_k=2.0), TypeError,
         r"top_k must be an int, got 2\.0"),
    case("generation-cached-top-k-over-vocabulary", lambda: generate(char_model(), ids(3), 2, top_k=20, use_cache=True),
         ValueError, "top_k must be <= vocab_size=10"),
    case("generation-list-prompt", lambda: generate(char_model(), [1, 2], 2), TypeError,
         r"prompt must be a tensor of integer ids \(torch\.long\), got list"),
    case("generation-greedy-fractional-length", lambda: greedy_decode(seq2seq(), ids(B, 8), 2.0), TypeError,
         r"length must be an int, got 2\.0"),
    case("generation-beam-zero-width", lambda: beam_search(seq2seq(), ids(B, 8), 8, 0), ValueError,
         "beam_width must be >= 1, got 0"),
    case("generation-beam-fractional-width", lambda: beam_search(seq2seq(), ids(B, 8), 8, 2.0), TypeError,
         r"beam_width must be an int, got 2\.0 \(float\)"),
    case("generation-top-p-zero", lambda: generate(char_model(), ids(3), 2, top_p=0), ValueError,
         r"top_p must be in \(0, 1\], got 0; 1 keeps every token"),
    case("generation-top-p-above-one", lambda: generate(char_model(), ids(3), 2, top_p=1.5), ValueError,
         r"top_p must be in \(0, 1\], got 1\.5"),
    case("generation-top-p-string", lambda: generate(char_model(), ids(3), 2, top_p="0.9"), TypeError,
         "top_p must be a number, got '0.9'; None keeps all tokens"),
    case("generation-greedy-generate-negative", lambda: greedy_generate(llama(), ids(1, 3), -1), ValueError,
         "new_tokens must be >= 0, got -1"),
    case("generation-greedy-generate-char-model", lambda: greedy_generate(char_model(), ids(1, 3), 2), TypeError,
         r"model must map \(B, T\) ids to \(B, T, V\) logits and have new_cache\(\).*got CharTransformer; for "
         "chapter 11's CharTransformer use generate"),
    # ---- cache: position_offset, batch size, the context
    case("cache-negative-offset", lambda: forward_with_cache(char_model(), ids(1, 1), KVCache(), position_offset=-1),
         ValueError, "position_offset must be >= 0, got -1"),
    case("cache-offset-past-context", lambda: forward_with_cache(char_model(), ids(1, 1), KVCache(), position_offset=8),
         ValueError, r"position_offset=8 puts 1 new tokens at positions 8 to 8, past the context of 8 \(positions 0 "
                     r"to 7\)"),
    case("cache-offset-runs-past-context", lambda: forward_with_cache(char_model(), ids(1, 3), KVCache(),
                                                                      position_offset=6),
         ValueError, "position_offset=6 puts 3 new tokens at positions 6 to 8, past the context of 8"),
    case("cache-fractional-offset", lambda: forward_with_cache(char_model(), ids(1, 1), KVCache(), position_offset=1.0),
         TypeError, r"position_offset must be an int, got 1\.0"),
    case("cache-full", lambda: forward_with_cache(char_model(), ids(B, 1), cached(8)), ValueError,
         "the cache holds 8 positions and 1 more do not fit the context of 8; start a new cache from the last tokens"),
    case("cache-too-many-at-once", lambda: forward_with_cache(char_model(), ids(1, 9), KVCache()), ValueError,
         "the cache holds 0 positions and 9 more do not fit the context of 8"),
    case("cache-other-batch", lambda: forward_with_cache(char_model(), ids(3, 1), cached(batch=2)), ValueError,
         r"the cache holds 2 sequences and tokens has 3; start a new KVCache\(\) for a new batch"),
    case("cache-tokens-1d", lambda: forward_with_cache(char_model(), ids(3), KVCache()), ValueError,
         r"tokens must have shape \(B, T\), got shape \(3,\)"),
    case("cache-sliding-window-zero", lambda: SlidingWindowCache(0), ValueError, "window must be >= 1, got 0"),
    case("cache-sliding-window-other-batch", lambda: window_step(3, 2, 1, 4, cache=window_cache(batch=1)), ValueError,
         r"the cache keeps keys of shape \(1, 2, 2, 4\) \(B, h, m, d\); the new key has shape \(3, 2, 1, 4\), and must "
         r"match it in B, h and d: start a new SlidingWindowCache for a new batch"),
    case("cache-sliding-window-other-width", lambda: window_step(1, 2, 1, 6, cache=window_cache(width=4)), ValueError,
         r"the cache keeps keys of shape \(1, 2, 2, 4\) .*the new key has shape \(1, 2, 1, 6\)"),
    case("cache-sliding-window-wrong-kind", lambda: window_step(1, 2, 1, 4, cache=KVCache()), TypeError,
         "cache must be a SlidingWindowCache, got KVCache"),
    case("cache-llama-other-batch", lambda: llama()(ids(3, 1), cache=layer_caches_of(llama(), batch=2)), ValueError,
         r"the cache holds keys of \(B, h_kv, d_k\) = \(2, 1, 4\), the new ones are \(3, 1, 4\): start a new cache"),
    case("cache-llama-one-cache-not-a-list", lambda: llama()(ids(B, T), cache=llama().new_cache()[0]), TypeError,
         "cache must be a list of KVCache, one per layer, got KVCache"),
    case("cache-llama-padding-mask-without-cached", lambda: llama()(
        ids(B, 1), torch.ones(B, 1, dtype=torch.bool), cache=layer_caches_of(llama(), tokens=3)), ValueError,
         r"padding_mask must have shape \(B, 4\) = \(2, 4\): one entry per cached and new position, got shape "
         r"\(2, 1\)"),
    case("cache-gpt2-past-max-len", lambda: gpt2()(ids(B, 6), cache=layer_caches_of(gpt2(), tokens=3)), ValueError,
         "3 cached and 6 new positions exceed max_len=8"),
    case("cache-rotary-negative-offset", lambda: apply_rotary(x(B, T, 4), offset=-1), ValueError,
         "offset must be >= 0, got -1"),
    # ---- conversion: PyTorch modules whose options the tutorial's modules cannot equal, refused by name
    case("conversion-attention-from-linear", lambda: multi_head_attention_from_torch(nn.Linear(D, D)), TypeError,
         "torch_attention must be an nn.MultiheadAttention, got Linear"),
    case("conversion-attention-from-layer", lambda: multi_head_attention_from_torch(torch_encoder_layer()), TypeError,
         "got TransformerEncoderLayer; for an nn.TransformerEncoderLayer use encoder_layer_from_torch"),
    case("conversion-attention-sequence-first", lambda: multi_head_attention_from_torch(torch_attention(
        batch_first=False)), ValueError, r"built with batch_first=False and reads \(T, B, d_model\)"),
    case("conversion-attention-zero-attn", lambda: multi_head_attention_from_torch(torch_attention(add_zero_attn=True)),
         ValueError, "add_zero_attn=True, which appends a zero key and value"),
    case("conversion-attention-bias-kv", lambda: multi_head_attention_from_torch(torch_attention(add_bias_kv=True)),
         ValueError, "add_bias_kv=True"),
    case("conversion-attention-kdim", lambda: multi_head_attention_from_torch(torch_attention(kdim=4, vdim=4)),
         ValueError, "kdim=4 and vdim=4, but embed_dim=8"),
    case("conversion-attention-vdim", lambda: multi_head_attention_from_torch(torch_attention(vdim=6)), ValueError,
         "kdim=8 and vdim=6, but embed_dim=8"),
    case("conversion-encoder-from-decoder-layer", lambda: encoder_layer_from_torch(torch_decoder_layer()), TypeError,
         "torch_layer must be an nn.TransformerEncoderLayer, got TransformerDecoderLayer; for an "
         "nn.TransformerDecoderLayer use decoder_layer_from_torch"),
    case("conversion-encoder-from-attention", lambda: encoder_layer_from_torch(torch_attention()), TypeError,
         "got MultiheadAttention; for an nn.MultiheadAttention use multi_head_attention_from_torch"),
    case("conversion-encoder-from-linear", lambda: encoder_layer_from_torch(nn.Linear(D, D)), TypeError,
         "torch_layer must be an nn.TransformerEncoderLayer, got Linear$"),
    case("conversion-encoder-sequence-first", lambda: encoder_layer_from_torch(torch_encoder_layer(batch_first=False)),
         ValueError, "built with batch_first=False; build the PyTorch layer with batch_first=True"),
    case("conversion-encoder-gelu", lambda: encoder_layer_from_torch(torch_encoder_layer(activation="gelu")),
         ValueError, "only activation='relu' is supported"),
    case("conversion-encoder-no-bias", lambda: encoder_layer_from_torch(torch_encoder_layer(bias=False)), ValueError,
         "built with bias=False; this tutorial's layers always have biases"),
    case("conversion-decoder-from-encoder-layer", lambda: decoder_layer_from_torch(torch_encoder_layer()), TypeError,
         "must be an nn.TransformerDecoderLayer, got TransformerEncoderLayer; for an nn.TransformerEncoderLayer use "
         "encoder_layer_from_torch"),
    case("conversion-decoder-gelu", lambda: decoder_layer_from_torch(torch_decoder_layer(activation="gelu")),
         ValueError, "only activation='relu' is supported"),
    case("conversion-decoder-no-bias", lambda: decoder_layer_from_torch(torch_decoder_layer(bias=False)), ValueError,
         "bias=False"),
    case("conversion-decoder-sequence-first", lambda: decoder_layer_from_torch(torch_decoder_layer(batch_first=False)),
         ValueError, "batch_first=True"),
    case("conversion-transformer-from-layer", lambda: transformer_from_torch(torch_encoder_layer()), TypeError,
         "torch_model must be an nn.Transformer, got TransformerEncoderLayer"),
    case("conversion-transformer-sequence-first", lambda: transformer_from_torch(nn.Transformer(D, H, 1, 1, 16)),
         ValueError, "torch_model's first layer was built with batch_first=False", QUIET_NESTED_TENSOR),
    case("conversion-transformer-gelu", lambda: transformer_from_torch(
        nn.Transformer(D, H, 1, 1, 16, activation="gelu", batch_first=True)), ValueError, "activation='relu'"),
    case("conversion-interleaved-to-half-head-dim", lambda: interleaved_to_half(x(12, 4), 8), ValueError,
         "head_dim must be even and divide the projection's 12 output features; got 8"),
    # ---- training: sizes, steps and learning rates refused before the first step
    case("training-zero-steps", lambda: train_sum_model(steps=0), ValueError, "steps must be >= 1, got 0"),
    case("training-fractional-steps", lambda: train_sum_model(steps=2.5), TypeError,
         r"steps must be an int, got 2\.5"),
    case("training-empty-batch", lambda: train_digit_model(no_batches, nn.MSELoss(), batch_size=0), ValueError,
         "batch_size must be >= 1, got 0"),
    case("training-empty-sequences", lambda: train_sum_model(steps=1, seq_len=0), ValueError,
         "seq_len must be >= 1, got 0"),
    case("training-negative-lr", lambda: train_digit_model(no_batches, nn.MSELoss(), lr=-1e-3), ValueError,
         r"lr must be a finite number > 0, got -0\.001"),
    case("training-nan-lr", lambda: train_digit_model(no_batches, nn.MSELoss(), lr=math.nan), ValueError,
         "lr must be a finite number > 0, got nan"),
    case("training-negative-clip", lambda: train_digit_model(no_batches, nn.MSELoss(), clip_norm=-1.0), ValueError,
         r"clip_norm must be a finite number > 0, got -1\.0"),
    case("training-negative-warmup", lambda: train_digit_model(no_batches, nn.MSELoss(), warmup_steps=-3),
         ValueError, "warmup_steps must be >= 0, got -3"),
    case("training-unknown-schedule", lambda: train_digit_model(no_batches, nn.MSELoss(), schedule="linear"),
         ValueError, r"schedule must be one of \('constant', 'inverse_sqrt', 'cosine'\), got 'linear'"),
    case("training-negative-step", lambda: learning_rate_factor(-1, 10, 5), ValueError,
         "step must be >= 0, got -1"),
    case("training-evaluate-empty", lambda: evaluate(digit_model(), no_batches, nn.MSELoss(), seq_len=0),
         ValueError, "seq_len must be >= 1, got 0"),
    case("training-reversal-zero-steps", lambda: train_reversal(steps=0), ValueError, "steps must be >= 1, got 0"),
    case("training-language-model-zero-steps", lambda: train_language_model(steps=0), ValueError,
         "steps must be >= 1, got 0"),
    case("training-gradient-norms-no-layers", lambda: gradient_norm_per_layer(num_layers=0), ValueError,
         "num_layers must be >= 1, got 0"),
    case("training-matmul-no-repeats", lambda: matmul_gflops(size=8, repeats=0), ValueError,
         "repeats must be >= 1, got 0"),
    case("training-next-character-zero-steps", lambda: train_next_character(llama(), ids(100), 0, seed=0), ValueError,
         "steps must be >= 1, got 0"),
    case("training-padded-zero-steps", lambda: train_padded(new_tagger(), token_labels, steps=0), ValueError,
         "steps must be >= 1, got 0"),
    case("training-padded-tagger-with-sequence-labels", lambda: train_padded(new_tagger(), sequence_labels, steps=1),
         ValueError, r"the model gave logits of shape \(32, \d+, 2\), which need targets of shape \(32, \d+\), got "
                     r"\(32,\)"),
    case("training-label-smoothing-one", lambda: train_reversal(steps=1, label_smoothing=1.0), ValueError,
         r"label_smoothing must be in \[0, 1\), got 1\.0; the paper uses 0\.1"),
    case("training-label-smoothing-negative", lambda: train_reversal(steps=1, label_smoothing=-0.1), ValueError,
         r"label_smoothing must be in \[0, 1\), got -0\.1"),
    case("training-label-smoothing-string", lambda: train_reversal(steps=1, label_smoothing="0.1"), TypeError,
         r"label_smoothing must be a number in \[0, 1\), got '0\.1' \(str\)"),
    case("training-reversal-fractional-steps", lambda: train_reversal(steps=2.5), TypeError,
         r"steps must be an int, got 2\.5 \(float\)"),
    # ---- settings: sizes and options of a module
    case("settings-heads-do-not-divide", lambda: MultiHeadAttention(D, 3), ValueError,
         "d_model=8 must be divisible by num_heads=3"),
    case("settings-module-dropout-above-one", lambda: MultiHeadAttention(D, H, dropout=1.5), ValueError,
         r"dropout must be a probability in \[0, 1\], got 1\.5"),
    case("settings-zero-heads", lambda: MultiHeadAttention(D, 0), ValueError, "num_heads must be >= 1, got 0"),
    case("settings-unknown-positional", lambda: positional_encoding("rotary", D), ValueError,
         "positional must be 'sinusoidal', 'learned' or 'none', got 'rotary'"),
    case("settings-odd-sinusoidal-width", lambda: sinusoidal_table(4, 7), ValueError,
         r"d_model must be even \(sines and cosines in pairs\), got 7"),
    case("settings-learned-negative-max-len", lambda: LearnedPositionalEncoding(D, -1), ValueError,
         "max_len must be >= 1, got -1"),
    case("settings-one-class", lambda: EncoderClassifier(encoder(), 1), ValueError,
         "num_classes must be >= 2, got 1"),
    case("settings-gqa-kv-heads-do-not-divide", lambda: GroupedQueryAttention(D, 4, 3), ValueError,
         "num_kv_heads=3 must divide num_heads=4: each key/value head serves the same number of query heads"),
    case("settings-gqa-more-kv-heads-than-heads", lambda: GroupedQueryAttention(D, 2, 4), ValueError,
         "num_kv_heads=4 must divide num_heads=2"),
    case("settings-gqa-width-not-divisible", lambda: GroupedQueryAttention(10, 4), ValueError,
         "d_model=10 is not divisible by num_heads=4; give head_dim explicitly or divisible sizes"),
    case("settings-gqa-odd-head-dim-for-rope", lambda: GroupedQueryAttention(6, 2), ValueError,
         "rotary positions turn pairs of features: head_dim must be even, got 3"),
    case("settings-gqa-zero-rope-base", lambda: GroupedQueryAttention(D, H, rope_base=0), ValueError,
         "rope_base must be a finite number > 0, got 0"),
    case("settings-rotary-odd-head-dim", lambda: rotary_angles(4, 5), ValueError,
         r"head_dim must be even \(RoPE turns pairs\), got 5"),
    case("settings-rotary-negative-base", lambda: apply_rotary(x(B, T, 4), base=-2.0), ValueError,
         r"base must be a finite number > 0, got -2\.0"),
    case("settings-gpt2-heads-do-not-divide", lambda: GPT2Model(V, 10, num_layers=1, num_heads=4), ValueError,
         "d_model=10 is not divisible by num_heads=4"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "message"), CASES)
def test_a_misuse_gets_a_message_that_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()


# ---------------------------------------------------------------- where PyTorch's own module does the same


def _raises(call) -> tuple[type[Exception], str]:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the point is which exception
        return type(error), str(error)
    raise AssertionError("expected an exception")


def _attention_pair() -> tuple[MultiHeadAttention, nn.MultiheadAttention]:
    torch.manual_seed(0)
    theirs = torch_attention().eval()
    return multi_head_attention_from_torch(theirs), theirs


def alike_attention_without_keys():
    """T_k = 0: no key to attend to. Both return the output projection's bias for every query, no NaN."""
    ours, theirs = _attention_pair()
    query, nothing = x(B, 3, D), x(B, 0, D)
    torch.testing.assert_close(ours(query, nothing, nothing)[0], theirs(query, nothing, nothing)[0])
    assert not ours(query, nothing, nothing)[0].isnan().any()


def alike_attention_empty_batch():
    ours, theirs = _attention_pair()
    empty = x(0, T, D)
    assert ours(empty)[0].shape == theirs(empty, empty, empty)[0].shape == (0, T, D)


def alike_attention_no_queries():
    ours, theirs = _attention_pair()
    keys, nothing = x(B, T, D), x(B, 0, D)
    assert ours(nothing, keys, keys)[0].shape == theirs(nothing, keys, keys)[0].shape == (B, 0, D)


def alike_attention_float64_input():
    """A float64 input to float32 weights: PyTorch's projection refuses it, in ours as in theirs."""
    ours, theirs = _attention_pair()
    wide = x(B, T, D).double()
    assert _raises(lambda: ours(wide))[0] is _raises(lambda: theirs(wide, wide, wide))[0] is RuntimeError
    assert "same dtype" in _raises(lambda: ours(wide))[1]


def alike_attention_integer_input():
    ours, theirs = _attention_pair()
    integers = ids(B, T, D)
    assert _raises(lambda: ours(integers))[0] is _raises(lambda: theirs(integers, integers, integers))[0]


def alike_encoder_layer_empty_batch():
    theirs = torch_encoder_layer(dropout=0.0).eval()
    empty = x(0, T, D)
    assert encoder_layer_from_torch(theirs)(empty)[0].shape == theirs(empty).shape == (0, T, D)


def alike_encoder_layer_empty_sequence():
    theirs = torch_encoder_layer(dropout=0.0).eval()
    empty = x(B, 0, D)
    assert encoder_layer_from_torch(theirs)(empty)[0].shape == theirs(empty).shape == (B, 0, D)


def alike_transformer_empty_target():
    theirs = nn.Transformer(D, H, 1, 1, 16, dropout=0.0, batch_first=True).train()
    source, target = x(B, 4, D), x(B, 0, D)
    assert transformer_from_torch(theirs)(source, target).shape == theirs(source, target).shape == (B, 0, D)


def alike_feed_forward_empty_sequence():
    assert FeedForward(D, 16)(x(B, 0, D)).shape == nn.Linear(D, D)(x(B, 0, D)).shape == (B, 0, D)


def alike_sdpa_batch_mismatch():
    """Leading axes that do not broadcast: both name the sizes that clash."""
    query, other = x(2, 3, 4), x(3, 3, 4)
    ours = _raises(lambda: scaled_dot_product_attention(query, other, other))
    theirs = _raises(lambda: nn.functional.scaled_dot_product_attention(query, other, other))
    assert ours == theirs and ours[0] is RuntimeError and "must match the size" in ours[1]


def alike_sdpa_dropout_above_one():
    ours = _raises(lambda: scaled_dot_product_attention(*[x(3, 4)] * 3, dropout_p=1.5))
    theirs = _raises(lambda: nn.functional.scaled_dot_product_attention(*[x(3, 4)] * 3, dropout_p=1.5))
    assert ours[1] == theirs[1] == "dropout probability has to be between 0 and 1, but got 1.5"


def alike_sdpa_negative_dropout():
    """A negative dropout_p drops nothing, in ours as in F.scaled_dot_product_attention."""
    q = x(3, 4)
    torch.testing.assert_close(scaled_dot_product_attention(q, q, q, dropout_p=-0.5)[0],
                               nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=-0.5))  # fmt: skip


def alike_sdpa_fully_masked_row():
    """A query whose keys are all masked: zeros, as F.scaled_dot_product_attention gives (not NaN)."""
    q = x(1, 3, 4)
    blocked = torch.tensor([[True, False, False], [False, False, False], [True, True, True]])
    ours, _ = scaled_dot_product_attention(q, q, q, mask=blocked)
    torch.testing.assert_close(ours, nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=blocked))
    assert ours[0, 1].abs().max() == 0


def alike_encoder_pad_id_outside_vocabulary():
    """pad_id goes to nn.Embedding's padding_idx, which checks it."""
    ours = _raises(lambda: Encoder(vocab_size=V, d_model=D, num_heads=H, d_ff=16, num_layers=1, pad_id=V))
    assert ours == _raises(lambda: nn.Embedding(V, D, padding_idx=V))


def alike_training_unknown_device():
    ours = _raises(lambda: train_digit_model(no_batches, nn.MSELoss(), steps=1, device="gpu"))
    theirs = _raises(lambda: torch.zeros(1).to("gpu"))
    assert ours == theirs and "Expected one of cpu, cuda" in ours[1]


def alike_rms_norm_empty_batch():
    empty = x(0, T, D)
    assert RMSNorm(D)(empty).shape == nn.RMSNorm(D, eps=1e-6)(empty).shape == (0, T, D)


def alike_rms_norm_float64_input():
    """A float64 input to float32 weights: both compute in float64, and agree."""
    wide = x(B, T, D).double()
    ours, theirs = RMSNorm(D)(wide), nn.RMSNorm(D, eps=1e-6)(wide)
    assert ours.dtype == theirs.dtype == torch.float64
    torch.testing.assert_close(ours, theirs)


def alike_swiglu_float64_input():
    """A float64 input to float32 weights: the first projection refuses it, as nn.Linear does."""
    wide = x(B, T, D).double()
    ours, theirs = _raises(lambda: SwiGLU(D, 16)(wide)), _raises(lambda: nn.Linear(D, 16, bias=False)(wide))
    assert ours == theirs and ours[0] is RuntimeError


def alike_gqa_empty_batch():
    """With as many key/value heads as heads and no rotation it is multi-head attention: an empty batch passes."""
    ours = GroupedQueryAttention(D, H, rope_base=None).eval()
    empty = x(0, T, D)
    assert ours(empty).shape == torch_attention()(empty, empty, empty)[0].shape == (0, T, D)


def alike_blocked_empty_batch():
    empty = x(0, T, 4)
    theirs = nn.functional.scaled_dot_product_attention(empty, empty, empty, attn_mask=band_mask(T, 2))
    assert blocked_local_attention(empty, empty, empty, 2).shape == theirs.shape == (0, T, 4)


def alike_band_mask_unknown_device():
    ours, theirs = _raises(lambda: band_mask(4, 2, device="gpu")), _raises(lambda: torch.arange(4, device="gpu"))
    assert ours == theirs and "Expected one of cpu, cuda" in ours[1]


def alike_next_character_negative_lr():
    """A negative learning rate: refused by AdamW when it is built, before any step."""
    ours = _raises(lambda: train_next_character(llama(), ids(100), 1, seed=0, lr=-1.0))
    theirs = _raises(lambda: torch.optim.AdamW(llama().parameters(), lr=-1.0))
    assert ours == theirs == (ValueError, "Invalid learning rate: -1.0")


ALIKE = [
    pytest.param(alike_attention_without_keys, id="length-attention-without-keys"),
    pytest.param(alike_attention_empty_batch, id="length-attention-empty-batch"),
    pytest.param(alike_attention_no_queries, id="length-attention-no-queries"),
    pytest.param(alike_encoder_layer_empty_batch, id="length-encoder-layer-empty-batch"),
    pytest.param(alike_encoder_layer_empty_sequence, id="length-encoder-layer-empty-sequence"),
    pytest.param(alike_transformer_empty_target, id="length-transformer-empty-target"),
    pytest.param(alike_feed_forward_empty_sequence, id="length-feed-forward-empty-sequence"),
    pytest.param(alike_attention_float64_input, id="dtype-attention-float64-input"),
    pytest.param(alike_attention_integer_input, id="dtype-attention-integer-input"),
    pytest.param(alike_sdpa_batch_mismatch, id="shape-sdpa-batch-mismatch"),
    pytest.param(alike_sdpa_dropout_above_one, id="settings-sdpa-dropout-above-one"),
    pytest.param(alike_sdpa_negative_dropout, id="settings-sdpa-negative-dropout"),
    pytest.param(alike_sdpa_fully_masked_row, id="mask-sdpa-fully-masked-row"),
    pytest.param(alike_encoder_pad_id_outside_vocabulary, id="vocabulary-pad-id-outside"),
    pytest.param(alike_training_unknown_device, id="training-unknown-device"),
    pytest.param(alike_rms_norm_empty_batch, id="length-rms-norm-empty-batch"),
    pytest.param(alike_gqa_empty_batch, id="length-gqa-empty-batch"),
    pytest.param(alike_blocked_empty_batch, id="length-blocked-empty-batch"),
    pytest.param(
        alike_rms_norm_float64_input,
        id="dtype-rms-norm-float64-input",
        marks=pytest.mark.filterwarnings("ignore:Mismatch dtype between input and weight"),
    ),
    pytest.param(alike_swiglu_float64_input, id="dtype-swiglu-float64-input"),
    pytest.param(alike_band_mask_unknown_device, id="settings-band-mask-unknown-device"),
    pytest.param(alike_next_character_negative_lr, id="training-next-character-negative-lr"),
]


@pytest.mark.parametrize("check", ALIKE)
def test_where_pytorch_behaves_the_same_so_do_we(check):
    check()


def test_the_probe_has_at_least_100_distinct_cases_in_every_kind():
    names = [param.id for param in CASES]
    alike = [param.id for param in ALIKE]
    assert len(set(names)) == len(names) >= 100
    assert not set(names) & set(alike)
    kinds = ("shape", "dtype", "mask", "length", "vocabulary", "generation", "cache", "conversion", "training",
             "settings")  # fmt: skip
    clear, same = Counter(n.split("-")[0] for n in names), Counter(n.split("-")[0] for n in alike)
    assert set(clear) | set(same) <= set(kinds) and all(clear[kind] for kind in kinds)
    REPORT["misuse probe (clear message + same as PyTorch)"] = (
        ", ".join(f"{kind} {clear[kind]}+{same[kind]}" for kind in kinds) + f"; total {len(names)}+{len(alike)}"
    )
