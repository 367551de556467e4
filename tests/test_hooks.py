"""The build-time figure hook: every figure becomes a generated file, and a failing figure names itself."""

import importlib.util
import types
from pathlib import Path

import pytest
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parent.parent


def load_hook():
    spec = importlib.util.spec_from_file_location("figures_hook", ROOT / "hooks" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def config() -> MkDocsConfig:
    cfg = MkDocsConfig()
    cfg.load_dict({"site_name": "test", "docs_dir": str(ROOT / "docs"), "site_dir": "/tmp/unused-site"})
    cfg.validate()
    cfg.plugins._current_plugin = None  # normally set by MkDocs while a plugin's event runs
    return cfg


def fake_figures(monkeypatch, figures: dict) -> None:
    module = types.ModuleType("tutorial_code.figures")
    module.FIGURES = figures
    module.render_png = lambda name: figures[name]()
    monkeypatch.setattr("importlib.import_module", lambda name: module)


def test_each_figure_becomes_a_generated_png(monkeypatch):
    fake_figures(monkeypatch, {"one": lambda: b"\x89PNG one", "two": lambda: b"\x89PNG two"})
    files = load_hook().on_files(Files([]), config())
    assert sorted(f.src_uri for f in files) == ["figures/one.png", "figures/two.png"]
    assert files.get_file_from_path("figures/two.png").content_bytes == b"\x89PNG two"


def test_a_failing_figure_stops_the_build_and_names_itself(monkeypatch):
    def broken():
        raise ValueError("no data")

    fake_figures(monkeypatch, {"broken_figure": broken})
    with pytest.raises(
        PluginError, match=r"figure 'broken_figure' \(tutorial_code.figures.broken\) failed: ValueError"
    ):
        load_hook().on_files(Files([]), config())


def test_code_edits_reach_the_next_build():
    """Before each build (mkdocs serve included) the package is dropped, so the next import reads the edited code."""
    import sys

    import tutorial_code.masks  # noqa: F401

    loaded = {name: module for name, module in sys.modules.items() if name.startswith("tutorial_code")}
    try:
        load_hook().on_config(config())
        assert not any(name.startswith("tutorial_code") for name in sys.modules)
    finally:
        sys.modules.update(loaded)  # the other tests keep the modules they imported
