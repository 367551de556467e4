"""Figures get their size from the PNG the build drew, and all but a page's first load lazily."""

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from sitebuild.in_mkdocs.images import png_size, with_sizes


def test_the_size_is_read_from_the_png():
    fig = plt.figure(figsize=(3, 2))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    assert png_size(buffer.getvalue()) == (300, 200)
    with pytest.raises(ValueError, match="not a PNG"):
        png_size(b"GIF89a" + bytes(30))


def test_figures_get_width_height_and_lazy_loading_after_the_first():
    html = (
        '<p><img alt="a" src="../figures/first.png" /></p>'
        '<p><img alt="b" src="../../figures/zh/second.svg" /></p>'
        '<p><img alt="c" src="../assets/logo.png" /></p>'
        '<p><img alt="d" src="../figures/unknown.png" /></p>'
    )
    out = with_sizes(html, {"first": (1200, 400), "second": (600, 300)})
    assert '<img alt="a" width="1200" height="400" decoding="async" src="../figures/first.png"' in out
    assert (
        '<img alt="b" width="600" height="300" loading="lazy" decoding="async" src="../../figures/zh/second.svg"' in out
    )
    assert '<img alt="c" src="../assets/logo.png"' in out  # not a figure: left as it is
    assert '<img alt="d" src="../figures/unknown.png"' in out  # no size known: left as it is
    assert with_sizes(out, {"first": (1, 1)}) == out  # a sized image is not sized twice
