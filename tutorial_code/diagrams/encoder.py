"""Pictures of chapters 7 and 9, drawn from a real forward pass and parameters.

`encoder_diagram` runs an `Encoder` once and draws its architecture with the
shape of every tensor that passed between its parts. `weight_copy_diagram` draws
the weights of an `nn.MultiheadAttention` next to those of a
`MultiHeadAttention` that holds a copy of them, slice by slice.
"""

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure
from matplotlib.patches import ConnectionPatch, FancyBboxPatch
from torch import nn

from tutorial_code.diagrams.drawing import (
    BLUE,
    BLUE_FILL,
    GREEN,
    GREEN_FILL,
    GREY,
    GREY_FILL,
    arrow,
    box,
)
from tutorial_code.encoder import Encoder
from tutorial_code.multi_head import MultiHeadAttention


def _shape(names: str, shape: torch.Size) -> str:
    """`"(B, T, d_model) = (2, 8, 64)"` for the letters and a real shape."""
    return f"({names}) = ({', '.join(str(size) for size in shape)})"


def encoder_shapes(
    encoder: Encoder, token_ids: torch.Tensor
) -> dict[str, torch.Size]:
    """Run `encoder` once on ids (B, T); record the shapes between its parts.

    Forward hooks on the embedding, the positional encoding, each layer and the
    parts of the first layer read the shapes of the real tensors; nothing is
    computed twice.

    Args:
        encoder: In eval mode, so that dropout does not matter.

    Returns:
        Shapes by name: `tokens`, `embedded`, `positioned`, `layer` (each
        layer's output), `attention`, `weights`, `hidden` (inside the
        feed-forward network) and `encoded`.

    Examples:
        >>> encoder = Encoder(vocab_size=10, d_model=16, num_heads=4, d_ff=32,
        ...                   num_layers=1)
        >>> shapes = encoder_shapes(encoder.eval(), torch.tensor([[1, 2, 3]]))
        >>> tuple(shapes["hidden"]), tuple(shapes["weights"])
        ((1, 3, 32), (1, 4, 3, 3))
    """
    shapes: dict[str, torch.Size] = {"tokens": token_ids.shape}

    def record(name: str, index: int | None = None):
        def hook(module: nn.Module, inputs: tuple, output: object) -> None:
            shapes[name] = (output if index is None else output[index]).shape

        return hook

    first = encoder.layers[0]
    watched = [
        (encoder.embedding, record("embedded")),
        (encoder.positions, record("positioned")),
        (encoder.layers[-1], record("layer", 0)),
        (first.attention, record("attention", 0)),
        (first.feed_forward.linear1, record("hidden")),
    ]
    handles = [module.register_forward_hook(hook) for module, hook in watched]
    try:
        with torch.no_grad():
            encoded, weights = encoder(token_ids)
    finally:
        for handle in handles:
            handle.remove()
    return shapes | {"weights": weights[0].shape, "encoded": encoded.shape}


def encoder_diagram(encoder: Encoder, token_ids: torch.Tensor) -> Figure:
    """The encoder and one of its layers, with the shapes of a forward pass.

    `encoder` runs once on `token_ids` (B, T); the encoder is drawn on the left,
    a layer on the right.

    Examples:
        >>> encoder = Encoder(vocab_size=10, d_model=16, num_heads=4, d_ff=32,
        ...                   num_layers=2)
        >>> len(encoder_diagram(encoder.eval(), torch.tensor([[1, 2, 3]])).axes)
        1
    """
    shapes = encoder_shapes(encoder, token_ids)
    model = _shape("B, T, d_model", shapes["embedded"])
    fig, ax = plt.subplots(figsize=(8.2, 6.8))
    ax.set_xlim(0, 10.5)
    ax.set_ylim(0, 10)
    ax.axis("off")

    # Left: the encoder, bottom to top as in the paper: (text, height, edge,
    # fill, label of the arrow below).
    x, layers = 1.9, len(encoder.layers)
    column = [
        (
            f"token ids\n{_shape('B, T', shapes['tokens'])}",
            0.7,
            GREY,
            GREY_FILL,
            "",
        )
    ]
    column += [("Embedding", 0.6, BLUE, BLUE_FILL, "")]
    column += [("+ positional encoding", 0.6, BLUE, BLUE_FILL, model)]
    names = (
        [f"encoder layer {n + 1}" for n in range(layers)]
        if layers <= 3
        else ["encoder layer 1", "…"]
    )
    column += [
        (name, 0.6, BLUE, "white", model if n == 0 else "")
        for n, name in enumerate(names)
    ]
    if encoder.layers[0].norm_first:
        column += [("final LayerNorm", 0.5, GREY, GREY_FILL, "")]
    column += [
        (
            f"encoded\n{_shape('B, T, d_model', shapes['encoded'])}",
            0.7,
            GREEN,
            GREEN_FILL,
            "",
        )
    ]
    ys = _stack(ax, x, 3.0, column, bottom=0.6, top=8.6)
    first_layer_y = ys[3]
    if encoder.pad_id is not None:
        note = f"pad_id {encoder.pad_id}: padding\nis never attended"
        ax.text(0.05, first_layer_y - 0.95, note, fontsize=9.5, color=GREY)

    # Right: inside the first layer, with its residual connections.
    first = encoder.layers[0]
    attention = f"MultiHeadAttention, h = {first.attention.num_heads}"
    feed_forward = "FeedForward\nLinear → ReLU → Linear"
    steps = (
        ["LayerNorm", attention, "add", "LayerNorm", feed_forward, "add"]
        if first.norm_first
        else [attention, "add & LayerNorm", feed_forward, "add & LayerNorm"]
    )
    right = 7.3
    ax.add_patch(
        FancyBboxPatch(
            (5.3, 0.2),
            5.15,
            9.6,
            boxstyle="round,pad=0.05",
            fc="none",
            ec=BLUE,
            ls="--",
        )
    )
    norm = "pre-norm" if first.norm_first else "post-norm"
    ax.text(
        5.45,
        9.5,
        f"inside encoder layer 1 ({norm})",
        fontsize=9.5,
        color=BLUE,
        va="center",
    )
    inner = [(f"x\n{model}", 0.7, GREY, GREY_FILL, "")]
    for step in steps:
        computes = step in (attention, feed_forward)
        inner += [
            (
                step,
                0.75 if step == feed_forward else 0.55,
                BLUE if computes else GREY,
                BLUE_FILL if computes else GREY_FILL,
                "",
            )
        ]
    inner += [(f"output\n{model}", 0.7, GREEN, GREEN_FILL, "")]
    ys = _stack(ax, right, 2.8, inner, bottom=0.75, top=9.0)
    side = right + 1.5
    for step, y in zip(steps, ys[1:], strict=False):
        if step == attention:
            ax.text(
                side,
                y,
                f"weights\n{_shape('B, h, T, T', shapes['weights'])}",
                fontsize=9.5,
                va="center",
            )
        if step == feed_forward:
            ax.text(
                side,
                y,
                f"hidden\n{_shape('B, T, d_ff', shapes['hidden'])}",
                fontsize=9.5,
                va="center",
            )
    # The residual: the stream branches off below each sub-layer and is added
    # back after it.
    branch = (ys[0] + ys[1]) / 2
    lane = right - 1.85
    for index, step in enumerate(steps, start=1):
        if step.startswith("add"):
            ax.plot(
                [right, lane, lane],
                [branch, branch, ys[index]],
                color=GREEN,
                lw=1.2,
            )
            arrow(ax, (lane, ys[index]), (right - 1.4, ys[index]), color=GREEN)
            branch = (ys[index] + ys[index + 1]) / 2
    ax.text(
        lane + 0.08,
        (ys[0] + ys[1]) / 2 + 0.25,
        "residual",
        fontsize=9.5,
        color=GREEN,
        rotation=90,
        va="bottom",
    )
    for corner in ((5.3, 0.2), (5.3, 9.8)):
        ax.add_artist(
            ConnectionPatch(
                (x + 1.5, first_layer_y),
                corner,
                "data",
                "data",
                color=BLUE,
                ls=":",
                lw=1,
            )
        )
    ax.text(
        0.05,
        9.6,
        "B batch, T tokens, h heads",
        fontsize=9.5,
        color=GREY,
        va="center",
    )
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def _stack(
    ax, x: float, width: float, items: list[tuple], bottom: float, top: float
) -> list[float]:
    """Boxes `(text, height, edge, fill, label)` from `bottom` to `top`.

    Joined by arrows; returns their centres.
    """
    ys = [
        bottom + (top - bottom) * i / (len(items) - 1)
        for i in range(len(items))
    ]
    for (text, height, edge, fill, _), y in zip(items, ys, strict=True):
        box(ax, x, y, width, height, text, edge, fill, size=10)
    for (_, low_height, *_), (_, high_height, _, _, label), low, high in zip(
        items, items[1:], ys, ys[1:], strict=False
    ):
        arrow(
            ax,
            (x, low + low_height / 2),
            (x, high - high_height / 2),
            label=label,
        )
    return ys


def weight_copy_diagram(
    theirs: nn.MultiheadAttention, ours: MultiHeadAttention
) -> Figure:
    """PyTorch's stacked in-projection beside the 4 projections copied from it.

    Each row of the figure lines up a slice of `theirs` with the weight of
    `ours` it was copied into: rows `0:d_model` of `in_proj_weight` are W_Q, the
    next d_model rows W_K, the last d_model rows W_V, and `out_proj.weight` is
    W_O. Both sides share one colour scale, so equal weights look equal.

    Examples:
        >>> theirs = nn.MultiheadAttention(8, 2, batch_first=True)
        >>> len(weight_copy_diagram(theirs, MultiHeadAttention(8, 2)).axes)
        8
    """
    stacked = theirs.in_proj_weight.detach()
    d_model = stacked.shape[1]
    pieces = [
        (
            f"in_proj_weight[{d_model * i}:{d_model * (i + 1)}]",
            stacked[d_model * i : d_model * (i + 1)],
        )
        for i in range(3)
    ]
    pieces.append(("out_proj.weight", theirs.out_proj.weight.detach()))
    copies = [
        ("W_Q", ours.W_Q),
        ("W_K", ours.W_K),
        ("W_V", ours.W_V),
        ("W_O", ours.W_O),
    ]
    limit = max(float(weight.abs().max()) for _, weight in pieces)
    image = {
        "cmap": "RdBu_r",
        "vmin": -limit,
        "vmax": limit,
        "interpolation": "nearest",
    }
    fig, axes = plt.subplots(
        4, 2, figsize=(6.4, 9.0), gridspec_kw={"wspace": 0.9, "hspace": 0.45}
    )
    for row, ((source_name, source), (name, linear)) in enumerate(
        zip(pieces, copies, strict=True)
    ):
        copy = linear.weight.detach()
        axes[row, 0].imshow(source.numpy(), **image)
        axes[row, 0].set_title(
            f"{source_name}\n{tuple(source.shape)}", fontsize=9
        )
        axes[row, 1].imshow(copy.numpy(), **image)
        axes[row, 1].set_title(
            f"{name}.weight\n{tuple(copy.shape)}", fontsize=9
        )
        fig.add_artist(
            ConnectionPatch(
                (source.shape[1] - 0.5, source.shape[0] / 2),
                (-0.5, copy.shape[0] / 2),
                "data",
                "data",
                axesA=axes[row, 0],
                axesB=axes[row, 1],
                arrowstyle="-|>",
                color="#555555",
                lw=1.2,
            )
        )
        middle = (
            axes[row, 0].get_position().x1 + axes[row, 1].get_position().x0
        ) / 2
        fig.text(
            middle,
            axes[row, 0].get_position().y0
            + axes[row, 0].get_position().height / 2
            + 0.012,
            "copy_",
            ha="center",
            fontsize=8,
            family="monospace",
            color="#555555",
        )
    for axis in axes.flat:
        axis.set_xticks([])
        axis.set_yticks([])
    # A bracket joins the three slices of the one stacked parameter.
    top, bottom = axes[0, 0].get_position(), axes[2, 0].get_position()
    x = top.x0 - 0.03
    fig.add_artist(plt.Line2D([x, x], [bottom.y0, top.y1], color=BLUE, lw=2))
    stacked_name = (
        f"nn.MultiheadAttention.in_proj_weight {tuple(stacked.shape)}"
    )
    fig.text(
        x - 0.02,
        (bottom.y0 + top.y1) / 2,
        stacked_name,
        rotation=90,
        ha="right",
        va="center",
        fontsize=9,
    )
    fig.text(
        top.x0 + top.width / 2,
        0.955,
        "PyTorch: nn.MultiheadAttention",
        ha="center",
        fontsize=10,
        weight="bold",
    )
    ours_axis = axes[0, 1].get_position()
    fig.text(
        ours_axis.x0 + ours_axis.width / 2,
        0.955,
        "ours: MultiHeadAttention",
        ha="center",
        fontsize=10,
        weight="bold",
    )
    fig.patch.set_facecolor("white")
    return fig
