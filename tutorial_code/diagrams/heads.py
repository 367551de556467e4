"""Chapter 4: a sequence cut into heads, attended, joined and mixed by W_O.

Every panel draws a real tensor of one sequence; the colour of a column says
which head it belongs to, its strength the size of the value.

Shape letters: T = sequence length, d_model = width of a token vector,
h = number of heads, d_k = d_model / h.
"""

import matplotlib.pyplot as plt
import torch
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

HEAD_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
)
MIXED = "#555555"  # a column that no single head owns


def tinted(values: torch.Tensor, colours: list[str]) -> torch.Tensor:
    """An RGB image of `values` (rows, columns): column j in `colours[j]`.

    Returns:
        Pixels (rows, columns, 3), from white (value 0) to the full colour
        (the largest |value|).

    Examples:
        >>> tinted(torch.tensor([[0.0, 2.0]]), ["red", "blue"]).tolist()
        [[[1.0, 1.0, 1.0], [0.0, 0.0, 1.0]]]
    """
    # (rows, columns, 1)
    strength = (values.abs() / values.abs().max().clamp_min(1e-12)).unsqueeze(
        -1
    )
    colour = torch.tensor([to_rgb(c) for c in colours])  # (columns, 3)
    return 1 - strength * (1 - colour)


def head_split_figure(
    projected: torch.Tensor,
    split: torch.Tensor,
    combined: torch.Tensor,
    W_O: torch.Tensor,
    output: torch.Tensor,
) -> Figure:
    """Five panels: the projection, its heads, their results, W_O, the output.

    Args:
        projected: One sequence after a projection such as W_Q, (T, d_model).
        split: The same after `split_heads`, (h, T, d_k).
        combined: The heads' results after `combine_heads`, (T, d_model).
        W_O: The output projection's weight, (d_model, d_model): row i makes
            output feature i.
        output: `combined` after W_O, (T, d_model).

    Examples:
        >>> ones = torch.ones(3, 4)
        >>> split = torch.ones(2, 3, 2)
        >>> fig = head_split_figure(ones, split, ones, torch.eye(4), ones)
        >>> len(fig.axes)  # four panels, one per head, four steps between them
        10
    """
    h, T, d_k = split.shape
    d_model = h * d_k
    # colour of each column
    by_head = [
        HEAD_COLOURS[i % len(HEAD_COLOURS)]
        for i in range(h)
        for _ in range(d_k)
    ]
    fig = plt.figure(figsize=(14, 3.8))
    # the columns between the panels hold the name of each step
    gap = 0.45 * d_model
    ratios = [d_model, gap, 2 * d_k, gap, d_model, gap, d_model, gap, d_model]
    grid = fig.add_gridspec(
        h,
        9,
        width_ratios=ratios,
        wspace=0.05,
        top=0.8,
        bottom=0.12,
        left=0.03,
        right=0.99,
    )

    def panel(
        ax,
        image: torch.Tensor,
        title: str = "",
        xlabel: str = "",
        ylabel: str = "",
    ) -> None:
        ax.imshow(image.numpy(), interpolation="nearest")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])

    tensors = {
        0: (
            projected,
            by_head,
            "1. Q = W_Q(x): (T, d_model)",
            "columns coloured by head",
            "positions",
        ),
        4: (
            combined,
            by_head,
            "3. heads joined: (T, h·d_k)",
            "each head in its own columns",
            "",
        ),
        6: (
            W_O,
            by_head,
            "4. W_O: (d_model, d_model)",
            "row i makes output feature i",
            "output features",
        ),
        8: (
            output,
            [MIXED] * d_model,
            "5. output: (T, d_model)",
            "every feature mixes all heads",
            "",
        ),
    }
    for column, (tensor, colours, title, xlabel, ylabel) in tensors.items():
        panel(
            fig.add_subplot(grid[:, column]),
            tinted(tensor, colours),
            f"{title}\n= {tuple(tensor.shape)}",
            xlabel,
            ylabel,
        )
    for i in range(h):
        ax = fig.add_subplot(grid[i, 2])
        panel(ax, tinted(split[i], [HEAD_COLOURS[i % len(HEAD_COLOURS)]] * d_k))
        ax.text(
            -0.6, (T - 1) / 2, f"head {i}", fontsize=7, ha="right", va="center"
        )
        if i == 0:
            ax.set_title(
                f"2. split_heads(Q): (h, T, d_k)\n= {tuple(split.shape)}",
                fontsize=9,
            )
    steps = {
        1: "view,\ntranspose",
        3: "attention\nin each head,\ncombine_heads",
        5: "× W_Oᵀ",
        7: "=",
    }
    for column, step in steps.items():
        ax = fig.add_subplot(grid[:, column])
        ax.axis("off")
        ax.text(
            0.5,
            0.5,
            step,
            ha="center",
            va="center",
            fontsize=9,
            color="#333333",
            transform=ax.transAxes,
        )
    fig.patch.set_facecolor("white")
    return fig
