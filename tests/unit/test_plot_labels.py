"""A heat map's tick labels never overlap, however many characters it labels (chapter 11's sentence map was a
smear of 28 labels in a panel made for 8)."""

import matplotlib
import pytest
import torch

from tutorial_code.diagrams.plots import heatmaps

matplotlib.use("Agg")


def overlapping(boxes) -> list[tuple[int, int]]:
    spans = sorted((box.y0, box.y1, index) for index, box in enumerate(boxes))
    return [(a[2], b[2]) for a, b in zip(spans, spans[1:], strict=False) if b[0] < a[1] - 0.5]


@pytest.mark.parametrize("count", [8, 28, 40])
def test_every_row_label_has_room_of_its_own(count):
    labels = [chr(ord("a") + i % 26) for i in range(count)]
    fig = heatmaps([torch.rand(count, count) for _ in range(2)], ["h0", "h1"], labels, "key", "query")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes[:2]:
        boxes = [label.get_window_extent(renderer) for label in ax.get_yticklabels()]
        assert len(boxes) == count and overlapping(boxes) == [], f"{count} labels overlap"
    matplotlib.pyplot.close(fig)
