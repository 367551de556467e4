"""The pictures of the first chapters: they draw what they are given and refuse what they cannot draw."""

import matplotlib

matplotlib.use("Agg")

import pytest
import torch

from tutorial_code.diagrams.attention import connection_paths, mask_maps, one_query, projections, weighted_sum


def red_lines(ax) -> int:
    return sum(line.get_color() == "#c62828" for line in ax.get_lines())


def test_the_path_from_the_first_input_to_the_last_output_has_the_length_of_table_1():
    recurrent, convolution, attention = connection_paths(8).axes
    assert red_lines(recurrent) == 1 + 7  # x_0 -> h_0, then 7 steps along the state
    assert red_lines(convolution) == 3  # log2(8) layers
    assert red_lines(attention) == 1
    with pytest.raises(ValueError, match="power of 2"):
        connection_paths(6)


def test_one_query_draws_a_score_and_a_weight_bar_per_key():
    keys, values = torch.randn(5, 4), torch.randn(5, 3)
    query = torch.randn(4)
    scores = keys @ query / 2
    weights = torch.softmax(scores, dim=0)
    fig = one_query(query, keys, scores, weights, values, weights @ values)
    assert len(fig.axes) == 6
    bars = [ax for ax in fig.axes if ax.patches]
    assert [len(ax.patches) for ax in bars] == [5, 5]
    assert [p.get_width() for p in bars[1].patches] == pytest.approx(weights.tolist())


def test_mask_maps_outline_each_fully_masked_row():
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    left_padded = causal & torch.tensor([False, True, True, True])
    fig = mask_maps([causal, left_padded], ["causal", "left padded"])
    assert [len(ax.patches) for ax in fig.axes] == [0, 1]  # row 0 of the second has no key left
    with pytest.raises(ValueError, match="one title per mask"):
        mask_maps([causal], [])
    with pytest.raises(ValueError, match="2-D boolean"):
        mask_maps([causal.int()], ["ints"])


def test_weighted_sum_draws_one_line_per_token_as_wide_as_its_weight():
    fixed, learned = torch.full((4,), 0.25), torch.tensor([0.1, 0.2, 0.3, 0.4])
    fig = weighted_sum([fixed, learned], ["fixed", "learned"], query=3)
    left, right = fig.axes
    assert len(left.lines) == len(right.lines) == 4
    assert len({line.get_linewidth() for line in left.lines}) == 1  # equal weights, equal lines
    widths = [line.get_linewidth() for line in right.lines]
    assert widths == sorted(widths) and widths[0] < widths[-1]
    assert [text.get_text() for text in right.texts if text.get_text().startswith("0.")] == [
        "0.10",
        "0.20",
        "0.30",
        "0.40",
    ]
    with pytest.raises(ValueError, match="one title per row"):
        weighted_sum([fixed], ["a", "b"], query=0)
    with pytest.raises(ValueError, match="query must be one of the 4 tokens"):
        weighted_sum([fixed], ["a"], query=4)


def test_the_projections_picture_shows_x_each_weight_and_each_product():
    x = torch.tensor([[1.0, 0.0], [0.0, -2.0]])
    w = torch.tensor([[0.5, 1.0], [1.0, 0.0]])
    fig = projections(x, [("Q", w, x @ w), ("K", -w, x @ -w)])
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["X: the tokens", "W_Q", "Q = X W_Q", "X: the tokens", "W_K", "K = X W_K"]
    assert [t.get_text() for t in fig.axes[2].texts] == ["0.5", "1.0", "-2.0", "0.0"]
