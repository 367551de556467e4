"""How wide each figure must be shown for its smallest text to reach 11 px: `python scripts/figure_legibility.py`.

Reads the built site's SVG figures (`site/figures/zh/*.svg`: the same drawings as the PNGs, their words kept as
text), finds each figure's width and its smallest font size, both in points, and prints, widest need first, the
display width in CSS pixels at which that text is 11 px tall. A figure whose need is above the text column's
width (about 690 px on a desktop, 343 px on a 375-px phone) has text smaller than 11 px there.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALLEST_PX = 11
WIDTH = re.compile(r'<svg[^>]*\swidth="([\d.]+)pt"')
FONT_SIZE = re.compile(r'font-size(?::\s*|=")([\d.]+)')


def legible_width(svg: str) -> float | None:
    """The display width (CSS px) at which the smallest text of `svg` is 11 px; None for a figure without text."""
    width = WIDTH.search(svg)
    sizes = [float(size) for size in FONT_SIZE.findall(svg)]
    if width is None or not sizes:
        return None
    return SMALLEST_PX * float(width[1]) / min(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--column", type=float, default=690, help="the text column's width in CSS px")
    args = parser.parse_args()
    needs = {
        svg.stem: legible_width(svg.read_text(encoding="utf-8")) for svg in (args.site / "figures" / "zh").glob("*.svg")
    }
    measured = sorted(((need, name) for name, need in needs.items() if need is not None), reverse=True)
    for need, name in measured:
        mark = "  too small in the column" if need > args.column else ""
        print(f"{name:40} {need:6.0f} px{mark}")
    over = sum(need > args.column for need, _ in measured)
    print(f"{over} of {len(measured)} figures need more than {args.column:.0f} px for {SMALLEST_PX}-px text")


if __name__ == "__main__":
    main()
