"""A picture of padding (chapter 8): a padded batch, and each sequence's mean
over its real tokens only, from the batch the chapter draws."""

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from tutorial_code.diagrams.drawing import BLUE, BLUE_FILL, GREY_FILL

GREY = "#9e9e9e"  # lighter than the palette's grey: the padding recedes


def padded_mean(batch: torch.Tensor, pad_id: int) -> Figure:
    """A row of cells per sequence of `batch` (B, T), padding greyed, and the
    masked mean of its digits on the right: the sum of the real ones divided
    by how many there are, not by T.

    Examples:
        >>> batch = torch.tensor([[3, 1, 4], [1, 5, 10]])
        >>> len(padded_mean(batch, pad_id=10).axes)
        1
    """
    rows, length = batch.shape
    real = batch != pad_id
    fig, ax = plt.subplots(figsize=(0.55 * length + 3.6, 0.55 * rows + 0.9))
    for b in range(rows):
        y = rows - 1 - b
        for t in range(length):
            is_real = bool(real[b, t])
            ax.add_patch(
                Rectangle(
                    (t + 0.05, y + 0.05),
                    0.9,
                    0.9,
                    facecolor=BLUE_FILL if is_real else GREY_FILL,
                    edgecolor=BLUE if is_real else GREY,
                    linewidth=1.2,
                )
            )
            shown = str(int(batch[b, t])) if is_real else "PAD"
            size = 14 if is_real else 11
            colour = "black" if is_real else GREY
            ax.text(
                t + 0.5,
                y + 0.5,
                shown,
                ha="center",
                va="center",
                fontsize=size,
                color=colour,
            )
        digits = batch[b][real[b]]
        mean = digits.float().mean().item()
        ax.text(
            length + 0.3,
            y + 0.5,
            f"{int(digits.sum())} / {len(digits)} = {mean:.2f}",
            va="center",
            fontsize=13,
        )
    ax.text(
        length + 0.3,
        rows + 0.25,
        "mean of the real digits",
        fontsize=12,
        color=BLUE,
    )
    ax.set_xlim(0, length + 3.4)
    ax.set_ylim(0, rows + 0.7)
    ax.set_xticks([t + 0.5 for t in range(length)], range(length), fontsize=11)
    ax.set_xlabel("position", fontsize=12)
    ax.set_yticks(
        [rows - 1 - b + 0.5 for b in range(rows)],
        [f"sequence {b}" for b in range(rows)],
        fontsize=12,
    )
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    ax.tick_params(length=0)
    ax.set_aspect("equal")
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig
