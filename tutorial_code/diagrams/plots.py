"""The few kinds of chart the chapters draw, each from numbers to a `Figure`.

The chapters compute what a figure shows and pass it here, so a figure is an
output of the chapter that computed its numbers (in a notebook, the figure
appears under the cell). Figures have a white background so that they read the
same in the light and the dark theme.
"""

# --8<-- [start:imports]
import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure

# --8<-- [end:imports]


# --8<-- [start:charts]
def bars(
    panels: list[tuple[str, torch.Tensor]],
    xlabel: str,
    ylabel: str,
    reference: float | None = None,
) -> Figure:
    """One bar chart per `(title, values)`, side by side, sharing the y axis.

    `reference` draws a dashed line.

    Examples:
        >>> bars([("a", torch.ones(3))], "key", "weight").axes[0].get_title()
        'a'
    """
    fig, axes = plt.subplots(
        1,
        len(panels),
        figsize=(3.5 * len(panels), 2.8),
        sharey=True,
        squeeze=False,
    )
    for ax, (title, values) in zip(axes[0], panels, strict=True):
        ax.bar(range(len(values)), values.numpy(), color="#3f51b5")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel)
        if reference is not None:
            ax.axhline(
                reference,
                color="#888888",
                linestyle="--",
                linewidth=1,
                label="uniform",
            )
    axes[0][0].set_ylabel(ylabel)
    if reference is not None:
        axes[0][0].legend(loc="upper left", fontsize=10)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def heatmaps(
    matrices: list[torch.Tensor],
    titles: list[str],
    labels: list[str],
    xlabel: str,
    ylabel: str,
    row_labels: list[str] | None = None,
) -> Figure:
    """One heatmap per matrix, two to a row, one colour scale from 0 to the top.

    `labels` name the columns, and the rows too unless `row_labels` is given
    (queries and keys differ).
    """
    columns = min(2, len(matrices))  # two to a row: legible in the column
    rows_of_panels = -(-len(matrices) // columns)
    # a panel tall enough that its labels do not overlap: 0.15 inch a label
    most = max(len(labels), len(row_labels or labels))
    side = max(2.9, 0.15 * most + 0.5)
    fig, axes = plt.subplots(
        rows_of_panels,
        columns,
        figsize=(side * columns + 1.1, side * rows_of_panels),
        layout="constrained",
        squeeze=False,
    )
    panels = axes.flatten()
    top = max(float(m.max()) for m in matrices)
    for ax, matrix, title in zip(panels, matrices, titles, strict=False):
        image = ax.imshow(matrix.numpy(), cmap="viridis", vmin=0, vmax=top)
        ax.set_title(title, fontsize=11)
        ax.set_xticks(range(len(labels)), labels, fontsize=9)
        rows = labels if row_labels is None else row_labels
        ax.set_yticks(range(len(rows)), rows, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=9)
        ax.set_ylabel(ylabel, fontsize=9)
    for ax in panels[len(matrices) :]:
        ax.axis("off")  # an odd count leaves one panel empty
    fig.colorbar(image, ax=list(panels), shrink=0.8, label="weight")
    fig.patch.set_facecolor("white")
    return fig


def log_lines(
    series: list[tuple[str, list[float], str]], xlabel: str, ylabel: str
) -> Figure:
    """Lines on a logarithmic y axis, one per `(label, values, color)`."""
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for label, values, color in series:
        ax.semilogy(
            [max(v, 1e-30) for v in values],
            label=label,
            color=color,
            linewidth=1.2,
        )
    ax.set_xlabel(xlabel, fontsize=11)
    ax.set_ylabel(ylabel, fontsize=11)
    ax.tick_params(labelsize=11)  # the exponents of 10^-n are 70 % of it
    ax.legend(fontsize=9)
    ax.grid(alpha=0.3)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def table_image(table: torch.Tensor, xlabel: str, ylabel: str) -> Figure:
    """A matrix of values in [-1, 1] as an image: red < 0, blue > 0."""
    fig, ax = plt.subplots(figsize=(7, 3.6))
    image = ax.imshow(
        table.numpy(), cmap="RdBu", vmin=-1, vmax=1, aspect="auto"
    )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    fig.colorbar(image, ax=ax, label="value")
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def log_log_panels(
    panels: list[tuple[str, dict[str, list[tuple[float, float]]]]],
    xlabel: str,
    colors: dict[str, str],
) -> Figure:
    """Lines on log-log axes (base 2), panels `(ylabel, {label: [(x, y)]})`."""
    fig, axes = plt.subplots(
        1, len(panels), figsize=(3.0 * len(panels), 3.4), squeeze=False
    )
    for ax, (ylabel, lines) in zip(axes[0], panels, strict=True):
        for label, points in lines.items():
            xs, ys = zip(*sorted(points), strict=True)
            ax.loglog(
                xs, ys, "o-", label=label, color=colors.get(label), base=2
            )
        ax.set(xlabel=xlabel, ylabel=ylabel)
        ax.grid(alpha=0.3, which="both")
    axes[0][0].legend(fontsize=9.5)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def flow_diagram(steps: list[tuple[str, str]], per_row: int = 2) -> Figure:
    """Numbered boxes joined by arrows, one per `(title, detail)` step.

    `per_row` boxes to a row.

    Examples:
        >>> len(flow_diagram([("a", "x"), ("b", "y")]).axes)
        1
    """
    rows = -(-len(steps) // per_row)
    fig, ax = plt.subplots(figsize=(3.6 * per_row, 1.7 * rows))
    ax.set_xlim(0, per_row)
    ax.set_ylim(0, rows)
    ax.axis("off")
    centres = []
    for number, (title, detail) in enumerate(steps):
        row, column = divmod(number, per_row)
        x, y = column + 0.5, rows - row - 0.5
        centres.append((x, y))
        ax.text(
            x,
            y,
            f"{number + 1}. {title}\n{detail}",
            ha="center",
            va="center",
            fontsize=9,
            bbox={
                "boxstyle": "round,pad=0.5",
                "facecolor": "#e8eaf6",
                "edgecolor": "#3f51b5",
            },
        )
    for (x0, y0), (x1, y1) in zip(centres, centres[1:], strict=False):
        if y0 == y1:  # same row: a short arrow between neighbours
            start, end = (x0 + 0.36, y0), (x1 - 0.36, y1)
        else:  # next row: from the bottom of the last box to the first's top
            start, end = (x0, y0 - 0.3), (x1, y1 + 0.3)
        ax.annotate(
            "",
            xy=end,
            xytext=start,
            arrowprops={"arrowstyle": "->", "color": "#555555"},
        )
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


# --8<-- [end:charts]
