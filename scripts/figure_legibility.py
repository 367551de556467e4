"""How wide each figure must be shown for its smallest text to reach 11 px: `python scripts/figure_legibility.py`.

Reads the built site's figures (`site/figures/*.svg`, their words kept as text), and prints, widest need first,
the display width in CSS pixels at which each figure's smallest text is 11 px tall
(`sitebuild.in_mkdocs.images.legible_width`). The build gives every figure that width as its `min-width`: a
figure whose need is above the text column's width (about 690 px on a desktop, 343 px on a 375-px phone)
scrolls sideways there. tests/site/test_browser.py measures the same in Chromium.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitebuild.in_mkdocs.images import SMALLEST_PX, legible_width  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", nargs="?", type=Path, default=ROOT / "site")
    parser.add_argument("--column", type=float, default=690, help="the text column's width in CSS px")
    args = parser.parse_args()
    needs = {svg.stem: legible_width(svg.read_text(encoding="utf-8")) for svg in (args.site / "figures").glob("*.svg")}
    measured = sorted(((need, name) for name, need in needs.items() if need is not None), reverse=True)
    for need, name in measured:
        mark = "  too small in the column" if need > args.column else ""
        print(f"{name:40} {need:6.0f} px{mark}")
    over = sum(need > args.column for need, _ in measured)
    print(f"{over} of {len(measured)} figures need more than {args.column:.0f} px for {SMALLEST_PX}-px text")


if __name__ == "__main__":
    main()
