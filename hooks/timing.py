"""MkDocs hook: log how long each page takes to render, code execution included.

markdown-exec runs a page's code while its Markdown is converted, between the
`on_page_markdown` and `on_page_content` events, so the time between the two is what
the page's code costs the build. The slowest pages are logged at the end.
"""

from __future__ import annotations

import time

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

log = get_plugin_logger(__name__)
_started: dict[str, float] = {}
_seconds: dict[str, float] = {}


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _started[page.file.src_uri] = time.perf_counter()
    return markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    _seconds[page.file.src_uri] = time.perf_counter() - _started.pop(page.file.src_uri)
    return html


def on_post_build(config: MkDocsConfig) -> None:
    slowest = sorted(_seconds.items(), key=lambda item: -item[1])
    summary = ", ".join(f"{uri} {seconds:.1f} s" for uri, seconds in slowest if seconds >= 0.5)
    log.info(f"pages: {sum(_seconds.values()):.1f} s in all; slowest: {summary or 'none above 0.5 s'}")
    _seconds.clear()
