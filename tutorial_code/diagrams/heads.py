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
    # three rows at one scale (u inches per cell): Q -> heads; joined;
    # W_O -> output. Same-shaped tensors line up in the right column.
    u, width, height = 0.12, 6.5, 5.7
    fig = plt.figure(figsize=(width, height))
    right = 4.0  # where the right column starts, in inches

    def axes_at(x: float, top: float, w: float, h_: float):
        """Axes whose top-left corner is x inches in, top inches down."""
        box = [x / width, 1 - (top + h_) / height, w / width, h_ / height]
        return fig.add_axes(box)

    def panel(
        ax,
        image: torch.Tensor,
        title: str = "",
        xlabel: str = "",
        ylabel: str = "",
    ) -> None:
        ax.imshow(image.numpy(), interpolation="nearest", aspect="auto")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])

    rows = [0.5, 2.05, 3.6]  # the top of each row's panels
    W_O_width = min(d_model * u, right - 1.6)
    middle = rows[2] + W_O_width / 2
    tensors = [
        (
            (0.35, rows[0], d_model * u, T * u),
            projected,
            by_head,
            "1. Q = W_Q(x): (T, d_model)",
            "columns coloured by head",
            "positions",
        ),
        (
            (right, rows[1], d_model * u, T * u),
            combined,
            by_head,
            "3. heads joined: (T, h·d_k)",
            "each head in its own columns",
            "",
        ),
        (
            (right - 0.45 - W_O_width, rows[2], W_O_width, W_O_width),
            W_O,
            by_head,
            "4. W_O: (d_model, d_model)",
            "row i makes output feature i",
            "output features",
        ),
        (
            (right, rows[2] + (W_O_width - T * u) / 2, d_model * u, T * u),
            output,
            [MIXED] * d_model,
            "5. output: (T, d_model)",
            "every feature mixes all heads",
            "",
        ),
    ]
    for box, tensor, colours, title, xlabel, ylabel in tensors:
        panel(
            axes_at(*box),
            tinted(tensor, colours),
            f"{title}\n= {tuple(tensor.shape)}",
            xlabel,
            ylabel,
        )
    head_width = min(d_k * u, (width - right - 0.1) / h - u)
    for i in range(h):
        x = right + i * (head_width + u)
        ax = axes_at(x, rows[0], head_width, T * u)
        colour = HEAD_COLOURS[i % len(HEAD_COLOURS)]
        panel(ax, tinted(split[i], [colour] * d_k), xlabel=f"head {i}")
        if i == 0:
            ax.set_title(
                f"2. split_heads(Q): (h, T, d_k)\n= {tuple(split.shape)}",
                fontsize=9,
                loc="left",
            )
    steps = [
        (
            (0.35 + d_model * u, rows[0], right - 0.35 - d_model * u, T * u),
            "view,\ntranspose",
        ),
        (
            (0.35, rows[1], right - 0.35, T * u),
            "attention\nin each head,\ncombine_heads",
        ),
        ((0, middle - 0.3, right - 0.45 - W_O_width, 0.6), "× W_Oᵀ"),
        ((right - 0.45, middle - 0.3, 0.45, 0.6), "="),
    ]
    for box, step in steps:
        ax = axes_at(*box)
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
