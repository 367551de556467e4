"""The pictures of the decoder chapters: each draws what it is given, and says so in its text."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from tutorial_code.diagrams.decoder import (
    beam_tree,
    distribution_bars,
    encoder_decoder_diagram,
    kv_cache_growth,
    nucleus_bars,
    shift_and_generate,
    spelling_attention,
    teacher_forcing_strip,
)


def texts(fig) -> list[str]:
    return [text.get_text() for ax in fig.axes for text in ax.texts]


def test_the_architecture_diagram_shows_every_shape_it_is_given():
    fig = encoder_decoder_diagram((2, 7, 32), (2, 7, 33), (2, 5, 32), (2, 5, 34), (2, 4, 5, 7), num_layers=3)
    written = "\n".join(texts(fig))
    for shape in ("(2, 7, 32)", "(2, 7, 33)", "(2, 5, 32)", "(2, 5, 34)", "(2, 4, 5, 7)"):
        assert shape in written
    assert "encoder layer × 3" in written and "decoder layer × 3" in written
    plt.close(fig)


def test_the_teacher_forcing_strip_writes_the_start_token_as_bos_and_every_digit():
    fig = teacher_forcing_strip([4, 9, 3], [10, 3, 9], [3, 9, 4], start_token=10)
    boxes = [text for text in texts(fig) if len(text) <= 3]
    assert boxes.count("BOS") == 1
    assert sorted(box for box in boxes if box.isdigit()) == sorted("493" + "39" + "394")
    plt.close(fig)


def test_the_distribution_bars_draw_one_bar_per_candidate_in_each_panel():
    panels = [("T=1", torch.tensor([0.5, 0.3, 0.2])), ("top-2", torch.tensor([0.6, 0.4, 0.0]))]
    fig = distribution_bars(["a", "b", "c"], panels)
    assert [ax.get_title() for ax in fig.axes] == ["T=1", "top-2"]
    assert [len(ax.patches) for ax in fig.axes] == [3, 3]
    assert [bar.get_height() for bar in fig.axes[1].patches] == pytest.approx([0.6, 0.4, 0.0])
    plt.close(fig)


def test_the_beam_tree_draws_each_kept_draft_and_the_likeliest_path_in_blue():
    steps = [([0, 0], [3, 5], [-0.1, -2.5]), ([1, 0], [7, 2], [-0.2, -2.6])]  # the best draft extends draft 1
    fig = beam_tree(steps)
    boxes = fig.axes[0].patches
    assert len(boxes) == 1 + 2 + 2  # the start, then two drafts per step
    assert {"start", "3: -0.1", "5: -2.5", "7: -0.2", "2: -2.6", "step 1", "step 2"} <= set(texts(fig))
    blue = [box for box in boxes if box.get_edgecolor() == boxes[2].get_edgecolor()]  # "5: -2.5", on the path
    assert len(blue) == 2 and boxes[1].get_edgecolor() != boxes[2].get_edgecolor()
    plt.close(fig)


def test_the_nucleus_bars_colour_the_kept_tokens_and_draw_the_running_sum():
    fig = nucleus_bars(["a", "b", "c", "d"], torch.tensor([0.5, 0.3, 0.15, 0.05]), kept=3, top_p=0.9)
    bars = fig.axes[0].patches
    assert [bar.get_height() for bar in bars] == pytest.approx([0.5, 0.3, 0.15, 0.05])
    assert len({bar.get_facecolor() for bar in bars[:3]}) == 1 and bars[3].get_facecolor() != bars[0].get_facecolor()
    running_sum = fig.axes[0].lines[0].get_ydata()
    assert list(running_sum) == pytest.approx([0.5, 0.8, 0.95, 1.0])
    assert "p = 0.9" in texts(fig)
    plt.close(fig)


def test_the_kv_cache_grows_one_box_per_position_and_shows_each_shape():
    steps, shapes = [("ab", 2), ("c", 1), ("d", 1)], [(1, 4, 2, 16), (1, 4, 3, 16), (1, 4, 4, 16)]
    fig = kv_cache_growth(steps, shapes)
    assert len(fig.axes[0].patches) == 2 + 3 + 4
    written = texts(fig)
    assert all(f"(1, 4, {t}, 16)" in written for t in (2, 3, 4))
    plt.close(fig)


def test_the_kv_cache_needs_one_shape_per_step():
    with pytest.raises(ValueError, match="one shape per step"):
        kv_cache_growth([("ab", 2)], [])


def test_the_shift_picture_writes_the_target_one_character_later_and_every_draw():
    fig = shift_and_generate("The cat", [("Th", "e", 0.5), ("The", " ", 0.25)])
    boxes = [text for text in texts(fig) if len(text) == 1]
    inputs, targets = boxes[0:12:2], boxes[1:12:2]  # drawn in pairs: input t, then target t
    assert "".join(inputs) == "The␣ca" and "".join(targets) == "he␣cat"
    written = "\n".join(texts(fig))
    assert "→ 'e'  p = 0.50" in written and "→ ' '  p = 0.25" in written
    plt.close(fig)


def test_the_spelling_picture_labels_digits_and_letters():
    fig = spelling_attention(torch.rand(3, 5), list("347"), list("three"))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["3", "4", "7"]
    assert [t.get_text() for t in ax.get_xticklabels()] == list("three")
    plt.close(fig)
