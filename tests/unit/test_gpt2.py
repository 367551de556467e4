"""GPT-2's choices on chapter 11's model: tanh GELU, learned positions, tied embeddings, a cache."""

import math

import pytest
import torch

from tutorial_code.gpt2 import GELUFeedForward, GPT2Block, GPT2Model
from tutorial_code.llama import greedy_generate

V = 50


def model(**options) -> GPT2Model:
    torch.manual_seed(0)
    return GPT2Model(**(dict(vocab_size=V, d_model=32, num_layers=2, num_heads=4, max_len=16) | options)).eval()


@pytest.fixture
def tokens():
    return torch.randint(0, V, (3, 9), generator=torch.Generator().manual_seed(0))


def test_the_feed_forward_uses_gpt2s_tanh_gelu():
    ffn = GELUFeedForward(4, 8)
    x = torch.randn(5, 4)
    h = ffn.linear1(x)
    gelu_new = 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))  # GPT-2's formula
    torch.testing.assert_close(ffn(x), ffn.linear2(gelu_new))


def test_a_block_whose_branches_output_zero_passes_its_input_through():
    block = GPT2Block(32, 4, 128)
    with torch.no_grad():
        for linear in (block.attention.W_O, block.feed_forward.linear2):
            linear.weight.zero_()
            linear.bias.zero_()
    x = torch.randn(2, 5, 32)
    assert torch.equal(block(x), x)


def test_shapes_tying_and_parameter_count(tokens):
    ours = model()
    assert ours(tokens).shape == (3, 9, V)
    assert ours.output.weight is ours.embedding.weight
    per_layer = 4 * 32 + 4 * (32 * 32 + 32) + (32 * 128 + 128) + (128 * 32 + 32)
    assert sum(p.numel() for p in ours.parameters()) == V * 32 + 16 * 32 + 2 * per_layer + 2 * 32
    assert model(tie_embeddings=False).output.weight is not model(tie_embeddings=False).embedding.weight


def test_cached_steps_and_padding(tokens):
    ours = model()
    cache = ours.new_cache()
    logits = [ours(tokens[:, :4], cache=cache)] + [ours(tokens[:, t : t + 1], cache=cache) for t in range(4, 9)]
    torch.testing.assert_close(torch.cat(logits, dim=1), ours(tokens), atol=1e-5, rtol=1e-5)
    keep = torch.ones(3, 9, dtype=torch.bool)
    keep[0, 6:] = False
    torch.testing.assert_close(ours(tokens, keep)[0, :6], ours(tokens[:1, :6])[0], atol=1e-5, rtol=1e-5)
    assert torch.equal(greedy_generate(ours, tokens[:, :2], 6), greedy_generate(ours, tokens[:, :2], 6, False))


def test_dropout_acts_in_training_mode_only(tokens):
    ours = model(dropout=0.5)
    assert torch.equal(ours(tokens), ours(tokens))
    ours.train()
    assert not torch.equal(ours(tokens), ours(tokens))


def test_a_sequence_longer_than_the_position_table_is_refused():
    ours = model()
    with pytest.raises(ValueError, match=r"0 cached and 17 new positions exceed max_len=16"):
        ours(torch.zeros(1, 17, dtype=torch.long))
    cache = ours.new_cache()
    ours(torch.zeros(1, 16, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match=r"16 cached and 1 new positions exceed max_len=16"):
        ours(torch.zeros(1, 1, dtype=torch.long), cache=cache)
