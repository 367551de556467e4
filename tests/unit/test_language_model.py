"""The character language model: data, baselines, generation, and the KV cache that must not change a token."""

import pytest
import torch

from tutorial_code.language_model import (
    CharTransformer,
    CharVocabulary,
    KVCache,
    bigram_bpc,
    forward_with_cache,
    generate,
    known_word_share,
    python_reference_text,
    split,
    unigram_bpc,
    with_attention_weights,
)


@pytest.fixture(scope="module")
def model() -> CharTransformer:
    torch.manual_seed(0)
    return CharTransformer(vocab_size=20, d_model=32, num_heads=4, num_layers=2, context=24).eval()


def test_the_text_is_prose_and_round_trips():
    text = python_reference_text()
    assert len(text) > 100_000 and "|" not in text
    vocabulary = CharVocabulary.of(text[:5000])
    assert vocabulary.decode(vocabulary.encode(text[:500])) == text[:500]
    with pytest.raises(ValueError, match="not in the vocabulary"):
        CharVocabulary.of("abc").encode("abd")


def test_the_bigram_beats_the_unigram_on_real_text():
    text = python_reference_text()
    vocabulary = CharVocabulary.of(text)
    train, held_out = split(vocabulary.encode(text))
    assert len(held_out) == pytest.approx(len(text) * 0.1, abs=1)
    V = len(vocabulary.chars)
    assert bigram_bpc(train, held_out, V) < unigram_bpc(train, held_out, V) < torch.log2(torch.tensor(V))


def test_the_cache_gives_the_logits_of_a_full_forward(model):
    tokens = torch.randint(0, 20, (2, 10))
    full, _ = model(tokens)
    cache = KVCache()
    first = forward_with_cache(model, tokens[:, :6], cache)  # a prompt
    rest = [forward_with_cache(model, tokens[:, t : t + 1], cache) for t in range(6, 10)]  # one token at a time
    torch.testing.assert_close(torch.cat([first, *rest], dim=1), full, atol=1e-5, rtol=0)
    assert cache.length == 10


@pytest.mark.parametrize("top_k", [1, 5, None], ids=["greedy", "top-5", "sampled"])
def test_cached_and_uncached_generation_write_the_same_tokens(model, top_k):
    prompt = torch.tensor([1, 2, 3])
    # 40 new tokens: past the context of 24, where the window starts to slide
    plain = generate(model, prompt, 40, 0.9, top_k, torch.Generator().manual_seed(3))
    cached = generate(model, prompt, 40, 0.9, top_k, torch.Generator().manual_seed(3), use_cache=True)
    assert torch.equal(plain, cached)


def test_a_wrong_position_offset_changes_the_output(model):
    tokens = torch.randint(0, 20, (1, 8))
    right, wrong = KVCache(), KVCache()
    forward_with_cache(model, tokens[:, :7], right)
    forward_with_cache(model, tokens[:, :7], wrong)
    correct = forward_with_cache(model, tokens[:, 7:], right)
    shifted = forward_with_cache(model, tokens[:, 7:], wrong, position_offset=0)
    assert (correct - shifted).abs().max() > 1e-3


def test_the_cache_checks_shapes_only_on_the_meta_device(model):
    """On the meta device (shapes without values) the ids cannot be read: the checks that need them step aside."""
    meta = CharTransformer(vocab_size=20, d_model=32, num_heads=4, num_layers=2, context=24).to("meta").eval()
    logits = forward_with_cache(meta, torch.zeros(2, 3, dtype=torch.long, device="meta"), KVCache())
    assert logits.shape == (2, 3, 20) and logits.is_meta


def test_a_full_cache_says_what_to_do(model):
    cache = KVCache()
    forward_with_cache(model, torch.zeros(1, 24, dtype=torch.long), cache)
    with pytest.raises(ValueError, match="do not fit the context of 24"):
        forward_with_cache(model, torch.zeros(1, 1, dtype=torch.long), cache)


def test_bad_generation_arguments_are_refused(model):
    with pytest.raises(ValueError, match="temperature must be > 0"):
        generate(model, torch.tensor([1]), 3, temperature=0)
    with pytest.raises(ValueError, match="at least one token"):
        generate(model, torch.tensor([], dtype=torch.long), 3)
    with pytest.raises(ValueError, match="at most 24 tokens"):
        model(torch.zeros(1, 25, dtype=torch.long))


def test_the_twin_with_weights_computes_the_same_logits(model):
    tokens = torch.randint(0, 20, (2, 12))
    twin = with_attention_weights(model)
    logits, weights = twin(tokens)
    torch.testing.assert_close(logits, model(tokens)[0], atol=1e-5, rtol=0)
    assert weights[0].shape == (2, 4, 12, 12)
    assert weights[0][0, :, 0, 1:].abs().max() == 0  # causal


def test_known_word_share_counts_words_not_characters():
    assert known_word_share("the cat", "the dog") == 0.5
    assert known_word_share("", "anything") == 0.0
