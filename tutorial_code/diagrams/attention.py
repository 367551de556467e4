"""Pictures of the first chapters' ideas: connections, one query at work, masks.

Each function takes tensors a chapter computed and returns a matplotlib
`Figure`, so the chapters keep their computing lines apart from the drawing.
Figures have a white background, to read the same in the light and dark theme.
"""

import matplotlib.pyplot as plt
import torch
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

_BLUE, _RED, _GREY = "#3f51b5", "#c62828", "#bdbdbd"


def connection_paths(seq_len: int = 8) -> Figure:
    """The path from the first input to the last output in three kinds of layer.

    Inputs sit on the bottom row, outputs on the top row. The edges that carry
    input 0 to output `seq_len - 1` are red: `seq_len - 1` hidden-state steps
    for a recurrent layer, `log2(seq_len)` dilated convolutions of kernel 2, one
    step for attention.

    Returns:
        A figure with three panels side by side.

    Raises:
        ValueError: If `seq_len` is not a power of 2 of at least 2.

    Examples:
        >>> len(connection_paths(4).axes)
        3
    """
    if seq_len < 2 or seq_len & (seq_len - 1):
        raise ValueError(
            f"seq_len must be a power of 2 of at least 2, got {seq_len}"
        )
    levels = seq_len.bit_length() - 1  # layers of the dilated convolution
    fig, axes = plt.subplots(1, 3, figsize=(8.8, 3.4))
    xs = range(seq_len)

    def nodes(ax, y: float, label: str) -> None:
        ax.scatter(
            xs,
            [y] * seq_len,
            s=90,
            color="white",
            edgecolors="#424242",
            zorder=3,
        )
        ax.text(-0.9, y, label, ha="right", va="center", fontsize=11)

    def edge(
        ax, start: tuple[float, float], end: tuple[float, float], on_path: bool
    ) -> None:
        style = (
            {"color": _RED, "linewidth": 2.2, "zorder": 2}
            if on_path
            else {"color": _GREY, "linewidth": 0.8}
        )
        ax.plot(*zip(start, end, strict=True), **style)

    # Recurrent: x_t -> h_t, and h_(t-1) -> h_t: the state carries position 0
    # through every step.
    ax = axes[0]
    nodes(ax, 0, "x")
    nodes(ax, 1, "h")
    for t in xs:
        edge(ax, (t, 0), (t, 1), on_path=t == 0)
        if t:
            edge(ax, (t - 1, 1), (t, 1), on_path=True)
    ax.set_title(
        f"recurrent: {seq_len - 1} steps from x_0 to h_{seq_len - 1}",
        fontsize=11,
    )

    # Dilated convolution, kernel 2: layer l joins positions 2**l apart.
    ax = axes[1]
    for level in range(levels + 1):
        nodes(ax, level, "x" if level == 0 else f"layer {level}")
    for level in range(1, levels + 1):
        gap = 2 ** (level - 1)
        for t in xs:
            for source in (t - gap, t):
                if source >= 0:  # the path from x_0 climbs 0 -> 1 -> 3 -> 7 ...
                    on_path = t == 2**level - 1 and source == t - gap
                    edge(ax, (source, level - 1), (t, level), on_path=on_path)
    ax.set_title(f"dilated convolution: {levels} layers", fontsize=11)

    # Self-attention: every output reads every input in one step.
    ax = axes[2]
    nodes(ax, 0, "x")
    nodes(ax, 1, "y")
    for t in xs:
        for s in xs:
            edge(ax, (s, 0), (t, 1), on_path=(s, t) == (0, seq_len - 1))
    ax.set_title("self-attention: 1 step", fontsize=11)

    for ax in axes:
        ax.set_xlim(-2.6, seq_len - 0.4)
        ax.margins(y=0.15)
        ax.axis("off")
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def weighted_sum(
    rows: list[torch.Tensor], titles: list[str], query: int
) -> Figure:
    """Token `query`'s output as a weighted sum of the tokens, once per row.

    Args:
        rows: One (T,) row of weights per panel, each summing to 1: how
            much of each token the output takes.
        titles: One title per panel.
        query: The token whose output is drawn above the tokens.

    Returns:
        A figure of one panel per row: the tokens in a line, the output
        above them, and a line from each token to the output whose width
        and label give the token's weight.

    Raises:
        ValueError: If `rows` and `titles` differ in number, or `query` is
            not one of the tokens.

    Examples:
        >>> mean = torch.full((4,), 0.25)
        >>> len(weighted_sum([mean], ["the mean"], query=3).axes[0].lines)
        4
    """
    if len(rows) != len(titles) or not rows:
        raise ValueError(
            "give one title per row of weights: "
            f"{len(rows)} rows, {len(titles)} titles"
        )
    num_tokens = rows[0].numel()
    if not 0 <= query < num_tokens:
        raise ValueError(
            f"query must be one of the {num_tokens} tokens, got {query}"
        )
    fig, axes = plt.subplots(
        1, len(rows), figsize=(4.2 * len(rows), 3.0), squeeze=False
    )
    top_x = (num_tokens - 1) / 2  # the output sits above the middle
    label_box = {"boxstyle": "round,pad=0.15", "facecolor": "white"}
    for ax, row, title in zip(axes[0], rows, titles, strict=True):
        for s, weight in enumerate(row.detach().float().tolist()):
            ax.plot(
                [s, top_x],
                [0.25, 1.75],
                color=_BLUE,
                linewidth=0.5 + 16 * weight,  # as wide as the weight
                solid_capstyle="round",
            )
            ax.text(
                s + (top_x - s) * 0.38,
                0.82,
                f"{weight:.2f}",
                ha="center",
                va="center",
                fontsize=10,
                bbox=label_box | {"edgecolor": "none"},
            )
            ax.add_patch(
                Rectangle((s - 0.38, -0.1), 0.76, 0.35, fc="#e8eaf6", ec=_BLUE)
            )
            ax.text(s, 0.075, f"token {s}", ha="center", va="center")
        ax.add_patch(
            Rectangle((top_x - 0.9, 1.75), 1.8, 0.4, fc="#fff3e0", ec="#ef6c00")
        )
        ax.text(
            top_x, 1.95, f"output of token {query}", ha="center", va="center"
        )
        ax.set_title(title, fontsize=11)
        ax.set_xlim(-0.6, num_tokens - 0.4)
        ax.set_ylim(-0.2, 2.3)
        ax.axis("off")
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def one_query(
    query: torch.Tensor,
    keys: torch.Tensor,
    scores: torch.Tensor,
    weights: torch.Tensor,
    values: torch.Tensor,
    output: torch.Tensor,
) -> Figure:
    """One query scored against every key, the softmax weights, the output.

    Args:
        query: (d_k,).
        keys: (T, d_k).
        scores: The query's scaled scores `q . k_s / sqrt(d_k)`, (T,).
        weights: The softmax of the scores, (T,).
        values: (T, d_v).
        output: The weighted sum of the values, (d_v,).

    Returns:
        A figure of four columns: the query above the keys, the scores, the
        weights, and the values below the output, each key's row level with its
        score, weight and value.

    Examples:
        >>> keys, values = torch.randn(3, 2), torch.randn(3, 4)
        >>> scores = keys @ torch.ones(2)
        >>> weights = torch.softmax(scores, dim=0)
        >>> figure = one_query(torch.ones(2), keys, scores, weights, values,
        ...                    weights @ values)
        >>> len(figure.axes)
        6
    """
    query, keys, values, output = (
        t.detach().float() for t in (query, keys, values, output)
    )
    scores, weights = scores.detach().float(), weights.detach().float()
    num_keys = keys.size(0)
    fig = plt.figure(figsize=(7.2, 1.5 + 0.55 * num_keys))
    grid = fig.add_gridspec(
        2,
        4,
        height_ratios=[1, num_keys],
        width_ratios=[1.6 * keys.size(1), 3, 3, 1.6 * values.size(1)],
        hspace=0.6,
        wspace=0.4,
    )
    top = float(
        max(
            keys.abs().max(),
            values.abs().max(),
            query.abs().max(),
            output.abs().max(),
        )
    )

    def matrix(
        ax, data: torch.Tensor, title: str, row_labels: list[str]
    ) -> None:
        ax.imshow(
            data.numpy(), cmap="RdBu_r", vmin=-top, vmax=top, aspect="auto"
        )
        for row, numbers in enumerate(data.tolist()):
            for column, value in enumerate(numbers):
                # readable on dark cells
                colour = "white" if abs(value) > 0.6 * top else "black"
                ax.text(
                    column,
                    row,
                    f"{value:.2f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color=colour,
                )
        ax.set_title(title, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks(range(len(row_labels)), row_labels, fontsize=8)

    keys_labels = [f"key {s}" for s in range(num_keys)]
    matrix(fig.add_subplot(grid[0, 0]), query[None], "the query q", ["q"])
    matrix(
        fig.add_subplot(grid[1, 0]),
        keys,
        "steps 2-3:\nscore q with each key",
        keys_labels,
    )
    for column, (data, title, fmt) in enumerate(
        [
            (scores, "scores\nq . k_s / sqrt(d_k)", "{:.2f}"),
            (weights, "step 5:\nsoftmax (sum 1)", "{:.2f}"),
        ],
        start=1,
    ):
        ax = fig.add_subplot(grid[1, column])
        ax.barh(
            range(num_keys),
            data.numpy(),
            color=_BLUE if column == 2 else "#7986cb",
        )
        for s, value in enumerate(data.tolist()):
            ax.text(
                value,
                s,
                " " + fmt.format(value),
                va="center",
                ha="left" if value >= 0 else "right",
                fontsize=8,
            )
        ax.axvline(0, color="#424242", linewidth=0.8)
        ax.set_ylim(num_keys - 0.5, -0.5)
        ax.set_yticks([])
        ax.set_title(title, fontsize=9)
        low, high = min(0.0, data.min().item()), max(0.0, data.max().item())
        span = max(high - low, 1e-6)  # room for the numbers beside the bars
        ax.set_xlim(low - 0.8 * span * (low < 0), high + 0.8 * span)
    matrix(
        fig.add_subplot(grid[1, 3]),
        values,
        "values v_s",
        [f"v_{s}" for s in range(num_keys)],
    )
    matrix(
        fig.add_subplot(grid[0, 3]),
        output[None],
        "step 6: output =\nsum of weight_s * v_s",
        ["out"],
    )
    fig.patch.set_facecolor("white")
    return fig


def mask_maps(masks: list[torch.Tensor], titles: list[str]) -> Figure:
    """Boolean masks side by side: a filled cell may be attended, an empty not.

    A row with no key left (fully masked) is outlined in red and marked.

    Args:
        masks: Boolean masks (T_q, T_k), True = may attend.

    Returns:
        A figure with one panel per mask; rows are queries, columns keys.

    Raises:
        ValueError: If `masks` and `titles` differ in length, or a mask is not
            a 2-D boolean tensor.

    Examples:
        >>> causal = torch.ones(3, 3, dtype=torch.bool).tril()
        >>> len(mask_maps([causal], ["causal"]).axes)
        1
    """
    if len(masks) != len(titles):
        raise ValueError(
            f"one title per mask: got {len(masks)} "
            f"masks and {len(titles)} titles"
        )
    for mask in masks:
        if (
            not isinstance(mask, torch.Tensor)
            or mask.dtype != torch.bool
            or mask.dim() != 2
        ):
            raise ValueError(
                f"each mask must be a 2-D boolean tensor, got {mask!r}"
            )
    columns = min(2, len(masks))  # two to a row: legible in the column
    rows_of_panels = -(-len(masks) // columns)
    fig, axes = plt.subplots(
        rows_of_panels,
        columns,
        figsize=(3.3 * columns, 3.5 * rows_of_panels),
        squeeze=False,
    )
    panels = axes.flatten()
    for ax in panels[len(masks) :]:
        ax.axis("off")  # an odd count leaves one panel empty
    colours = ListedColormap(["#eeeeee", _BLUE])
    for ax, mask, title in zip(panels, masks, titles, strict=False):
        queries, keys = mask.shape
        ax.imshow(mask.int().numpy(), cmap=colours, vmin=0, vmax=1)
        ax.set_xticks(range(keys))
        ax.set_yticks(range(queries))
        ax.tick_params(labelsize=9)
        ax.set_xticks([k - 0.5 for k in range(1, keys)], minor=True)
        ax.set_yticks([q - 0.5 for q in range(1, queries)], minor=True)
        ax.grid(which="minor", color="white", linewidth=1.5)
        ax.tick_params(which="minor", length=0)
        for row in (~mask.any(dim=-1)).nonzero().flatten().tolist():
            outline = Rectangle(
                (-0.5, row - 0.5),
                keys,
                1,
                fill=False,
                edgecolor=_RED,
                linewidth=2.5,
                zorder=3,
            )
            ax.add_patch(outline)
            ax.text(
                keys - 0.3,
                row,
                " no key left",
                color=_RED,
                va="center",
                fontsize=10,
            )
        ax.set_title(title, fontsize=11)
        ax.set_xlabel("key", fontsize=10)
        ax.set_ylabel("query", fontsize=10)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def projections(
    x: torch.Tensor, products: list[tuple[str, torch.Tensor, torch.Tensor]]
) -> Figure:
    """Self-attention's step 1: the same token vectors `x` (T, d_model) times
    each weight matrix gives the queries, the keys and the values.

    Args:
        products: `(name, W, x @ W)` per projection, W as (d_model, d_k), the
            way the equations write it (nn.Linear keeps its transpose).

    Examples:
        >>> x, w = torch.ones(2, 3), torch.eye(3)
        >>> len(projections(x, [("Q", w, x @ w)]).axes)
        3
    """
    rows = len(products)
    fig, axes = plt.subplots(
        rows,
        3,
        figsize=(8.4, 1.15 * rows * max(x.size(0), x.size(1)) / 3 + 0.6),
        squeeze=False,
        gridspec_kw={"wspace": 0.55, "hspace": 0.5},
    )

    def grid(ax, values: torch.Tensor, title: str) -> None:
        top = (
            1.8 * float(values.abs().max()) or 1.0
        )  # light: text stays legible
        ax.imshow(
            values.numpy(), cmap="RdBu_r", vmin=-top, vmax=top, aspect="auto"
        )
        for (i, j), value in zip(
            torch.cartesian_prod(
                torch.arange(values.size(0)), torch.arange(values.size(1))
            ).tolist(),
            values.flatten().tolist(),
            strict=True,
        ):
            shown = f"{value:.1f}".replace("-0.0", "0.0")
            ax.text(j, i, shown, ha="center", va="center", fontsize=11)
        ax.set_title(title, fontsize=12)
        ax.set_xticks([])
        ax.set_yticks([])

    for row, (name, weight, result) in enumerate(products):
        left, middle, right = axes[row]
        grid(left, x, "X: the tokens")
        grid(middle, weight, f"W_{name}")
        grid(right, result, f"{name} = X W_{name}")
        for ax, symbol in ((left, "×"), (middle, "=")):
            ax.annotate(
                symbol,
                (1.08, 0.5),
                xycoords="axes fraction",
                fontsize=18,
                ha="left",
                va="center",
            )
    fig.patch.set_facecolor("white")
    return fig
