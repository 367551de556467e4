"""The head-split picture of chapter 4 draws the tensors it is given, coloured by head."""

import matplotlib.pyplot as plt
import torch

from tutorial_code.diagrams.heads import HEAD_COLOURS, head_split_figure, tinted


def test_tinted_is_white_for_zero_and_the_full_colour_for_the_largest_value():
    pixels = tinted(torch.tensor([[0.0, -4.0, 2.0]]), ["red", "blue", "blue"])
    assert pixels[0, 0].tolist() == [1.0, 1.0, 1.0]
    assert pixels[0, 1].tolist() == [0.0, 0.0, 1.0]  # the sign does not matter, the size does
    assert torch.allclose(pixels[0, 2], torch.tensor([0.5, 0.5, 1.0]))


def test_one_panel_per_head_and_titles_that_carry_the_real_shapes():
    h, T, d_k = 4, 5, 3
    d_model = h * d_k
    fig = head_split_figure(
        torch.randn(T, d_model),
        torch.randn(h, T, d_k),
        torch.randn(T, d_model),
        torch.randn(d_model, d_model),
        torch.randn(T, d_model),
    )
    titles = " ".join(ax.get_title(loc) for ax in fig.axes for loc in ("left", "center"))
    assert f"({T}, {d_model})" in titles and f"({h}, {T}, {d_k})" in titles and f"({d_model}, {d_model})" in titles
    assert len(fig.axes) == 4 + h + 4  # four tensors, one panel per head, four steps between them
    assert len(HEAD_COLOURS) >= h
    plt.close(fig)
