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

from tutorial_code.sum_task import trained_sum_model  # noqa: E402

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
        _, weights = model(torch.tensor([TEST_SEQUENCE]))
    first_layer = weights[0][0]  # (h, T, T)
    labels = [str(int(v)) for v in TEST_SEQUENCE]
    num_heads = first_layer.size(0)
    fig, axes = plt.subplots(1, num_heads, figsize=(2.6 * num_heads, 2.9))
    for head, ax in enumerate(axes):
        image = ax.imshow(first_layer[head].numpy(), cmap="viridis", vmin=0, vmax=float(first_layer.max()))
        ax.set_title(f"head {head}", fontsize=10)
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        ax.set_yticks(range(len(labels)), labels, fontsize=8)
        ax.set_xlabel("key (digit)", fontsize=8)
    axes[0].set_ylabel("query (digit)", fontsize=8)
    fig.colorbar(image, ax=axes, shrink=0.8, label="weight")
    return fig


FIGURES: dict[str, Callable[[], Figure]] = {
    "softmax_scaling": softmax_scaling,
    "sum_model_heads": sum_model_heads,
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
