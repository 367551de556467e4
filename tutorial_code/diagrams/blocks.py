"""Pictures of chapters 5 and 6: positions on circles, where LayerNorm goes.

Each function returns a matplotlib `Figure`. Where a picture shows data (the
sinusoidal table), the chapter computes the tensor and passes it in; the diagram
of the two residual orders shows no data.
"""

import math

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure

from tutorial_code.diagrams.drawing import (
    BLUE,
    BLUE_FILL,
    GREEN,
    GREY,
    ORANGE,
    ORANGE_FILL,
    arrow,
    box,
)


def pairs_on_circle(
    table: torch.Tensor,
    pairs: tuple[int, ...],
    positions: int,
    shift: int,
    starts: tuple[int, ...],
) -> Figure:
    """Feature pairs of a sinusoidal table on the unit circle, one panel each.

    Pair i of position pos is the point (table[pos, 2i], table[pos, 2i + 1]) =
    (sin, cos) of the angle `frequency * pos`. Each panel marks the first
    `positions` positions and draws, from each position in `starts`, the turn
    that moving `shift` positions on makes: the same angle wherever it starts,
    which is the rotation R_k of the chapter.

    Args:
        table: A sinusoidal table (max_len, d_model), from `sinusoidal_table`.
        pairs: Indices i of the feature pairs to draw, one panel each.
        positions: How many positions, from 0, to mark on each circle.
        shift: The shift k drawn as arrows.
        starts: Positions the arrows start from; each `start + shift` must be
            below `positions`.

    Raises:
        ValueError: If the table is too short or an arrow ends past the marked
            positions.

    Examples:
        >>> from tutorial_code.positional import sinusoidal_table
        >>> fig = pairs_on_circle(sinusoidal_table(8, 4), (0, 1), positions=6,
        ...                       shift=2, starts=(1,))
        >>> len(fig.axes)
        2
    """
    if (
        table.dim() != 2
        or table.size(0) < positions
        or 2 * max(pairs) + 1 >= table.size(1)
    ):
        raise ValueError(
            f"need a (max_len >= {positions}, d_model > {2 * max(pairs) + 1}) "
            f"table, got {tuple(table.shape)}"
        )
    if any(start + shift >= positions for start in starts):
        raise ValueError(
            f"every start + shift must be below positions={positions}, got "
            f"starts {starts}, shift {shift}"
        )
    fig, axes = plt.subplots(
        1, len(pairs), figsize=(3.6 * len(pairs), 3.9), squeeze=False
    )
    circle = torch.linspace(0, 2 * math.pi, 200)
    for ax, pair in zip(axes[0], pairs, strict=True):
        # the real features
        sin, cos = (
            table[:positions, 2 * pair],
            table[:positions, 2 * pair + 1],
        )
        # the angle of each position, measured clockwise from the top
        angle = torch.atan2(sin, cos)
        # radians per position
        step = float(torch.remainder(angle[1] - angle[0], 2 * math.pi))
        ax.plot(
            torch.sin(circle), torch.cos(circle), color="#cccccc", linewidth=1
        )
        ax.scatter(sin, cos, color=BLUE, zorder=3, s=28)
        for pos in range(positions):
            ax.annotate(
                str(pos),
                (sin[pos], cos[pos]),
                xytext=(1.2 * sin[pos], 1.2 * cos[pos]),
                ha="center",
                va="center",
                fontsize=9,
                color=BLUE,
            )
        # the turn of `shift` positions, drawn as an arc inside the circle
        for start in starts:
            arc = torch.linspace(
                float(angle[start]), float(angle[start]) + shift * step, 30
            )
            ax.plot(
                0.75 * torch.sin(arc[:-1]),
                0.75 * torch.cos(arc[:-1]),
                color=ORANGE,
                linewidth=2,
            )
            arrow(
                ax,
                (0.75 * math.sin(arc[-2]), 0.75 * math.cos(arc[-2])),
                (0.75 * math.sin(arc[-1]), 0.75 * math.cos(arc[-1])),
                color=ORANGE,
                lw=2,
            )
            ax.text(
                0.55 * math.sin(arc[0]),
                0.55 * math.cos(arc[0]),
                f"{start}\u2192{start + shift}",
                ha="center",
                va="center",
                fontsize=9,
                color=ORANGE,
            )
        ax.set_title(
            f"pair {pair} (features {2 * pair}, "
            f"{2 * pair + 1}): {step:.3f} rad per position",
            fontsize=9,
        )
        ax.text(
            0,
            -1.42,
            f"orange: {shift} positions on =\n"
            f"{shift * step:.2f} rad from any start",
            ha="center",
            va="center",
            fontsize=9,
            color=ORANGE,
        )
        ax.set_xlabel(f"feature {2 * pair}: sin(frequency x pos)", fontsize=8.5)
        ax.set_ylabel(
            f"feature {2 * pair + 1}: cos(frequency x pos)", fontsize=8.5
        )
        ax.set_xlim(-1.45, 1.45)
        ax.set_ylim(-1.62, 1.4)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=9)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def _add(ax, x: float, y: float) -> None:
    """The circle with a plus where the residual joins the sub-layer output."""
    ax.add_patch(
        plt.Circle(
            (x, y),
            0.16,
            facecolor="white",
            edgecolor="#333333",
            linewidth=1.3,
            zorder=3,
        )
    )
    ax.text(x, y, "+", ha="center", va="center", fontsize=12, zorder=4)


def residual_orders() -> Figure:
    """Post-norm and pre-norm side by side: a sub-layer F, residual, LayerNorm.

    The residual path (green) is the identity path of the gradient. Post-norm
    (the paper) puts the LayerNorm on it, after the add: `x <- LN(x + F(x))`.
    Pre-norm normalizes only the sub-layer's input, and the residual path runs
    from input to output untouched: `x <- x + F(LN(x))`.

    Examples:
        >>> [ax.get_title() for ax in residual_orders().axes]
        ['post-norm (the paper)', 'pre-norm (GPT-2 and most models since)']
    """
    fig, axes = plt.subplots(1, 2, figsize=(7.6, 4.6))
    for ax, pre in zip(axes, (False, True), strict=True):
        x_main, x_skip = 0.0, -1.35
        box(ax, x_main, 0.0, 1.6, 0.44, "x (input)", GREY, "white", size=9)
        arrow(ax, (x_main, 0.24), (x_main, 0.66 if pre else 1.4))
        if pre:
            box(
                ax,
                x_main,
                0.9,
                1.6,
                0.44,
                "LayerNorm",
                ORANGE,
                ORANGE_FILL,
                size=9,
            )
            arrow(ax, (x_main, 1.14), (x_main, 1.4))
        box(
            ax,
            x_main,
            1.65,
            1.9,
            0.44,
            "sub-layer F\n(attention or FFN)",
            BLUE,
            BLUE_FILL,
            size=9,
        )
        arrow(ax, (x_main, 1.9), (x_main, 2.44))
        _add(ax, x_main, 2.6)
        # The residual path: from the input, around the sub-layer, into the add.
        ax.plot(
            [x_main - 0.8, x_skip, x_skip],
            [0.0, 0.0, 2.6],
            color=GREEN,
            linewidth=2.2,
        )
        arrow(ax, (x_skip, 2.6), (x_main - 0.17, 2.6), color=GREEN, lw=2.2)
        ax.text(
            x_skip - 0.12,
            1.3,
            "residual path",
            rotation=90,
            ha="right",
            va="center",
            fontsize=9,
            color=GREEN,
        )
        if pre:
            arrow(ax, (x_main, 2.76), (x_main, 3.85), color=GREEN, lw=2.2)
            ax.text(
                x_main + 0.2,
                3.3,
                "the residual path runs\nuntouched to the output",
                fontsize=9,
                va="center",
                color=GREEN,
            )
        else:
            arrow(ax, (x_main, 2.76), (x_main, 3.11))
            box(
                ax,
                x_main,
                3.35,
                1.6,
                0.44,
                "LayerNorm",
                ORANGE,
                ORANGE_FILL,
                size=9,
            )
            arrow(ax, (x_main, 3.59), (x_main, 3.85))
            ax.text(
                x_main + 0.9,
                2.95,
                "the residual path\npasses through LN",
                fontsize=9,
                va="center",
                color=ORANGE,
            )
        box(
            ax,
            x_main,
            4.08,
            2.3,
            0.44,
            "output: the next layer's x",
            GREY,
            "white",
            size=9,
        )
        ax.text(
            0,
            -0.62,
            "x \u2190 x + F(LN(x))" if pre else "x \u2190 LN(x + F(x))",
            ha="center",
            fontsize=11,
        )
        ax.set_title(
            "pre-norm (GPT-2 and most models since)"
            if pre
            else "post-norm (the paper)",
            fontsize=10,
        )
        ax.set_xlim(-2.1, 2.1)
        ax.set_ylim(-0.9, 4.45)
        ax.axis("off")
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig
