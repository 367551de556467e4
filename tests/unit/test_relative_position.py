"""T5's relative position bias equals `transformers`' T5Attention.compute_bias, in an encoder and a decoder, for
lengths up to and past max_distance; bad settings are refused with a message."""

import pytest
import torch
from transformers import T5Config
from transformers.models.t5.modeling_t5 import T5Attention

from tutorial_code.relative_position import RelativePositionBias, relative_position_bucket

CASES = [(decoder, q, k) for decoder in (False, True) for q, k in ((1, 1), (5, 5), (3, 9), (40, 40), (200, 200))]


@pytest.mark.parametrize(("decoder", "query_length", "key_length"), CASES)
def test_the_bias_equals_t5_attention_s(decoder, query_length, key_length):
    config = T5Config(d_model=16, d_kv=4, num_heads=4, is_decoder=decoder)
    theirs = T5Attention(config, has_relative_attention_bias=True)
    ours = RelativePositionBias(4, bidirectional=not decoder)
    torch.manual_seed(0)
    theirs.relative_attention_bias.weight.data.normal_()
    ours.embedding.weight.data.copy_(theirs.relative_attention_bias.weight.data)
    with torch.no_grad():
        expected = theirs.compute_bias(query_length, key_length)[0]
        torch.testing.assert_close(ours(query_length, key_length), expected, rtol=0, atol=0)


def test_short_distances_get_a_bucket_each_and_long_ones_share():
    buckets = relative_position_bucket(-torch.arange(0, 300), bidirectional=False)
    assert buckets[:16].tolist() == list(range(16))  # one bucket per distance below half the buckets
    widths = torch.bincount(buckets).tolist()
    assert widths[16] <= widths[20] <= widths[30]  # wider and wider
    assert buckets[128:].unique().tolist() == [31]  # max_distance and beyond share the last
    assert relative_position_bucket(torch.tensor([5]), bidirectional=False).item() == 0  # a later key, causal


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: RelativePositionBias(0), "num_heads"),
        (lambda: RelativePositionBias(2)(0, 3), "query_length"),
        (lambda: relative_position_bucket(torch.tensor([1]), num_buckets=0), "num_buckets"),
    ],
)
def test_bad_settings_are_refused_with_a_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()
