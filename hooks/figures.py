"""MkDocs hook: render every figure of `tutorial_code.figures` into the site at build time.

Figures are generated in memory and added as files, never written into docs/, so
`mkdocs serve` does not see its own output and rebuild forever. Before each build
the `tutorial_code` modules are dropped from `sys.modules`, so a code edit shows up
in the figures (and in markdown-exec outputs) without restarting `mkdocs serve`.
A drawn figure is kept in the result cache (`tutorial_code.result_cache`) until
the code behind it or the benchmark results change.
"""

from __future__ import annotations

import functools
import importlib
import sys
import time

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, Files

log = get_plugin_logger(__name__)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    for name in [m for m in sys.modules if m == "tutorial_code" or m.startswith("tutorial_code.")]:
        del sys.modules[name]
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    figures = importlib.import_module("tutorial_code.figures")
    result_cache = importlib.import_module("tutorial_code.result_cache")
    # A figure is drawn again when tutorial_code.figures or a module it imports changes, or the benchmark results.
    code = result_cache.code_fingerprint(["tutorial_code.figures"]) + result_cache.data_fingerprint()
    start = time.perf_counter()
    for name in figures.FIGURES:
        try:
            png = result_cache.cached(f"figure {name} code {code}", functools.partial(figures.render_png, name))
        except Exception as error:
            function = f"tutorial_code.figures.{figures.FIGURES[name].__name__}"
            raise PluginError(f"figure {name!r} ({function}) failed: {type(error).__name__}: {error}") from error
        files.append(File.generated(config, f"figures/{name}.png", content=png))
    log.info(f"rendered {len(figures.FIGURES)} figures in {time.perf_counter() - start:.1f} s")
    return files
