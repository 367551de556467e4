"""The build-time figure hook: every figure becomes a generated file, and a failing figure names itself."""

import tempfile
import types
from pathlib import Path

import pytest
from conftest import load_file
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parent.parent


def load_hook():
    return load_file("hooks/figures.py")


def config() -> MkDocsConfig:
    cfg = MkDocsConfig()
    cfg.load_dict({"site_name": "test", "docs_dir": str(ROOT / "docs"), "site_dir": "/tmp/unused-site"})
    cfg.validate()
    cfg.plugins._current_plugin = None  # normally set by MkDocs while a plugin's event runs
    return cfg


def fake_figures(monkeypatch, figures: dict) -> None:
    import importlib

    module = types.ModuleType("tutorial_code.figures")
    module.FIGURES = figures
    module.render_png = lambda name: figures[name]()
    real_import = importlib.import_module
    monkeypatch.setattr(
        "importlib.import_module", lambda name: module if name == "tutorial_code.figures" else real_import(name)
    )
    monkeypatch.setenv("TUTORIAL_CACHE_DIR", tempfile.mkdtemp())  # an empty cache: every test draws its figures


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


def test_exec_cache_reuses_outputs_and_replays_a_session_when_a_later_block_changes(monkeypatch, tmp_path):
    """hooks/exec_cache.py wraps markdown-exec's private _run_python (pinned 1.12.6): this fails if it moves."""
    import markdown_exec._internal.formatters.python as python_formatter
    from mkdocs.config import load_config

    monkeypatch.setenv("TUTORIAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(python_formatter, "_run_python", python_formatter._run_python)  # restored afterwards
    hook = load_file("hooks/exec_cache.py")
    config = load_config(str(ROOT / "mkdocs.yml"))
    runs = tmp_path / "runs.txt"
    first = f"import pathlib\npathlib.Path({str(runs)!r}).open('a').write('x')\nx = 2\nprint(x)"

    def build(second: str) -> list[str]:
        hook.on_config(config)  # what every build, and every mkdocs serve rebuild, starts with
        run = python_formatter._run_python
        return [run(first, session="s"), run(second, session="s")]

    assert build("print(x * 10)") == ["2\n", "20\n"]
    assert runs.read_text() == "x"
    assert build("print(x * 10)") == ["2\n", "20\n"]  # a prose edit: both outputs reused
    assert runs.read_text() == "x"
    assert build("print(x * 100)") == ["2\n", "200\n"]  # the second block changed: the first runs again first
    assert runs.read_text() == "xx"


def test_serve_hook_shortens_the_polling_interval_of_every_watcher(tmp_path):
    """hooks/serve.py sets watchdog's private interval: this fails if MkDocs or watchdog change how they poll."""
    from mkdocs.livereload import LiveReloadServer

    hook = load_file("hooks/serve.py")
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    server.watch(str(tmp_path))  # mkdocs serve watches docs/ and mkdocs.yml before the on_serve event
    assert hook.on_serve(server, config=None, builder=None) is server
    assert server.observer.timeout == hook.POLLING_INTERVAL
    assert [emitter.timeout for emitter in server.observer.emitters] == [hook.POLLING_INTERVAL]
    (tmp_path / "later").mkdir()
    server.watch(str(tmp_path / "later"))  # config.watch folders are added after on_serve
    assert {emitter.timeout for emitter in server.observer.emitters} == {hook.POLLING_INTERVAL}
    server.server_close()


def test_serve_hook_remembers_formatted_signatures():
    from mkdocstrings_handlers.python._internal import rendering

    hook = load_file("hooks/serve.py")
    original = rendering._get_formatter
    try:
        hook.on_config(None)
        hook.on_config(None)  # a second build wraps nothing twice
        formatter = rendering._get_formatter()
        long = "def " + "x" * 20 + "(first: int = 1, second: str = 'two', third: float = 3.0): pass"
        assert formatter(long, 40) == formatter(long, 40)
        assert formatter.cache_info().hits >= 1
    finally:
        rendering._get_formatter = original
