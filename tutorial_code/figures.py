"""Every figure on the site, one function each. The build renders them; none is committed.

Each function returns a matplotlib `Figure`. [`FIGURES`][tutorial_code.figures.FIGURES]
maps the file name a page links to (`figures/<name>.png`) to its function, and
[`render_png`][tutorial_code.figures.render_png] turns one into PNG bytes.
Figures have a white background so that they read the same in the light and the
dark theme.
"""

import io
import math
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")  # no display needed: render to memory

import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from tutorial_code.positional import sinusoidal_table  # noqa: E402
from tutorial_code.residual import gradient_norm_per_layer  # noqa: E402
from tutorial_code.sum_task import trained_sum_model  # noqa: E402
from tutorial_code.tasks import argmax_batch, train_argmax  # noqa: E402
from tutorial_code.why_attention import gradient_reach  # noqa: E402

TEST_SEQUENCE = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]


def softmax_scaling() -> Figure:
    """Attention weights of one query over 16 keys (d_k = 64), without and with the 1/sqrt(d_k) scaling."""
    torch.manual_seed(1)
    d_k, num_keys = 64, 16
    q, k = torch.randn(d_k), torch.randn(num_keys, d_k)
    scores = k @ q  # (num_keys,)
    fig, axes = plt.subplots(1, 2, figsize=(8, 2.8), sharey=True)
    panels = (("unscaled: softmax(q.k)", scores), (f"scaled: softmax(q.k / sqrt({d_k}))", scores / math.sqrt(d_k)))
    for ax, (title, s) in zip(axes, panels, strict=True):
        ax.bar(range(num_keys), torch.softmax(s, dim=0).numpy(), color="#3f51b5")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("key")
        ax.axhline(1 / num_keys, color="#888888", linestyle="--", linewidth=1, label="uniform")
    axes[0].set_ylabel("attention weight")
    axes[0].legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return fig


def sum_model_heads() -> Figure:
    """Per-head attention weights of the trained sum model (first layer) for the test sequence."""
    model = trained_sum_model().model.eval()
    with torch.no_grad():
        first_layer = model(torch.tensor([TEST_SEQUENCE]))[1][0][0]  # (h, T, T)
    labels = [str(int(v)) for v in TEST_SEQUENCE]
    return _heatmaps(
        list(first_layer), [f"head {h}" for h in range(len(first_layer))], labels, "key (digit)", "query (digit)"
    )


def _heatmaps(matrices: list[torch.Tensor], titles: list[str], labels: list[str], xlabel: str, ylabel: str) -> Figure:
    """One heatmap per matrix, side by side, sharing one colour scale from 0 to the largest weight."""
    fig, axes = plt.subplots(1, len(matrices), figsize=(2.4 * len(matrices) + 1.2, 2.9), layout="constrained")
    top = max(float(m.max()) for m in matrices)
    for ax, matrix, title in zip(axes, matrices, titles, strict=True):
        image = ax.imshow(matrix.numpy(), cmap="viridis", vmin=0, vmax=top)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.set_xlabel(xlabel, fontsize=8)
    axes[0].set_ylabel(ylabel, fontsize=8)
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="weight")
    return fig


def _log_lines(series: list[tuple[str, list[float], str]], xlabel: str, ylabel: str) -> Figure:
    """Lines on a logarithmic y axis, one per `(label, values, color)`."""
    fig, ax = plt.subplots(figsize=(7, 3.3))
    for label, values, color in series:
        ax.semilogy([max(v, 1e-30) for v in values], label=label, color=color, linewidth=1.2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def gradient_reach_figure() -> Figure:
    """How much of the last output's gradient reaches each input: RNN against self-attention."""
    recurrent, attention = gradient_reach(seq_len=64, d_model=32)
    return _log_lines(
        [("RNN (nn.RNN, tanh)", recurrent, "#c62828"), ("self-attention", attention, "#3f51b5")],
        "input position t (the output read is at position 63)",
        "gradient norm (log scale)",
    )


def sinusoidal_table_figure() -> Figure:
    """The sinusoidal position table: one row per position, one column per feature."""
    table = sinusoidal_table(max_len=64, d_model=64)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    image = ax.imshow(table.numpy(), cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    ax.set_xlabel("feature (even: sine, odd: cosine; frequency falls to the right)")
    ax.set_ylabel("position")
    fig.colorbar(image, ax=ax, label="value")
    fig.tight_layout()
    return fig


def dynamic_weights() -> Figure:
    """The same trained head on two inputs: all nines, and 0 1 2 ... 7."""
    model = trained_sum_model().model.eval()
    inputs = ([9.0] * 8, [float(v) for v in range(8)])
    with torch.no_grad():
        heads = [model(torch.tensor([numbers]))[1][0][0, 0] for numbers in inputs]  # layer 0, head 0
    return _heatmaps(
        heads,
        ["input 9 9 9 9 9 9 9 9", "input 0 1 2 3 4 5 6 7"],
        [str(i) for i in range(8)],
        "key position",
        "query position",
    )


def loss_curve() -> Figure:
    """Training loss of the sum task, step by step, post-norm and pre-norm with the same seed."""
    post = trained_sum_model(seed=0).losses
    pre = trained_sum_model(seed=0, norm_first=True).losses
    return _log_lines(
        [("post-norm (the paper)", post, "#3f51b5"), ("pre-norm", pre, "#ef6c00")],
        "training step",
        "MSE loss (log scale)",
    )


def argmax_heads() -> Figure:
    """First-layer heads of the model that finds the largest digit, on one held-out sequence."""
    model = train_argmax().model.eval()
    numbers, _ = argmax_batch(1, 8, torch.Generator().manual_seed(7))
    with torch.no_grad():
        first_layer = model(numbers)[1][0][0]  # (h, T, T)
    labels = [str(int(v)) for v in numbers[0]]
    return _heatmaps(
        list(first_layer), [f"head {h}" for h in range(len(first_layer))], labels, "key (digit)", "query (digit)"
    )


def residual_gradients() -> Figure:
    """Gradient norm per layer in a 32-layer stack, with and without residuals and LayerNorm."""
    styles = {(True, True): "#3f51b5", (True, False): "#2e7d32", (False, True): "#ef6c00", (False, False): "#c62828"}
    series = [
        (
            f"residual {'on' if residual else 'off'}, LayerNorm {'on' if norm else 'off'}",
            gradient_norm_per_layer(num_layers=32, residual=residual, norm=norm),
            color,
        )
        for (residual, norm), color in styles.items()
    ]
    return _log_lines(series, "layer (0 = closest to the input)", "gradient norm (log scale)")


def bench_attention() -> Figure:
    """Forward time and peak memory against sequence length, from the benchmark's results file."""
    import json

    from tutorial_code.bench import DEFAULT_OUTPUT

    rows = [r for r in json.loads(DEFAULT_OUTPUT.read_text(encoding="utf-8"))["attention"] if not r["backward"]]
    labels = {"naive": "hand-written naive", "sdpa": "hand-written on F.sdpa", "torch_mha": "nn.MultiheadAttention"}
    colors = {"naive": "#c62828", "sdpa": "#3f51b5", "torch_mha": "#2e7d32"}
    fig, (time_ax, memory_ax) = plt.subplots(1, 2, figsize=(9, 3.4))
    for variant, label in labels.items():
        points = sorted((r["seq_len"], r["ms"], r["peak_mb"]) for r in rows if r["variant"] == variant)
        lengths = [p[0] for p in points]
        time_ax.loglog(lengths, [p[1] for p in points], "o-", label=label, color=colors[variant], base=2)
        memory_ax.loglog(lengths, [p[2] for p in points], "o-", label=label, color=colors[variant], base=2)
    time_ax.set(xlabel="sequence length T", ylabel="forward time (ms)")
    memory_ax.set(xlabel="sequence length T", ylabel="peak memory (MB)")
    for ax in (time_ax, memory_ax):
        ax.grid(alpha=0.3, which="both")
    time_ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


FIGURES: dict[str, Callable[[], Figure]] = {
    "softmax_scaling": softmax_scaling,
    "sum_model_heads": sum_model_heads,
    "gradient_reach": gradient_reach_figure,
    "sinusoidal_table": sinusoidal_table_figure,
    "dynamic_weights": dynamic_weights,
    "loss_curve": loss_curve,
    "argmax_heads": argmax_heads,
    "residual_gradients": residual_gradients,
    "bench_attention": bench_attention,
}
"""Figure name -> function that draws it. Pages link `figures/<name>.png`."""


def render_png(name: str) -> bytes:
    """Draw the figure `name` and return it as PNG bytes, identical for identical drawings.

    Args:
        name: A key of [`FIGURES`][tutorial_code.figures.FIGURES].

    Returns:
        The PNG file's bytes.

    Raises:
        KeyError: If `name` is not a known figure.
    """
    if name not in FIGURES:
        raise KeyError(f"unknown figure {name!r}; known figures: {', '.join(sorted(FIGURES))}")
    fig = FIGURES[name]()
    fig.patch.set_facecolor("white")
    buffer = io.BytesIO()
    # No "Software" metadata: the bytes then depend only on the drawing.
    fig.savefig(buffer, format="png", dpi=120, facecolor="white", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()
