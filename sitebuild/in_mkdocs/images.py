"""The figures' `<img>` tags as a browser wants them: with their size, so that the page does not jump while they
load, and loaded lazily below the first screen.

The build draws every figure (`figures/<section>.png`, and the Chinese edition's SVG of the same drawing); its
size is read from the PNG's header. The first figure of a page (its opening picture) loads at once; the others
when the reader scrolls near them (`loading="lazy"`).
"""

from __future__ import annotations

import re
import struct

FIGURE_IMG = re.compile(
    r'<img (?P<attributes>[^>]*?)src="(?P<src>[^"]*figures/(?:[\w-]+/)*(?P<name>[\w-]+)\.(?:png|svg))"'
)


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height in pixels, from a PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG: its first bytes are not a PNG signature and IHDR chunk")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def with_sizes(html: str, sizes: dict[str, tuple[int, int]]) -> str:
    """Every figure `<img>` of `html` with `width` and `height` (figures of `sizes`, by name), and all but the
    first with `loading="lazy"`; `decoding="async"` on all."""
    seen = 0

    def sized(match: re.Match[str]) -> str:
        nonlocal seen
        attributes = match["attributes"]
        size = sizes.get(match["name"])
        if size is None or "width=" in attributes:
            return match[0]
        seen += 1
        lazy = ' loading="lazy"' if seen > 1 else ""
        extra = f'width="{size[0]}" height="{size[1]}"{lazy} decoding="async" '
        return f'<img {attributes}{extra}src="{match["src"]}"'

    return FIGURE_IMG.sub(sized, html)
