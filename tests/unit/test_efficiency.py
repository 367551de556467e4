"""The efficiency module is right, the benchmark runs, explains bad options, and its results file is complete.

No test asserts a timing: speed and memory targets are shown by the benchmark's figures.
"""

import json

import pytest
import torch
from conftest import load_file

from tutorial_code.efficiency import FusedQKVAttention, attention_flops, padding_fraction, realistic_lengths
from tutorial_code.multi_head import EfficientMultiHeadAttention

bench = load_file("benchmarks/bench.py")
DEFAULT_OUTPUT, VARIANTS, main, measure_one = bench.DEFAULT_OUTPUT, bench.VARIANTS, bench.main, bench.measure_one

TINY = {"batch": 2, "d_model": 16, "heads": 4, "seq_len": 8, "repeats": 1}


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "compiled_sdpa"])
@pytest.mark.parametrize("backward", [False, True])
def test_every_variant_measures(variant, backward):
    result = measure_one(TINY | {"kind": "attention", "variant": variant, "backward": backward})
    assert result["ms"] > 0 and result["peak_mb"] >= 0


def test_checkpointing_and_autocast_measure():
    assert measure_one(TINY | {"kind": "checkpointing", "layers": 2, "checkpoint": True})["ms"] > 0
    assert measure_one(TINY | {"kind": "autocast", "variant": "sdpa", "bf16": True})["ms"] > 0


def test_fused_qkv_equals_three_projections():
    torch.manual_seed(0)
    fused = FusedQKVAttention(16, 4).eval()
    three = EfficientMultiHeadAttention(16, 4).eval()
    W_Q, W_K, W_V = fused.W_QKV.weight.chunk(3)
    b_Q, b_K, b_V = fused.W_QKV.bias.chunk(3)
    with torch.no_grad():
        for linear, weight, bias in ((three.W_Q, W_Q, b_Q), (three.W_K, W_K, b_K), (three.W_V, W_V, b_V)):
            linear.weight.copy_(weight)
            linear.bias.copy_(bias)
        three.W_O.load_state_dict(fused.W_O.state_dict())
    x = torch.randn(2, 5, 16)
    torch.testing.assert_close(fused(x)[0], three(x)[0], atol=1e-6, rtol=0)


def test_bucketing_removes_padding():
    lengths = realistic_lengths(2000)
    assert 4 <= min(lengths) and max(lengths) <= 512
    assert padding_fraction(lengths, 32, bucketed=True) < padding_fraction(lengths, 32, bucketed=False) / 5


def test_attention_flops_counts_projections_and_scores():
    assert attention_flops(1, 2, 4) == 4 * 2 * 2 * 16 + 2 * 2 * 4 * 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--d-model", "30", "--heads", "4"], "--d-model 30 must be divisible by --heads 4"),
        (["--lengths", "0"], "must be positive"),
        (["--batch", "x"], "invalid int value"),
    ],
)
def test_bad_options_are_explained(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_results_file_is_complete():
    results = json.loads(DEFAULT_OUTPUT.read_text(encoding="utf-8"))
    assert {"cpu", "cores", "torch", "date"} <= results["machine"].keys()
    measured = {(r["variant"], r["seq_len"], r["backward"]) for r in results["attention"]}
    for variant in ("naive", "sdpa", "sdpa_fused_qkv", "torch_mha"):
        for seq_len in (128, 256, 512, 1024, 2048):
            assert (variant, seq_len, False) in measured and (variant, seq_len, True) in measured
    assert ("compiled_sdpa", 1024, False) in measured
    assert len(results["checkpointing"]) == 2 and len(results["autocast"]) == 4
    assert results["matmul_gflops"] > 0
