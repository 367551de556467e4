"""What the architecture pictures share: one palette, and boxes and arrows
drawn the same way."""

from matplotlib.patches import FancyBboxPatch

BLUE, BLUE_FILL = "#3f51b5", "#e8eaf6"
GREEN, GREEN_FILL = "#2e7d32", "#e8f5e9"
ORANGE, ORANGE_FILL = "#e65100", "#fff3e0"
GREY, GREY_FILL = "#757575", "#f5f5f5"
ARROW = "#555555"


def box(
    ax,
    x: float,
    y: float,
    width: float,
    height: float,
    text: str,
    edge: str,
    fill: str,
    size: float = 9.5,
) -> None:
    """A rounded box centred on (x, y) with `text` in it, `size` points."""
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=fill,
            edgecolor=edge,
            linewidth=1.2,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=size)


def arrow(
    ax,
    start: tuple[float, float],
    end: tuple[float, float],
    color: str = ARROW,
    label: str = "",
    **style,
) -> None:
    """An arrow from `start` to `end`, `label` to the right of its middle."""
    props = {"arrowstyle": "-|>", "color": color, "lw": 1.2, **style}
    ax.annotate("", xy=end, xytext=start, arrowprops=props)
    if label:
        middle = ((start[0] + end[0]) / 2 + 0.12, (start[1] + end[1]) / 2)
        ax.text(*middle, label, fontsize=9.5, color=GREEN, va="center")
