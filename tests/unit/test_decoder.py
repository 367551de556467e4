"""The decoder layer and the encoder-decoder Transformer equal PyTorch's after copying the weights, masks included."""

import pytest
import torch
from torch import nn

from tutorial_code.decoder import DecoderLayer, Transformer
from tutorial_code.from_torch import decoder_layer_from_torch, transformer_from_torch
from tutorial_code.masks import causal_mask, padding_mask

LENGTHS = torch.tensor([7, 4, 1])  # source lengths: the padding differs per sequence


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
def test_decoder_layer_equals_pytorch_with_both_masks(norm_first, assert_matches_torch):
    torch.manual_seed(0)
    theirs = nn.TransformerDecoderLayer(32, 4, 64, dropout=0.0, batch_first=True, norm_first=norm_first)
    ours = decoder_layer_from_torch(theirs)
    x, memory = torch.randn(3, 5, 32), torch.randn(3, 7, 32)
    keys = padding_mask(LENGTHS, max_len=7)  # (B, 1, 1, S), True = may attend
    out, _, cross = ours(x, memory, target_mask=causal_mask(5), memory_mask=keys)
    expected = theirs(x, memory, tgt_mask=~causal_mask(5), memory_key_padding_mask=~keys[:, 0, 0], tgt_is_causal=False)
    assert_matches_torch("nn.TransformerDecoderLayer", out, expected)
    assert cross.shape == (3, 4, 5, 7)
    assert cross[2, :, :, 1:].abs().max() == 0  # the third source has one real token


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
def test_transformer_equals_pytorch_with_masks(norm_first, assert_matches_torch):
    torch.manual_seed(0)
    theirs = nn.Transformer(32, 4, 2, 2, 64, dropout=0.0, batch_first=True, norm_first=norm_first)
    theirs.train()  # dropout is 0; train mode keeps PyTorch off its nested-tensor fast path
    ours = transformer_from_torch(theirs)
    source, target = torch.randn(3, 7, 32), torch.randn(3, 5, 32)
    keys = padding_mask(LENGTHS, max_len=7)
    out = ours(source, target, source_mask=keys, target_mask=causal_mask(5))
    expected = theirs(
        source,
        target,
        tgt_mask=~causal_mask(5),
        src_key_padding_mask=~keys[:, 0, 0],
        memory_key_padding_mask=~keys[:, 0, 0],
    )
    assert_matches_torch("nn.Transformer", out, expected)


def test_the_decoder_cannot_see_the_future():
    torch.manual_seed(0)
    layer = DecoderLayer(16, 4, 32, dropout=0.0).eval()
    x, memory = torch.randn(1, 6, 16), torch.randn(1, 4, 16)
    changed = x.clone()
    changed[0, 4:] += 1.0  # change positions 4 and 5 only
    before = layer(x, memory, target_mask=causal_mask(6))[0]
    after = layer(changed, memory, target_mask=causal_mask(6))[0]
    torch.testing.assert_close(before[0, :4], after[0, :4])


def test_cross_attention_ignores_what_fills_the_source_padding():
    torch.manual_seed(0)
    model = Transformer(16, 4, 1, 1, 32, dropout=0.0).eval()
    source, target = torch.randn(1, 6, 16), torch.randn(1, 3, 16)
    other = source.clone()
    other[0, 4:] = torch.randn(2, 16)  # different padding content
    keys = padding_mask(torch.tensor([4]), max_len=6)
    torch.testing.assert_close(model(source, target, source_mask=keys), model(other, target, source_mask=keys))


def test_from_torch_refuses_a_sequence_first_model():
    with pytest.raises(ValueError, match="batch_first=True"):
        transformer_from_torch(nn.Transformer(16, 4, 1, 1, 32))


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
def test_decoder_layer_key_padding_masks_equal_pytorch(norm_first, assert_matches_torch):
    torch.manual_seed(0)
    theirs = nn.TransformerDecoderLayer(32, 4, 64, dropout=0.0, batch_first=True, norm_first=norm_first)
    ours = decoder_layer_from_torch(theirs)
    x, memory = torch.randn(3, 5, 32), torch.randn(3, 7, 32)
    source_keep = padding_mask(LENGTHS, max_len=7)[:, 0, 0]  # (B, S), True = real token
    target_keep = padding_mask(torch.tensor([5, 5, 3]), max_len=5)[:, 0, 0]  # (B, T)
    out, _, _ = ours(x, memory, target_mask=causal_mask(5), target_is_real=target_keep, memory_is_real=source_keep)
    expected = theirs(
        x,
        memory,
        tgt_mask=~causal_mask(5),
        tgt_key_padding_mask=~target_keep,
        memory_key_padding_mask=~source_keep,
        tgt_is_causal=False,
    )
    assert_matches_torch("nn.TransformerDecoderLayer", out, expected)
    # the same as the four-axis masks of before
    as_masks = ours(
        x, memory, target_mask=causal_mask(5) & target_keep[:, None, None, :], memory_mask=source_keep[:, None, None, :]
    )[0]
    torch.testing.assert_close(out, as_masks)


def test_transformer_key_padding_masks_equal_pytorch(assert_matches_torch):
    torch.manual_seed(0)
    theirs = nn.Transformer(32, 4, 2, 2, 64, dropout=0.0, batch_first=True).train()
    ours = transformer_from_torch(theirs)
    source, target = torch.randn(3, 7, 32), torch.randn(3, 5, 32)
    source_keep = padding_mask(LENGTHS, max_len=7)[:, 0, 0]
    target_keep = padding_mask(torch.tensor([5, 2, 4]), max_len=5)[:, 0, 0]
    out = ours(
        source,
        target,
        target_mask=causal_mask(5),
        source_is_real=source_keep,
        target_is_real=target_keep,
    )
    expected = theirs(
        source,
        target,
        tgt_mask=~causal_mask(5),
        src_key_padding_mask=~source_keep,
        tgt_key_padding_mask=~target_keep,
        memory_key_padding_mask=~source_keep,
    )
    assert_matches_torch("nn.Transformer", out, expected)
