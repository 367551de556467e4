"""ALiBi's bias gives the attention weights of BLOOM's in `transformers`, for any number of heads that is a power of
2 and any length; other head counts are refused with a message."""

import pytest
import torch
from transformers.models.bloom.modeling_bloom import build_alibi_tensor

from tutorial_code.alibi import alibi_bias, alibi_slopes
from tutorial_code.attention import scaled_dot_product_attention

CASES = [(heads, length) for heads in (1, 2, 4, 8, 16) for length in (1, 2, 5, 12)]


@pytest.mark.parametrize(("heads", "length"), CASES)
def test_the_weights_equal_bloom_s(heads, length):
    torch.manual_seed(heads * 100 + length)
    query, key, value = torch.randn(3, 2, heads, length, 4)
    _, ours = scaled_dot_product_attention(query, key, value, mask=alibi_bias(heads, length))
    # BLOOM adds slope * s, the key's position, to every score; ours adds -slope * (t - s): the two differ by
    # -slope * t, the same for every key of query t, which the softmax cancels.
    bloom = build_alibi_tensor(torch.ones(1, length, dtype=torch.long), heads, torch.float32).view(heads, 1, length)
    scores = query @ key.transpose(-2, -1) / 2.0 + bloom  # sqrt(d_k) = 2
    causal = torch.ones(length, length, dtype=torch.bool).tril()
    theirs = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
    torch.testing.assert_close(ours, theirs)


def test_the_slopes_fall_geometrically_from_2_to_the_minus_8_over_h():
    slopes = alibi_slopes(8)
    torch.testing.assert_close(slopes, 0.5 ** torch.arange(1.0, 9.0))
    assert alibi_bias(8, 5)[:, 4, 0].tolist() == (-4 * slopes).tolist()  # four positions back
    assert torch.isinf(alibi_bias(8, 5)[:, 0, 1]).all()  # causal


@pytest.mark.parametrize(("heads", "message"), [(6, "power of 2"), (0, "num_heads"), (-2, "num_heads")])
def test_a_head_count_the_slopes_do_not_cover_is_refused(heads, message):
    with pytest.raises(ValueError, match=message):
        alibi_slopes(heads)
