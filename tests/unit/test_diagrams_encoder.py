"""The pictures of chapters 7 and 9 are drawn from a real forward pass and real parameters."""

import matplotlib.pyplot as plt
import pytest
import torch
from torch import nn

from tutorial_code.diagrams.encoder import encoder_diagram, encoder_shapes, weight_copy_diagram
from tutorial_code.encoder import Encoder
from tutorial_code.from_torch import multi_head_attention_from_torch


def texts(fig) -> str:
    return "\n".join(text.get_text() for ax in fig.axes for text in ax.texts) + "\n".join(
        text.get_text() for text in fig.texts
    )


@pytest.fixture
def encoder():
    torch.manual_seed(0)
    return Encoder(vocab_size=50, d_model=24, num_heads=3, d_ff=40, num_layers=2, pad_id=0).eval()


def test_the_shapes_are_those_of_the_tensors_of_a_forward_pass(encoder):
    tokens = torch.randint(1, 50, (5, 7))
    shapes = encoder_shapes(encoder, tokens)
    assert tuple(shapes["tokens"]) == (5, 7)
    for name in ("embedded", "positioned", "layer", "attention", "encoded"):
        assert tuple(shapes[name]) == (5, 7, 24), name
    assert tuple(shapes["hidden"]) == (5, 7, 40)
    assert tuple(shapes["weights"]) == (5, 3, 7, 7)


def test_the_hooks_are_removed_after_the_pass(encoder):
    encoder_shapes(encoder, torch.randint(1, 50, (1, 3)))
    shapes = encoder_shapes(encoder, torch.randint(1, 50, (2, 5)))  # a hook left behind would record (1, 3)
    assert tuple(shapes["embedded"]) == (2, 5, 24)
    calls = []
    encoder.embedding.register_forward_hook(lambda *args: calls.append(1))
    encoder(torch.randint(1, 50, (1, 3)))
    assert calls == [1]  # only the hook registered here ran


def test_the_encoder_diagram_writes_the_real_sizes(encoder):
    fig = encoder_diagram(encoder, torch.randint(1, 50, (5, 7)))
    written = texts(fig)
    assert "(B, T, d_model) = (5, 7, 24)" in written
    assert "(B, h, T, T) = (5, 3, 7, 7)" in written
    assert "(B, T, d_ff) = (5, 7, 40)" in written
    assert "post-norm" in written
    plt.close(fig)


def test_a_pre_norm_encoder_is_drawn_with_its_final_layer_norm():
    encoder = Encoder(vocab_size=20, d_model=8, num_heads=2, d_ff=16, num_layers=6, norm_first=True).eval()
    fig = encoder_diagram(encoder, torch.randint(0, 20, (1, 4)))
    written = texts(fig)
    assert "final LayerNorm" in written and "pre-norm" in written
    plt.close(fig)


def test_the_weight_copy_diagram_shows_each_slice_beside_its_copy():
    theirs = nn.MultiheadAttention(16, 4, batch_first=True)
    ours = multi_head_attention_from_torch(theirs)
    fig = weight_copy_diagram(theirs, ours)
    images = [ax.images[0].get_array() for ax in fig.axes]
    assert len(images) == 8
    for row in range(4):  # left, right of each row: the same numbers
        assert (images[2 * row] == images[2 * row + 1]).all()
    assert "in_proj_weight[16:32]" in "\n".join(ax.get_title() for ax in fig.axes)
    plt.close(fig)
