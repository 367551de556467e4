"""The pictures of chapters 5 and 6 draw what they say, from the table they are given."""

import math

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from tutorial_code.diagrams.blocks import pairs_on_circle, residual_orders  # noqa: E402
from tutorial_code.positional import sinusoidal_table  # noqa: E402


def test_each_pair_is_drawn_from_the_table_on_the_unit_circle():
    table = sinusoidal_table(max_len=10, d_model=8)
    fig = pairs_on_circle(table, (0, 1), positions=7, shift=2, starts=(1, 4))
    assert len(fig.axes) == 2
    for ax, pair in zip(fig.axes, (0, 1), strict=True):
        points = ax.collections[0].get_offsets()  # the scatter of the positions
        assert points.shape == (7, 2)
        for pos, (x, y) in enumerate(points):
            assert x == pytest.approx(float(table[pos, 2 * pair]), abs=1e-6)
            assert y == pytest.approx(float(table[pos, 2 * pair + 1]), abs=1e-6)
            assert math.hypot(x, y) == pytest.approx(1.0, abs=1e-5)
    # The title states the turn per position that the table holds: 1 rad for pair 0, 10000^(-2/8) for pair 1.
    assert "1.000 rad" in fig.axes[0].get_title()
    assert f"{10000 ** (-2 / 8):.3f} rad" in fig.axes[1].get_title()
    plt.close(fig)


def test_a_shift_past_the_marked_positions_is_refused():
    with pytest.raises(ValueError, match="start \\+ shift must be below positions=5"):
        pairs_on_circle(sinusoidal_table(10, 4), (0,), positions=5, shift=2, starts=(3,))
    with pytest.raises(ValueError, match="table"):
        pairs_on_circle(sinusoidal_table(4, 4), (0,), positions=5, shift=1, starts=(0,))


def test_the_residual_orders_show_both_formulas():
    fig = residual_orders()
    texts = [text.get_text() for ax in fig.axes for text in ax.texts]
    assert "x \u2190 LN(x + F(x))" in texts and "x \u2190 x + F(LN(x))" in texts
    assert sum(text == "LayerNorm" for text in texts) == 2
    plt.close(fig)
