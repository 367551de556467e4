"""This site's Llama and GPT-2 against transformers' LlamaForCausalLM and GPT2LMHeadModel, on random weights.

Small configurations, built offline; every comparison copies the weights with the converter and compares
logits (at the real positions when a padding mask is given) and greedy generations.
"""

import sys

import pytest
import torch

transformers = pytest.importorskip("transformers")

from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM  # noqa: E402

from tutorial_code.from_transformers import gpt2_from_transformers, llama_from_transformers  # noqa: E402
from tutorial_code.llama import greedy_generate  # noqa: E402

V, T = 50, 11
ATOL = 1e-4  # float32 rounding: the differences measured are about 2e-7


def llama_config(**overrides) -> LlamaConfig:
    settings = dict(
        vocab_size=V,
        hidden_size=64,
        intermediate_size=172,
        num_hidden_layers=2,
        num_attention_heads=8,
        num_key_value_heads=2,  # grouped-query: 4 query heads per key/value head
        bos_token_id=0,
        eos_token_id=1,
    )
    return LlamaConfig(**(settings | overrides))


def gpt2_config(**overrides) -> GPT2Config:
    settings = dict(vocab_size=V, n_embd=64, n_layer=2, n_head=4, n_positions=32, bos_token_id=0, eos_token_id=1)
    return GPT2Config(**(settings | overrides))


def randomized(model):
    """`model` with weights of unit scale: logits of order 1 (transformers' initial std 0.02 gives logits near 0,
    where an absolute tolerance would say little), norm scales other than ones and biases other than zeros."""
    torch.manual_seed(0)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if parameter.dim() == 1:  # norm scales around 1, biases around 0
                parameter.normal_(1.0 if name.endswith("weight") else 0.0, 0.2)
            else:  # matrices: variance 1 / fan-in, as PyTorch's default; GPT-2's Conv1D has its fan-in first
                fan_in = parameter.size(0) if ".c_" in name else parameter.size(1)
                parameter.normal_(0.0, 1.0 / fan_in**0.5 if "wte" not in name and "embed" not in name else 1.0)
    return model.eval()


def random_llama(**overrides) -> LlamaForCausalLM:
    return randomized(LlamaForCausalLM(llama_config(**overrides)))


def random_gpt2(**overrides) -> GPT2LMHeadModel:
    return randomized(GPT2LMHeadModel(gpt2_config(**overrides)))


@pytest.fixture
def tokens():
    return torch.randint(0, V, (3, T), generator=torch.Generator().manual_seed(0))


@pytest.fixture
def attention_mask():
    """transformers' convention: 1 = a real token; the second and third sequences are padded on the right."""
    mask = torch.ones(3, T, dtype=torch.long)
    mask[1, 7:] = 0
    mask[2, 3:] = 0
    return mask


def compare(reference: str, theirs, ours, tokens, attention_mask, assert_matches_torch) -> None:
    with torch.no_grad():
        expected = theirs(tokens, attention_mask=attention_mask).logits
        got = ours(tokens, None if attention_mask is None else attention_mask.bool())
    keep = torch.ones(tokens.shape, dtype=torch.bool) if attention_mask is None else attention_mask.bool()
    assert got.shape == expected.shape
    assert_matches_torch(reference, got[keep], expected[keep], atol=ATOL)


@pytest.mark.parametrize("with_mask", [False, True])
def test_llama_with_grouped_query_attention_gives_transformers_logits(
    tokens, attention_mask, with_mask, assert_matches_torch
):
    theirs = random_llama()
    assert theirs.config.num_key_value_heads < theirs.config.num_attention_heads
    compare(
        "transformers LlamaForCausalLM",
        theirs,
        llama_from_transformers(theirs),
        tokens,
        attention_mask if with_mask else None,
        assert_matches_torch,
    )


@pytest.mark.parametrize(
    "overrides",
    [
        dict(num_key_value_heads=1),  # multi-query
        dict(num_key_value_heads=8),  # multi-head
        dict(tie_word_embeddings=True),
        dict(head_dim=16, rms_norm_eps=1e-5),  # heads wider than hidden_size / heads
        dict(rope_parameters={"rope_type": "default", "rope_theta": 500000.0}),  # Llama 3's base
    ],
    ids=["multi-query", "multi-head", "tied", "head_dim", "rope_theta"],
)
def test_llama_variants_give_transformers_logits(tokens, attention_mask, overrides, assert_matches_torch):
    theirs = random_llama(**overrides)
    ours = llama_from_transformers(theirs)
    if overrides.get("tie_word_embeddings"):
        assert ours.output.weight is ours.embedding.weight
    compare("transformers LlamaForCausalLM", theirs, ours, tokens, attention_mask, assert_matches_torch)


@pytest.mark.parametrize(
    "overrides",
    [dict(), dict(tie_word_embeddings=False), dict(n_inner=96, activation_function="gelu_pytorch_tanh")],
    ids=["tied", "untied", "n_inner"],
)
@pytest.mark.parametrize("with_mask", [False, True])
def test_gpt2_gives_transformers_logits(tokens, attention_mask, overrides, with_mask, assert_matches_torch):
    theirs = random_gpt2(**overrides)
    ours = gpt2_from_transformers(theirs)
    assert (ours.output.weight is ours.embedding.weight) == theirs.config.tie_word_embeddings
    compare(
        "transformers GPT2LMHeadModel",
        theirs,
        ours,
        tokens,
        attention_mask if with_mask else None,
        assert_matches_torch,
    )


@pytest.mark.parametrize(
    ("random_model", "convert"), [(random_llama, llama_from_transformers), (random_gpt2, gpt2_from_transformers)]
)
def test_greedy_generation_gives_transformers_tokens(tokens, random_model, convert):
    theirs = random_model()
    ours = convert(theirs)
    prompt = tokens[:, :4]
    expected = theirs.generate(
        prompt,
        attention_mask=torch.ones_like(prompt),
        max_new_tokens=10,
        do_sample=False,
        eos_token_id=None,  # never stop early, never suppress a token
        pad_token_id=0,
    )
    assert expected.shape == (3, 14)
    assert torch.equal(greedy_generate(ours, prompt, new_tokens=10), expected)


@pytest.mark.parametrize(
    ("random_model", "load", "convert"),
    [
        (random_llama, LlamaForCausalLM, llama_from_transformers),
        (random_gpt2, GPT2LMHeadModel, gpt2_from_transformers),
    ],
)
def test_a_checkpoint_saved_in_a_folder_loads_and_converts(
    tmp_path, monkeypatch, tokens, random_model, load, convert, assert_matches_torch
):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a local folder: nothing to download
    random_model().save_pretrained(tmp_path)
    theirs = load.from_pretrained(tmp_path, local_files_only=True).eval()
    compare(f"transformers {load.__name__}", theirs, convert(theirs), tokens, None, assert_matches_torch)


def test_the_training_mode_and_dropout_carry_over():
    theirs = random_gpt2(resid_pdrop=0.2, embd_pdrop=0.2, attn_pdrop=0.2).train()
    ours = gpt2_from_transformers(theirs)
    assert ours.training and ours.dropout.p == 0.2 and ours.layers[0].attention.dropout.p == 0.2
    assert not gpt2_from_transformers(theirs.eval()).training
    assert llama_from_transformers(random_llama(attention_dropout=0.1)).layers[1].attention.dropout.p == 0.1


LLAMA_REFUSALS = [
    (dict(rope_parameters={"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}), r"RoPE scaling"),
    (dict(attention_bias=True), r"attention_bias=True"),
    (dict(mlp_bias=True), r"mlp_bias=True"),
    (dict(hidden_act="gelu"), r"hidden_act='gelu'.*SiLU"),
    (dict(sliding_window=4), r"sliding_window=4"),
]
GPT2_REFUSALS = [
    (dict(activation_function="relu"), r"activation_function='relu'.*tanh GELU"),
    (dict(scale_attn_by_inverse_layer_idx=True), r"scale_attn_by_inverse_layer_idx=True"),
    (dict(reorder_and_upcast_attn=True), r"reorder_and_upcast_attn=True"),
    (dict(add_cross_attention=True), r"add_cross_attention=True"),
    (dict(scale_attn_weights=False), r"scale_attn_weights=False"),
    (dict(attn_pdrop=0.0), r"unequal dropouts"),
]


@pytest.mark.parametrize(("overrides", "message"), LLAMA_REFUSALS, ids=[m for _, m in LLAMA_REFUSALS])
def test_llama_settings_this_model_does_not_compute_are_refused(overrides, message):
    with pytest.raises(ValueError, match=r"the LlamaConfig has .*" + message):
        llama_from_transformers(LlamaForCausalLM(llama_config(**overrides)))


@pytest.mark.parametrize(("overrides", "message"), GPT2_REFUSALS, ids=[m for _, m in GPT2_REFUSALS])
def test_gpt2_settings_this_model_does_not_compute_are_refused(overrides, message):
    with pytest.raises(ValueError, match=r"the GPT2Config has .*" + message):
        gpt2_from_transformers(GPT2LMHeadModel(gpt2_config(**overrides)))


def test_a_model_of_another_class_is_refused_with_a_type_error():
    with pytest.raises(TypeError, match=r"model must be a transformers LlamaForCausalLM, got GPT2LMHeadModel$"):
        llama_from_transformers(random_gpt2())
    with pytest.raises(TypeError, match=r"got LlamaModel; load it with LlamaForCausalLM"):
        llama_from_transformers(transformers.LlamaModel(llama_config()))
    with pytest.raises(TypeError, match=r"model must be a transformers GPT2LMHeadModel, got Linear"):
        gpt2_from_transformers(torch.nn.Linear(2, 2))


def test_without_transformers_the_converters_say_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"need the transformers package: pip install transformers"):
        llama_from_transformers(torch.nn.Linear(2, 2))


def test_the_logits_compared_are_of_order_one():
    with torch.no_grad():
        assert random_llama()(torch.arange(10)[None]).logits.std() > 0.5
        assert random_gpt2()(torch.arange(10)[None]).logits.std() > 0.5
