"""The Llama-style block and model: pre-norm residuals, tied embeddings, padding, cached generation."""

import pytest
import torch

from tutorial_code.llama import LlamaBlock, LlamaModel, greedy_generate

V = 50


def model(**options) -> LlamaModel:
    torch.manual_seed(0)
    settings = dict(vocab_size=V, d_model=32, num_layers=2, num_heads=4, num_kv_heads=2, d_ff=64) | options
    return LlamaModel(**settings).eval()


@pytest.fixture
def tokens():
    return torch.randint(0, V, (3, 9), generator=torch.Generator().manual_seed(0))


def test_a_block_whose_branches_output_zero_passes_its_input_through():
    block = LlamaBlock(32, 4, 2, 64)
    with torch.no_grad():
        block.attention.W_O.weight.zero_()
        block.feed_forward.down.weight.zero_()
    x = torch.randn(2, 5, 32)
    assert torch.equal(block(x), x)  # x + 0 + 0: the residual path carries x unchanged


def test_parameters_and_shapes(tokens):
    ours = model()
    assert ours(tokens).shape == (3, 9, V)
    per_layer = 2 * 32 + 32 * 32 + 2 * (16 * 32) + 32 * 32 + 3 * 32 * 64  # norms, W_Q, W_K+W_V, W_O, SwiGLU
    assert sum(p.numel() for p in ours.parameters()) == V * 32 + 2 * per_layer + 32 + V * 32
    tied = model(tie_embeddings=True)
    assert tied.output.weight is tied.embedding.weight
    assert sum(p.numel() for p in tied.parameters()) == V * 32 + 2 * per_layer + 32


def test_positions_matter_through_the_rotations_alone(tokens):
    ours = model()
    swapped = tokens.clone()
    swapped[:, [0, 1]] = tokens[:, [1, 0]]
    assert (ours(swapped)[:, -1] - ours(tokens)[:, -1]).abs().max() > 1e-4  # order changes the last logits
    plain = model(rope_base=10000.0)
    assert not any("position" in name for name, _ in plain.named_parameters())


def test_a_padded_sequence_gives_at_its_real_positions_what_it_gives_alone(tokens):
    ours = model()
    keep = torch.ones(3, 9, dtype=torch.bool)
    keep[2, 5:] = False
    torch.testing.assert_close(ours(tokens, keep)[2, :5], ours(tokens[2:, :5])[0], atol=1e-5, rtol=1e-5)


def test_cached_steps_equal_the_full_forward(tokens):
    ours = model()
    cache = ours.new_cache()
    logits = [ours(tokens[:, :4], cache=cache)] + [ours(tokens[:, t : t + 1], cache=cache) for t in range(4, 9)]
    torch.testing.assert_close(torch.cat(logits, dim=1), ours(tokens), atol=1e-5, rtol=1e-5)
    assert sum(c.nbytes for c in cache) == 2 * 2 * 3 * 2 * 9 * 8 * 4  # K and V, layers, B, h_kv, T, d_k, fp32


def test_greedy_generation_is_the_same_with_and_without_the_cache(tokens):
    ours = model()
    with_cache = greedy_generate(ours, tokens[:, :3], new_tokens=8)
    assert with_cache.shape == (3, 11) and torch.equal(with_cache[:, :3], tokens[:, :3])
    assert torch.equal(with_cache, greedy_generate(ours, tokens[:, :3], new_tokens=8, use_cache=False))
    assert torch.equal(greedy_generate(ours, tokens, new_tokens=0), tokens)


def test_bad_input_says_what_to_change(tokens):
    with pytest.raises(ValueError, match=r"token ids must lie in \[0, vocab_size=50\)"):
        model()(tokens + 100)
    with pytest.raises(ValueError, match=r"new_tokens must be >= 0, got -1"):
        greedy_generate(model(), tokens, new_tokens=-1)


def test_a_cache_of_the_wrong_shape_says_what_to_do(tokens):
    ours = model()
    with pytest.raises(ValueError, match=r"cache holds 1 caches for 2 layers: start one with model.new_cache"):
        ours(tokens, cache=ours.new_cache()[:1])
    cache = ours.new_cache()
    ours(tokens, cache=cache)
    held = r"the cache holds keys of \(B, h_kv, d_k\) = \(3, 2, 8\), the new ones are \(1, 2, 8\)"
    with pytest.raises(ValueError, match=held):
        ours(tokens[:1, :1], cache=cache)
