"""The padding picture: every real digit in a cell of its own, PAD for the rest, and the mean of the real digits."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import torch

from tutorial_code.diagrams.padding import padded_mean


def test_the_padding_picture_writes_real_digits_pad_and_the_masked_mean():
    batch = torch.tensor([[3, 1, 4, 10], [9, 10, 10, 10]])
    fig = padded_mean(batch, pad_id=10)
    written = [text.get_text() for text in fig.axes[0].texts]
    assert written.count("PAD") == 4
    assert sorted(t for t in written if t.isdigit()) == ["1", "3", "4", "9"]
    assert "8 / 3 = 2.67" in written and "9 / 1 = 9.00" in written  # not / 4: the padding is left out
    plt.close(fig)
