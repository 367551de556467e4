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
    top_p_filter,
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


def test_top_p_keeps_the_smallest_set_that_reaches_p():
    # probabilities 0.5, 0.25, 0.125, 0.125 (exact in binary), the tokens in another order
    logits = torch.log(torch.tensor([0.125, 0.5, 0.125, 0.25]))
    kept = {p: (top_p_filter(logits, p) > float("-inf")).tolist() for p in (0.3, 0.6, 0.7, 0.8, 0.9)}
    assert kept[0.3] == [False, True, False, False]  # 0.5 alone reaches 0.3
    assert kept[0.6] == kept[0.7] == [False, True, False, True]  # 0.5 + 0.25 = 0.75
    assert sum(kept[0.8]) == 3 and kept[0.8][1] and kept[0.8][3]  # 0.875: one of the two tied at 0.125
    assert kept[0.9] == [True, True, True, True]  # 0.875 < 0.9: all four
    filtered = top_p_filter(logits, 0.7)
    assert torch.equal(filtered[[1, 3]], logits[[1, 3]])  # kept logits are unchanged


def test_top_p_edge_cases_keep_all_or_only_the_likeliest():
    torch.manual_seed(0)
    logits = torch.randn(3, 50) * 4  # a batch of three distributions
    assert torch.equal(top_p_filter(logits, 1.0), logits)  # p = 1 keeps every token
    tiny = top_p_filter(logits, 1e-6)  # p near 0 keeps the likeliest token only
    assert ((tiny > float("-inf")).sum(dim=-1) == 1).all()
    assert torch.equal(tiny.argmax(dim=-1), logits.argmax(dim=-1))
    kept = top_p_filter(logits, 0.9) > float("-inf")
    probabilities = logits.softmax(dim=-1)
    assert ((probabilities * kept).sum(dim=-1) >= 0.9).all()
    smallest = probabilities.sort(dim=-1, descending=True).values.cumsum(dim=-1) < 0.9
    assert torch.equal(kept.sum(dim=-1), smallest.sum(dim=-1) + 1)  # no smaller set reaches 0.9


@pytest.mark.parametrize(
    ("top_p", "error"),
    [(0, ValueError), (1.5, ValueError), (float("nan"), ValueError), ("0.9", TypeError), (True, TypeError)],
)
def test_a_bad_top_p_is_refused_before_the_first_step(model, top_p, error):
    with pytest.raises(error, match="top_p"):
        generate(model, torch.tensor([1]), 0, top_p=top_p)


def test_generation_with_top_p_1_is_plain_sampling_and_top_p_tiny_is_greedy(model):
    prompt = torch.tensor([1, 2, 3])
    plain = generate(model, prompt, 20, generator=torch.Generator().manual_seed(3))
    assert torch.equal(generate(model, prompt, 20, generator=torch.Generator().manual_seed(3), top_p=1.0), plain)
    greedy = generate(model, prompt, 20, top_k=1, generator=torch.Generator().manual_seed(3))
    assert torch.equal(generate(model, prompt, 20, generator=torch.Generator().manual_seed(3), top_p=1e-6), greedy)


def test_tied_weights_share_one_matrix_and_leave_the_default_model_unchanged():
    torch.manual_seed(0)
    untied = CharTransformer(vocab_size=20, d_model=32, num_heads=4, context=24)
    torch.manual_seed(0)
    tied = CharTransformer(vocab_size=20, d_model=32, num_heads=4, context=24, tie_weights=True)
    assert tied.output.weight is tied.embedding.weight
    assert untied.output.weight is not untied.embedding.weight
    count = {name: sum(p.numel() for p in m.parameters()) for name, m in (("untied", untied), ("tied", tied))}
    assert count["untied"] - count["tied"] == 20 * 32  # one (V, d_model) matrix fewer
    # the same random draws in the same order: every parameter but the output weight is equal
    tied_state = tied.state_dict()
    for name, value in untied.state_dict().items():
        if name != "output.weight":
            assert torch.equal(value, tied_state[name]), name
    assert torch.equal(tied_state["output.weight"], tied_state["embedding.weight"])
    logits, _ = tied(torch.tensor([[1, 2, 3]]))
    hidden = tied.final_norm(tied.positions(tied.embedding(torch.tensor([[1, 2, 3]]))))
    assert logits.shape == (1, 3, 20) and hidden.shape == (1, 3, 32)


def test_tied_weights_get_one_gradient_from_both_uses():
    torch.manual_seed(0)
    tied = CharTransformer(vocab_size=20, d_model=32, num_heads=4, context=24, tie_weights=True)
    logits, _ = tied(torch.tensor([[1, 2, 3]]))
    logits.sum().backward()
    gradient = tied.embedding.weight.grad
    assert gradient is tied.output.weight.grad
    assert gradient[0].abs().sum() > 0  # token 0 is in no input: its row learns through the output layer only


def test_the_twin_of_a_tied_model_is_tied_and_computes_the_same_logits():
    torch.manual_seed(0)
    tied = CharTransformer(vocab_size=20, d_model=32, num_heads=4, context=24, tie_weights=True).eval()
    twin = with_attention_weights(tied)
    assert twin.output.weight is twin.embedding.weight
    tokens = torch.randint(0, 20, (2, 12))
    torch.testing.assert_close(twin(tokens)[0], tied(tokens)[0], atol=1e-5, rtol=0)


def test_embedding_std_redraws_only_the_embedding_after_every_other_weight():
    sizes = {"vocab_size": 500, "d_model": 32, "num_heads": 4, "context": 24, "tie_weights": True}
    torch.manual_seed(0)
    reference = CharTransformer(**sizes)
    torch.nn.init.normal_(reference.embedding.weight, std=0.02)  # GPT-2's start, drawn last
    torch.manual_seed(0)
    small = CharTransformer(**sizes, embedding_std=0.02)
    torch.manual_seed(0)
    default = CharTransformer(**sizes)
    assert small.output.weight is small.embedding.weight
    expected, untouched = reference.state_dict(), default.state_dict()
    for name, value in small.state_dict().items():
        assert torch.equal(value, expected[name]), name
        if name not in ("embedding.weight", "output.weight"):
            assert torch.equal(value, untouched[name]), name
    assert abs(small.embedding.weight.std().item() - 0.02) < 0.002


@pytest.mark.parametrize("std, error", [(0.0, ValueError), (-0.02, ValueError), ("0.02", TypeError)])
def test_a_bad_embedding_std_is_refused(std, error):
    with pytest.raises(error, match="embedding_std"):
        CharTransformer(vocab_size=10, embedding_std=std)
