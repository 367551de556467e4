"""Lighthouse's mobile scores of six pages of the built site, served as GitHub Pages serves it.

    npm install -g lighthouse@12        # once; it drives the Chromium the project installs
    python scripts/lighthouse.py        # after `mkdocs build`; prints a table of the four scores per page
    python scripts/lighthouse.py --pages masks/ zh/masks/

The site is served on 127.0.0.1 with what GitHub Pages adds: gzip for text, and `Cache-Control: max-age=600`.
Lighthouse runs its default mobile profile (a simulated slow 4G network and a 4x slower processor), one page
at a time, on Debian's Chromium (`CHROME_PATH`, found on PATH otherwise). Nothing is loaded from another host.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [
    "",
    "scaled_dot_product_attention/",
    "training/",
    "language_model/",
    "todays_models/",
    "zh/multi_head_attention/",
]
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
COMPRESSED = (".html", ".css", ".js", ".json", ".svg", ".xml", ".txt")


class PagesHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with gzip and a ten-minute cache, as GitHub Pages sends them."""

    def log_message(self, *args) -> None:
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file() or path.suffix not in COMPRESSED or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")  # on every response, as GitHub Pages sends
        super().end_headers()


def chromium() -> str:
    for name in (os.environ.get("CHROME_PATH"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    sys.exit("no Chromium found: install Debian's chromium, or set CHROME_PATH")


def scores(url: str, browser: str) -> dict[str, int]:
    """The four category scores (0-100) of one Lighthouse mobile run."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        subprocess.run(
            [
                shutil.which("lighthouse") or sys.exit("lighthouse is not installed: npm install -g lighthouse@12"),
                url,
                "--quiet",
                "--output=json",
                f"--output-path={report}",
                f"--only-categories={','.join(CATEGORIES)}",
                "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
            ],
            check=True,
            env={**os.environ, "CHROME_PATH": browser},
        )
        found = json.loads(report.read_text(encoding="utf-8"))
    return {name: round(100 * found["categories"][name]["score"]) for name in CATEGORIES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--pages", nargs="*", default=PAGES)
    args = parser.parse_args()
    handler = functools.partial(PagesHandler, directory=str(args.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    browser = chromium()
    print(f"| page | {' | '.join(CATEGORIES)} |\n|---|{'---|' * len(CATEGORIES)}")
    for page in args.pages:
        found = scores(base + page, browser)
        print(f"| {page or 'home'} | {' | '.join(str(found[name]) for name in CATEGORIES)} |", flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
