"""Every chapter has an executed notebook page, and its downloads are real: an .ipynb with outputs that runs
top to bottom in a fresh kernel, and the jupytext .py it was made from."""

import json
import re

import nbformat
import pytest
from conftest import ROOT, cached_env, load_file
from nbclient import NotebookClient

from tutorial_code.cli import chapters

NAMES = [chapter.name for chapter in chapters().values()]
PAGE_OF = {"overview": "index.html"}


def load_hook():
    return load_file("hooks/notebooks.py")


def stdout_of(notebook) -> list[str]:
    """What each code cell printed (a kernel may split one cell's printing into several stream outputs)."""
    return [
        "".join(
            "".join(output["text"])
            for output in cell.get("outputs", [])
            if output.get("output_type") == "stream" and output.get("name") == "stdout"
        )
        for cell in notebook.cells
        if cell.cell_type == "code"
    ]


@pytest.mark.parametrize("name", NAMES)
def test_every_chapter_has_a_rendered_notebook_page(site, name):
    html = (site / "notebooks" / name / "index.html").read_text(encoding="utf-8")
    assert html.count("jp-CodeCell") >= 2, "the cells are rendered as notebook cells"
    assert "jp-OutputArea-output" in html, "with their outputs"
    assert "--8&lt;--" not in html and "--8<--" not in html, "section markers are dropped"
    assert "# %%" not in html, "not a raw copy of the jupytext source"
    assert "Traceback" not in html
    assert f'href="{name}.ipynb"' in html and f'href="{name}.py"' in html, "both downloads are offered"
    assert re.search(r'<link rel="stylesheet" href="\.\./\.\./assets/notebook-[0-9a-f]{12}\.css">', html)
    assert len(html) < 200_000, "nbconvert's CSS lives in one shared file, not in every page"
    assert "cdnjs" not in html


@pytest.mark.parametrize("name", NAMES)
def test_every_chapter_page_links_to_its_notebook_and_downloads(site, name):
    page = site / PAGE_OF.get(name, f"{name}/index.html")
    html = page.read_text(encoding="utf-8")
    prefix = "" if name == "overview" else "../"
    assert f'href="{prefix}notebooks/{name}/"' in html
    assert f'href="{prefix}notebooks/{name}/{name}.ipynb"' in html
    assert f"transformer-tutorial {name.replace('_', '-')}" in html


@pytest.mark.parametrize("name", NAMES)
def test_the_downloads_are_the_executed_notebook_and_its_source(site, name):
    notebook = nbformat.read(site / "notebooks" / name / f"{name}.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert any(stdout_of(notebook)), "the download carries the outputs of the build"
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    script = (ROOT / "tutorial_code" / "chapters" / f"{name}.py").read_bytes()
    assert (site / "notebooks" / name / f"{name}.py").read_bytes() == script


@pytest.mark.parametrize("name", NAMES)
def test_the_downloaded_notebook_runs_top_to_bottom_in_a_fresh_kernel(site, name, monkeypatch):
    for key, value in cached_env().items():
        monkeypatch.setenv(key, value)  # the kernel reuses the build's trained models; every cell still runs
    built = nbformat.read(site / "notebooks" / name / f"{name}.ipynb", as_version=4)
    fresh = nbformat.read(site / "notebooks" / name / f"{name}.ipynb", as_version=4)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    NotebookClient(fresh, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    if name != "why_attention":  # it prints wall-clock timings
        assert stdout_of(fresh) == stdout_of(built)
    else:
        assert len(stdout_of(fresh)) == len(stdout_of(built))


def test_a_notebook_is_executed_again_when_the_code_it_imports_changes(monkeypatch):
    """The cache key follows tutorial_code: mkdocs-jupyter's own cache only looks at the notebook file."""
    from mkdocs.config import load_config

    hook = load_hook()
    config = load_config(str(ROOT / "mkdocs.yml"))
    notebook = hook.build_notebook(ROOT / "tutorial_code" / "chapters" / "masks.py", config)
    before = hook.notebook_key(notebook)
    assert hook.notebook_key(notebook) == before

    import tutorial_code.result_cache as result_cache

    original = result_cache.code_fingerprint
    monkeypatch.setattr(result_cache, "code_fingerprint", lambda **kw: original(**kw) + "edited")
    assert hook.notebook_key(notebook) != before

    monkeypatch.undo()
    notebook.cells[0].source += "\nA sentence more."  # Markdown only: nothing to execute again
    assert hook.notebook_key(notebook) == before
    notebook.cells[-1].source += "\nprint(1)"
    assert hook.notebook_key(notebook) != before


def test_notebook_pages_keep_out_of_search_and_edit_their_chapter_script(site):
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert not [doc["location"] for doc in index["docs"] if doc["location"].startswith("notebooks/")]
    html = (site / "notebooks" / "masks" / "index.html").read_text(encoding="utf-8")
    assert "/edit/main/tutorial_code/chapters/masks.py" in html


def test_a_second_build_reuses_every_notebook_block_and_figure(site):
    """What `mkdocs serve` does after a prose edit: nothing runs again."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site.parent / "second-build")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=cached_env() | {"DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "notebooks executed in" in result.stderr and "none, all reused" in result.stderr
    assert re.search(r"python blocks: \d+ outputs reused, 0 run", result.stderr)


def test_a_failing_cell_fails_the_build_and_names_the_notebook(tmp_path):
    from mkdocs.exceptions import PluginError

    hook = load_hook()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    source = tmp_path / "broken.unexecuted"
    nbformat.write(notebook, source)
    with pytest.raises(PluginError, match=r"(?s)notebook 'broken' .*failed to execute.*ZeroDivisionError"):
        hook.execute("broken", source, tmp_path / "broken.ipynb", ROOT)
    assert not (tmp_path / "broken.ipynb").exists()
