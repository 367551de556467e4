"""The comparison of chapter 14: its measure equals chapter 11's, its training follows chapter 11's recipe."""

import pytest
import torch

from tutorial_code.language_model import CharTransformer, bits_per_character
from tutorial_code.llama import LlamaModel, compare_with_chapter_11, held_out_bpc, train_next_character

IDS = torch.arange(300) % 17  # a text of 300 characters of a 17-character vocabulary


def test_held_out_bpc_equals_chapter_11s_bits_per_character():
    torch.manual_seed(0)
    model = CharTransformer(vocab_size=17, d_model=16, num_heads=2, num_layers=1, context=8)
    assert held_out_bpc(model, IDS, context=8) == pytest.approx(bits_per_character(model, IDS), rel=1e-5)


def test_held_out_bpc_reads_models_that_return_logits_alone():
    torch.manual_seed(0)
    model = LlamaModel(17, 16, num_layers=1, num_heads=2, num_kv_heads=1, d_ff=24)
    with torch.no_grad():
        model.output.weight.zero_()  # every logit 0: a uniform guess over 17 characters
    assert held_out_bpc(model, IDS, context=8) == pytest.approx(torch.log2(torch.tensor(17.0)).item(), rel=1e-5)


def test_held_out_bpc_and_training_refuse_bad_sizes():
    model = LlamaModel(17, 16, num_layers=1, num_heads=2, num_kv_heads=1, d_ff=24)
    with pytest.raises(ValueError, match=r"len\(ids\)"):
        held_out_bpc(model, IDS[:8], context=8)  # no next character for a window of 8
    with pytest.raises(ValueError, match="steps must be >= 1"):
        train_next_character(model, IDS, steps=0, seed=0)


def test_the_comparison_without_seeds_runs_nothing():
    assert compare_with_chapter_11(350, [], d_ff=185) == {}


@pytest.mark.integration
def test_training_lowers_the_held_out_bits_and_the_comparison_has_one_value_per_seed():
    torch.manual_seed(0)
    model = LlamaModel(17, 16, num_layers=1, num_heads=2, num_kv_heads=1, d_ff=24)
    before = held_out_bpc(model, IDS, context=8)
    seconds = train_next_character(model, IDS, steps=30, seed=0, batch_size=8, context=8)
    assert seconds > 0 and held_out_bpc(model, IDS, context=8) < before
    runs = compare_with_chapter_11(2, [0, 1], d_ff=185)
    assert sorted(runs) == ["chapter_11_bpc", "chapter_11_seconds", "llama_bpc", "llama_seconds"]
    assert all(len(values) == 2 for values in runs.values())
