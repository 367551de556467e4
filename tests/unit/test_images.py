"""Figures get their size from the SVG the build drew, a min-width that keeps their words at 11 px or more, and
all but a page's first load lazily."""

import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from sitebuild.in_mkdocs.images import FigureSize, legible_width, png_size, svg_size, with_sizes


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
    out = with_sizes(html, {"first": FigureSize(1200, 400, 700), "second": FigureSize(600, 300)})
    assert (
        '<img alt="a" width="1200" height="400" style="min-width: 700px" decoding="async" src="../figures/first.png"'
        in out
    )
    assert (
        '<img alt="b" width="600" height="300" loading="lazy" decoding="async" src="../../figures/zh/second.svg"' in out
    )
    assert '<img alt="c" src="../assets/logo.png"' in out  # not a figure: left as it is
    assert '<img alt="d" src="../figures/unknown.png"' in out  # no size known: left as it is
    assert with_sizes(out, {"first": FigureSize(1, 1)}) == out  # a sized image is not sized twice


def test_an_svg_gives_its_size_in_css_px_and_the_width_at_which_its_smallest_text_is_11_px():
    fig = plt.figure(figsize=(6, 2))
    fig.text(0.1, 0.5, "small", fontsize=8)
    fig.text(0.5, 0.5, "large", fontsize=12)
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig.savefig(buffer, format="svg")
    plt.close(fig)
    size = svg_size(buffer.getvalue())
    assert (size.width, size.height) == (576, 192)  # 6 x 2 inches at 96 px per inch
    assert size.legible == 11 * 432 / 8  # 432 pt wide, its smallest text 8 pt: shown at 594 px, that text is 11 px
    assert legible_width('<svg width="10pt" height="5pt"></svg>') is None  # no text: no need
    with pytest.raises(ValueError, match="no width and height"):
        svg_size("<svg></svg>")
