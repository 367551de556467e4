"""Pictures of the decoder chapters (10-12), from shapes and values computed.

Each function takes what a chapter measured (tensor shapes, token ids,
probabilities) and returns a matplotlib `Figure`: the architecture of the
encoder-decoder, the shifted target of teacher forcing, one next-character
distribution under several sampling settings, and a KV cache that grows one
token at a time.
"""

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from tutorial_code.diagrams.drawing import (
    BLUE,
    BLUE_FILL,
    GREEN,
    GREEN_FILL,
    GREY,
    GREY_FILL,
    ORANGE,
    ORANGE_FILL,
    arrow,
    box,
)


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(size) for size in shape) + ")"


def encoder_decoder_diagram(
    source: tuple[int, ...],
    memory: tuple[int, ...],
    target: tuple[int, ...],
    output: tuple[int, ...],
    cross_weights: tuple[int, ...],
    num_layers: int,
) -> Figure:
    """The encoder-decoder as two stacks, with the shape of each tensor between.

    The encoder (left) turns the source into the memory. Each decoder layer
    (right) runs masked self-attention over the target, cross-attention with
    queries from the decoder and keys and values from the memory, and a
    feed-forward network.

    Args:
        source: Shape of the source vectors, (B, S, d_model).
        memory: Shape of the encoder's output, (B, S, d_model).
        target: Shape of the decoder's input vectors, (B, T, d_model).
        output: Shape of the decoder's output, (B, T, d_model).
        cross_weights: Shape of a decoder layer's cross-attention weights,
            (B, h, T, S).
        num_layers: Layers in each stack (N).

    Examples:
        >>> fig = encoder_decoder_diagram((2, 7, 32), (2, 7, 32), (2, 5, 32),
        ...                               (2, 5, 32), (2, 4, 5, 7), 2)
        >>> len(fig.axes)
        1
    """
    fig, ax = plt.subplots(figsize=(8.2, 6.4))
    ax.set_xlim(0, 10.4)
    ax.set_ylim(0, 10.4)
    ax.axis("off")
    left, right = 2.4, 7.6
    # The encoder stack.
    box(
        ax,
        left,
        0.7,
        3.4,
        0.7,
        f"source vectors\n(B, S, d_model) = {_shape(source)}",
        GREY,
        GREY_FILL,
    )
    ax.add_patch(
        FancyBboxPatch(
            (0.55, 1.7),
            3.7,
            3.1,
            boxstyle="round,pad=0.05",
            facecolor="none",
            edgecolor=BLUE,
            ls="--",
        )
    )
    ax.text(
        0.7,
        4.55,
        f"encoder layer × {num_layers}",
        fontsize=9.5,
        color=BLUE,
        va="center",
    )
    box(
        ax,
        left,
        2.4,
        3.2,
        0.75,
        "self-attention\n(no mask: no padding here)",
        BLUE,
        BLUE_FILL,
    )
    box(ax, left, 3.7, 3.2, 0.6, "feed-forward", BLUE, BLUE_FILL)
    box(ax, left, 5.5, 3.2, 0.5, "LayerNorm", GREY, GREY_FILL)
    box(
        ax,
        left,
        6.8,
        3.4,
        0.8,
        f"memory\n(B, S, d_model) = {_shape(memory)}",
        GREEN,
        GREEN_FILL,
    )
    for start, end in ((1.05, 2.0), (2.8, 3.4), (4.0, 5.25), (5.75, 6.4)):
        arrow(ax, (left, start), (left, end))
    # The decoder stack.
    box(
        ax,
        right,
        0.7,
        3.4,
        0.7,
        f"target vectors\n(B, T, d_model) = {_shape(target)}",
        GREY,
        GREY_FILL,
    )
    ax.add_patch(
        FancyBboxPatch(
            (5.2, 1.7),
            4.0,
            5.7,
            boxstyle="round,pad=0.05",
            facecolor="none",
            edgecolor=ORANGE,
            ls="--",
        )
    )
    ax.text(
        5.4,
        7.15,
        f"decoder layer × {num_layers}",
        fontsize=9.5,
        color=ORANGE,
        va="center",
    )
    box(
        ax,
        right,
        2.4,
        3.6,
        0.75,
        "masked self-attention\n(causal mask: t sees 0..t)",
        ORANGE,
        ORANGE_FILL,
    )
    box(
        ax,
        right,
        4.1,
        3.6,
        1.2,
        "cross-attention\nqueries from the decoder,\n"
        "keys and values from the memory\n"
        f"weights (B, h, T, S) = {_shape(cross_weights)}",
        ORANGE,
        ORANGE_FILL,
        size=9.5,
    )
    box(ax, right, 5.85, 3.6, 0.6, "feed-forward", ORANGE, ORANGE_FILL)
    box(ax, right, 8.0, 3.2, 0.5, "LayerNorm", GREY, GREY_FILL)
    box(
        ax,
        right,
        9.4,
        3.4,
        0.8,
        f"output\n(B, T, d_model) = {_shape(output)}",
        ORANGE,
        ORANGE_FILL,
    )
    for start, end in (
        (1.05, 2.0),
        (2.8, 3.45),
        (4.75, 5.5),
        (6.2, 7.75),
        (8.25, 9.0),
    ):
        arrow(ax, (right, start), (right, end))
    # Every decoder layer reads the same memory.
    arrow(
        ax,
        (left + 1.75, 6.8),
        (right - 1.85, 4.1),
        color=GREEN,
        connectionstyle="arc3,rad=-0.15",
    )
    ax.text(
        4.72,
        5.6,
        "keys, values\nin every layer",
        fontsize=9.5,
        color=GREEN,
        ha="center",
    )
    ax.text(
        0.3,
        9.6,
        "B batch, S source length,\nT target length, h heads",
        fontsize=10,
        color=GREY,
        va="center",
    )
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def teacher_forcing_strip(
    source: list[int],
    decoder_input: list[int],
    target: list[int],
    start_token: int,
) -> Figure:
    """Teacher forcing for one example: source, decoder's input, target.

    The decoder's input is the target shifted right by one behind the start
    token: position t reads the true tokens before t and must predict target
    token t (solid arrow). Each target token is fed in again one position later
    (dashed arrow); the last one is never an input.

    Args:
        decoder_input: The decoder's input ids: the start token, then the target
            without its last token.
        start_token: The id of the start token, drawn as "BOS".

    Examples:
        >>> fig = teacher_forcing_strip([1, 2], [10, 2], [2, 1], start_token=10)
        >>> len(fig.axes)
        1
    """
    n = len(target)
    fig, ax = plt.subplots(figsize=(0.7 * n + 2.5, 3.4))
    ax.set_xlim(-3.3, n)
    ax.set_ylim(-0.6, 4.4)
    ax.axis("off")
    rows = (
        (3.8, "source\n(the encoder reads it)", source, GREY, GREY_FILL),
        (
            2.2,
            "decoder input\nBOS + target[:-1]",
            decoder_input,
            BLUE,
            BLUE_FILL,
        ),
        (0.2, "target\n(what position t predicts)", target, GREEN, GREEN_FILL),
    )
    for y, label, tokens, edge, fill in rows:
        ax.text(-0.55, y, label, ha="right", va="center", fontsize=10)
        for t, token in enumerate(tokens):
            text = "BOS" if token == start_token else str(token)
            box(ax, t + 0.5, y, 0.8, 0.6, text, edge, fill, size=11)
    for t in range(n):
        # position t predicts target t
        arrow(ax, (t + 0.5, 1.88), (t + 0.5, 0.52), color=BLUE)
        if t + 1 < n:  # target t is the input of position t + 1
            arrow(
                ax,
                (t + 0.62, 0.52),
                (t + 1.38, 1.88),
                color=GREEN,
                linestyle="--",
            )
    for t in range(n):
        ax.text(t + 0.5, 2.75, f"t={t}", ha="center", fontsize=10, color=GREY)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def distribution_bars(
    labels: list[str], panels: list[tuple[str, torch.Tensor]]
) -> Figure:
    """One bar chart per `(title, probabilities)`, same tokens, one y axis.

    Args:
        labels: The name of each candidate token, one per bar.
        panels: `(title, probabilities)` for each setting, one probability per
            label.

    Examples:
        >>> probabilities = torch.tensor([0.7, 0.3])
        >>> fig = distribution_bars(["a", "b"], [("T=1", probabilities)])
        >>> fig.axes[0].get_title()
        'T=1'
    """
    columns = min(2, len(panels))  # two to a row: legible in the column
    rows_of_panels = -(-len(panels) // columns)
    fig, axes = plt.subplots(
        rows_of_panels,
        columns,
        figsize=(3.4 * columns, 2.7 * rows_of_panels),
        sharey=True,
        squeeze=False,
    )
    for ax in axes.flatten()[len(panels) :]:
        ax.axis("off")
    for ax, (title, probabilities) in zip(axes.flatten(), panels, strict=False):
        colors = [BLUE if p > 0 else GREY for p in probabilities.tolist()]
        ax.bar(range(len(labels)), probabilities.numpy(), color=colors)
        ax.set_xticks(range(len(labels)), labels, fontsize=10)
        ax.set_title(title, fontsize=11)
        ax.set_xlabel("next character", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    for row in axes:
        row[0].set_ylabel("probability")
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def nucleus_bars(
    labels: list[str], probabilities: torch.Tensor, kept: int, top_p: float
) -> Figure:
    """Sorted next-token probabilities, their running sum, and the top-p cut.

    Args:
        labels: The name of each token, likeliest first, one per bar.
        probabilities: Their probabilities, in the same order (descending).
        kept: How many of them the nucleus keeps (the first `kept` bars).
        top_p: The probability the nucleus must reach: a dashed line.

    Examples:
        >>> probabilities = torch.tensor([0.6, 0.3, 0.1])
        >>> fig = nucleus_bars(["a", "b", "c"], probabilities, 2, 0.8)
        >>> len(fig.axes[0].patches)
        3
    """
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    positions = range(len(labels))
    colors = [BLUE if i < kept else GREY for i in positions]
    ax.bar(
        positions,
        probabilities.numpy(),
        color=colors,
        label="probability (blue: kept)",
    )
    ax.step(
        positions,
        probabilities.cumsum(0).numpy(),
        where="mid",
        color=ORANGE,
        label="running sum",
    )
    ax.axhline(top_p, color=ORANGE, linestyle="--", linewidth=1)
    ax.text(
        -0.4, top_p + 0.02, f"p = {top_p}", ha="left", fontsize=9, color=ORANGE
    )
    ax.axvline(kept - 0.5, color="#555555", linewidth=1)
    ax.set_xticks(list(positions), labels, fontsize=9.5)
    ax.set_xlabel("next character, likeliest first", fontsize=9.5)
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=9, loc="center right")
    ax.grid(axis="y", alpha=0.3)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def beam_tree(steps: list[tuple[list[int], list[int], list[float]]]) -> Figure:
    """The drafts beam search keeps at each step, joined to those they extend.

    Args:
        steps: For each step, `(parents, tokens, scores)`, one entry per kept
            draft, likeliest first: the index of the draft it extends in the
            step before (in the first step, 0: the start token), its new token
            and its total log-probability.

    Returns:
        The figure; the path of the likeliest final draft is drawn in blue.

    Examples:
        >>> fig = beam_tree([([0, 0], [3, 5], [-0.1, -2.5]),
        ...                  ([0, 1], [7, 7], [-0.2, -2.6])])
        >>> len(fig.axes)
        1
    """
    width = max(len(tokens) for _, tokens, _ in steps)
    fig, ax = plt.subplots(figsize=(1.9 * (len(steps) + 1), 0.9 * width + 1.0))
    on_best = [0]  # the likeliest final draft, traced back step by step
    for parents, _, _ in reversed(steps[1:]):
        on_best.insert(0, parents[on_best[0]])
    box(ax, 0, 0, 0.75, 0.5, "start", GREY, GREY_FILL)
    for step, (parents, tokens, scores) in enumerate(steps, start=1):
        ax.text(step, 0.6, f"step {step}", ha="center", fontsize=9)
        for row, (parent, token, score) in enumerate(
            zip(parents, tokens, scores, strict=True)
        ):
            best = row == on_best[step - 1]
            colour, fill = (BLUE, BLUE_FILL) if best else (GREY, GREY_FILL)
            shown = round(score, 1) + 0.0  # + 0.0: -0.0 reads as 0.0
            box(
                ax, step, -row, 0.75, 0.5, f"{token}: {shown:.1f}", colour, fill
            )
            arrow(ax, (step - 1 + 0.4, -parent), (step - 0.4, -row), colour)
    ax.text(
        0, -width + 0.3, "token: total log-probability", fontsize=9, color=GREY
    )
    ax.set_xlim(-0.6, len(steps) + 0.6)
    ax.set_ylim(-width + 0.1, 0.9)
    ax.axis("off")
    fig.patch.set_facecolor("white")
    return fig


def kv_cache_growth(
    steps: list[tuple[str, int]], shapes: list[tuple[int, ...]]
) -> Figure:
    """A KV cache growing step by step: a row per step, a cell per position.

    Args:
        steps: `(text, new)` for each step: the characters fed to the model at
            that step and how many positions they add (the prompt first, then
            one character per step).
        shapes: The shape of one layer's cached keys after each step,
            (B, h, t, d_k).

    Examples:
        >>> fig = kv_cache_growth([("ab", 2), ("c", 1)],
        ...                       [(1, 4, 2, 16), (1, 4, 3, 16)])
        >>> len(fig.axes)
        1
    """
    if len(steps) != len(shapes):
        raise ValueError(
            f"one shape per step: got {len(steps)} "
            f"steps and {len(shapes)} shapes"
        )
    total = sum(new for _, new in steps)
    fig, ax = plt.subplots(figsize=(0.5 * total + 3.1, 0.55 * len(steps) + 1.3))
    ax.set_xlim(-2.6, total + 3.6)
    ax.set_ylim(-len(steps) + 0.3, 2.0)
    ax.axis("off")
    chars = "".join(text for text, _ in steps)
    ax.text(
        -2.6,
        1.65,
        "orange: keys and values computed at "
        "this step; blue: read from the cache",
        ha="left",
        fontsize=10,
        color=GREY,
    )
    ax.text(-0.2, 0.95, "step", ha="right", fontsize=10, color=GREY)
    ax.text(
        total + 0.4,
        0.95,
        "keys of one layer\n(B, h, t, d_k)",
        ha="left",
        fontsize=10,
        color=GREY,
    )
    length = 0
    for row, ((_, new), shape) in enumerate(zip(steps, shapes, strict=True)):
        y = -row
        fed = "the prompt" if row == 0 else "one new token"
        ax.text(-0.2, y, f"{row}: {fed}", ha="right", va="center", fontsize=10)
        length += new
        for position in range(length):
            is_new = position >= length - new
            char = chars[position] if chars[position] != " " else "␣"
            edge, fill = (ORANGE, ORANGE_FILL) if is_new else (BLUE, BLUE_FILL)
            box(ax, position + 0.5, y, 0.8, 0.72, char, edge, fill, size=11)
        ax.text(
            total + 0.4,
            y,
            _shape(shape),
            ha="left",
            va="center",
            fontsize=10,
            family="monospace",
        )
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig


def spelling_attention(
    weights: torch.Tensor, digits: list[str], characters: list[str]
) -> Figure:
    """Cross-attention while writing a number in words: `weights` (S, T), a
    row per source digit and a column per character written."""
    rows, columns = weights.shape
    fig, ax = plt.subplots(
        figsize=(0.3 * columns + 1.6, 0.35 * rows + 1.0), layout="constrained"
    )
    image = ax.imshow(weights.numpy(), cmap="viridis", vmin=0, vmax=1)
    shown = [c if c != " " else "␣" for c in characters]
    ax.set_xticks(range(columns), shown, fontsize=11)
    ax.set_yticks(range(rows), digits, fontsize=11)
    ax.set_xlabel("character written (query)", fontsize=11)
    ax.set_ylabel("source digit (key)", fontsize=11)
    bar = fig.colorbar(image, ax=ax, shrink=0.9, pad=0.01)
    bar.set_label("weight", fontsize=11)
    bar.ax.tick_params(labelsize=11)
    fig.patch.set_facecolor("white")
    return fig


def shift_and_generate(
    window: str, steps: list[tuple[str, str, float]]
) -> Figure:
    """A language model's two loops: how it trains, and how it writes.

    Top: a window of text as the input, and the same text shifted by one
    character as the target; each position predicts the character after it.
    Bottom: writing, one row per step: the text so far goes in, one character
    is drawn from the model's distribution and appended for the next step.

    Args:
        window: Characters of the training text, one more than the input.
        steps: `(text so far, character drawn, its probability)` per step.

    Examples:
        >>> fig = shift_and_generate("abcd", [("ab", "c", 0.5)])
        >>> len(fig.axes)
        1
    """
    n = len(window) - 1
    longest = max([n] + [len(text) + 1 for text, _, _ in steps])
    fig, ax = plt.subplots(
        figsize=(0.5 * longest + 2.4, 0.5 * (len(steps) + 2) + 2.1)
    )
    ax.axis("off")

    def cell(x: float, y: float, char: str, edge: str, fill: str) -> None:
        shown = "␣" if char == " " else "↵" if char == "\n" else char
        box(ax, x + 0.5, y, 0.8, 0.7, shown, edge, fill, size=12)

    top = len(steps) + 2.4
    ax.text(
        -0.3,
        top + 1.1,
        "training: predict the next character",
        fontsize=12,
        color=BLUE,
        ha="left",
    )
    ax.text(-0.3, top, "input", ha="right", va="center", fontsize=11)
    ax.text(-0.3, top - 1.3, "target", ha="right", va="center", fontsize=11)
    for t in range(n):
        cell(t, top, window[t], BLUE, BLUE_FILL)
        cell(t, top - 1.3, window[t + 1], GREEN, GREEN_FILL)
        arrow(ax, (t + 0.5, top - 0.38), (t + 0.5, top - 0.92), color=BLUE)
    ax.text(
        -0.3,
        len(steps) - 0.2,
        "writing: draw one, append it, repeat",
        fontsize=12,
        color=ORANGE,
        ha="left",
    )
    for row, (text, drawn, probability) in enumerate(steps):
        y = len(steps) - 1 - row - 0.2
        for t, char in enumerate(text):
            is_new = row > 0 and t == len(text) - 1
            edge, fill = (ORANGE, ORANGE_FILL) if is_new else (GREY, GREY_FILL)
            cell(t, y, char, edge, fill)
        ax.text(
            len(text) + 0.3,
            y,
            f"→ {drawn!r}  p = {probability:.2f}",
            va="center",
            fontsize=11,
        )
    ax.set_xlim(-2.0, longest + 2.9)
    ax.set_ylim(-1.0, top + 1.6)
    fig.patch.set_facecolor("white")
    fig.tight_layout()
    return fig
