"""The figures' `<img>` tags as a browser wants them: with their size, so that the page does not jump while they
load; loaded lazily below the first screen; and never shown so small that their words drop under 11 px.

The build draws every figure as SVG, its words kept as text (`figures/<section>.svg`, and the Chinese edition's
`figures/zh/<section>.svg`), and as PNG for the notebooks. A figure's size is read from its SVG. Its smallest text
sets how wide it must be shown (`legible_width`): the `<img>` gets that as its `min-width`, so that on a narrow
screen the figure keeps it and scrolls sideways in its `<figure>` (docs/stylesheets/site.css) instead of
shrinking its words. The first figure of a page (its opening picture) loads at once; the others when the reader
scrolls near them (`loading="lazy"`).
"""

from __future__ import annotations

import functools
import math
import re
import struct
from dataclasses import dataclass

FIGURE_IMG = re.compile(
    r'<img (?P<attributes>[^>]*?)src="(?P<src>[^"]*figures/(?:[\w-]+/)*(?P<name>[\w-]+)\.(?:png|svg))"'
)
SMALLEST_PX = 11  # the smallest text a figure may show, in CSS px
SVG_SIZE = re.compile(r'<svg[^>]*\swidth="(?P<width>[\d.]+)pt"[^>]*\sheight="(?P<height>[\d.]+)pt"')
FONT_SIZE = re.compile(r'font-size(?::\s*|=")([\d.]+)')
PX_PER_PT = 4 / 3  # CSS: 96 px per inch, 72 pt per inch


@dataclass(frozen=True)
class FigureSize:
    """How a figure shows: its own size in CSS px, and the least width at which its smallest text is 11 px."""

    width: int
    height: int
    legible: int | None = None  # None: a figure without text


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height in pixels, from a PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG: its first bytes are not a PNG signature and IHDR chunk")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def legible_width(svg: str) -> float | None:
    """The display width (CSS px) at which the smallest text of `svg` is 11 px tall; None for a figure without
    text. Matplotlib writes the width in points and each text's font size in points (or px, the same unit in
    the SVG's own coordinates).

    Examples:
        >>> legible_width('<svg width="300pt" height="100pt"><text style="font-size: 10px">a</text></svg>')
        330.0
    """
    width = SVG_SIZE.search(svg)
    sizes = [float(size) for size in FONT_SIZE.findall(svg)]
    if width is None or not sizes:
        return None
    return SMALLEST_PX * float(width["width"]) / min(sizes)


@functools.lru_cache(maxsize=512)  # every page asks for every figure's size
def svg_size(svg: str) -> FigureSize:
    """A Matplotlib SVG's size in CSS px and its legible width.

    Raises:
        ValueError: If the SVG's opening tag gives no width and height in points.
    """
    found = SVG_SIZE.search(svg)
    if found is None:
        raise ValueError("not a Matplotlib SVG: its <svg> tag has no width and height in pt")
    legible = legible_width(svg)
    return FigureSize(
        round(float(found["width"]) * PX_PER_PT),
        round(float(found["height"]) * PX_PER_PT),
        None if legible is None else math.ceil(legible),
    )


def with_sizes(html: str, sizes: dict[str, FigureSize]) -> str:
    """Every figure `<img>` of `html` with `width` and `height` (figures of `sizes`, by name), a `min-width` at
    which its words are legible where it has words, and all but the first with `loading="lazy"`;
    `decoding="async"` on all."""
    seen = 0

    def sized(match: re.Match[str]) -> str:
        nonlocal seen
        attributes = match["attributes"]
        size = sizes.get(match["name"])
        if size is None or "width=" in attributes:
            return match[0]
        seen += 1
        lazy = ' loading="lazy"' if seen > 1 else ""
        legible = f' style="min-width: {size.legible}px"' if size.legible else ""
        extra = f'width="{size.width}" height="{size.height}"{legible}{lazy} decoding="async" '
        return f'<img {attributes}{extra}src="{match["src"]}"'

    return FIGURE_IMG.sub(sized, html)
