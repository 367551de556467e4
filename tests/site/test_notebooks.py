"""Every chapter has an executed notebook page, reached from its chapter page and from one Notebooks index, and its
downloads are real: an .ipynb with outputs that runs top to bottom in a fresh Jupyter kernel, and the jupytext .py
it was made from."""

import json
import re
import sys

import nbformat
import pytest
from conftest import ROOT, prepared_env, stdout_of
from nbclient import NotebookClient

from sitebuild.in_mkdocs import build
from sitebuild.in_mkdocs.chapters import chapter_scripts
from tutorial_tools.contents import by_slug

NAMES = list(chapter_scripts(ROOT))
RERUN_IN_A_KERNEL = ["best_practices"]  # it trains and draws (masks, which draws only: tests/site/test_installed.py)


@pytest.mark.parametrize("name", NAMES)
def test_every_chapter_has_a_rendered_notebook_page(site, name):
    html = (site / "notebooks" / name / "index.html").read_text(encoding="utf-8")
    assert html.count("jp-CodeCell") >= 2, "the cells are rendered as notebook cells"
    assert "jp-OutputArea-output" in html, "with their outputs"
    assert "--8&lt;--" not in html and "--8<--" not in html, "section markers are dropped"
    assert "# %%" not in html, "not a raw copy of the jupytext source"
    assert "Traceback" not in html and "/tmp/" not in html and "ipykernel_" not in html
    assert f'href="{name}.ipynb"' in html and f'href="{name}.py"' in html, "both downloads are offered"
    assert len(html) < 400_000, "nbconvert's CSS lives in one shared file, not in every page"
    assert "data:image/png" not in html, "its figures link to the files its chapter page shows"
    assert "cdnjs" not in html


@pytest.mark.parametrize("name", NAMES)
def test_every_chapter_page_links_to_its_notebook_and_downloads(site, name):
    page = by_slug()[name].page_path.replace(".md", ".html")
    html = (site / page).read_text(encoding="utf-8")
    if name == "overview":  # the home page has no run box: the notebooks page lists its notebook
        assert 'href="notebooks/overview/"' not in html
        return
    prefix = "../"
    assert f'href="{prefix}notebooks/{name}/"' in html
    assert f'href="{prefix}notebooks/{name}/{name}.ipynb"' in html
    assert f"transformer-tutorial {name.replace('_', '-')}" in html


def test_one_navigation_and_one_notebooks_index(site):
    index = (site / "notebooks" / "index.html").read_text(encoding="utf-8")
    for name in NAMES:
        assert f'href="{name}/"' in index and f'href="{name}/{name}.ipynb"' in index
    masks = (site / "masks" / "index.html").read_text(encoding="utf-8")
    nav_links = re.findall(r'<a href="([^"]*)" class="md-nav__link', masks)
    assert "../notebooks/" in nav_links, "the navigation links the Notebooks index"
    assert not [link for link in nav_links if re.search(r"notebooks/\w+/", link)], "not every notebook"


@pytest.mark.parametrize("name", NAMES)
def test_the_downloads_are_the_executed_notebook_and_its_source(site, name):
    notebook = nbformat.read(site / "notebooks" / name / f"{name}.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert any(stdout_of(notebook)), "the download carries the outputs of the build"
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    script = (ROOT / "docs" / name / "script.py").read_text(encoding="utf-8")
    download = (site / "notebooks" / name / f"{name}.py").read_text(encoding="utf-8")
    assert "--8<--" not in download, "the pages' section markers stay out of the download"
    assert download.startswith(script.split("\n# %%", 1)[0])  # the title cell, then the install cell
    assert 'find_spec("tutorial_code")' in download.split("import tutorial_code")[0].split("from tutorial_code")[0]
    install = set(notebook.cells[2].source.splitlines())  # the notebook's install cell, the same in the script
    added = set(download.splitlines()) - set(script.splitlines()) - install
    assert all("plt" in line or "tutorial_code" in line or line.startswith(("#", "import", "    ")) for line in added)


def test_the_downloaded_script_runs_with_python_and_saves_its_figures(site, tmp_path):
    import subprocess
    import sys

    script = tmp_path / "masks.py"
    script.write_bytes((site / "notebooks" / "masks" / "masks.py").read_bytes())
    env = {**prepared_env(), "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, script.name], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "mask_maps_figure.png").read_bytes().startswith(b"\x89PNG")
    built = nbformat.read(site / "notebooks" / "masks" / "masks.ipynb", as_version=4)
    assert result.stdout == "".join(stdout_of(built))  # the notebook's printing, in order


def test_every_notebook_is_in_one_zip_and_opens_in_colab(site):
    import zipfile

    archive = zipfile.ZipFile(site / "notebooks" / "notebooks.zip")
    assert sorted(archive.namelist()) == sorted(f"notebooks/{name}.ipynb" for name in NAMES)
    for name in NAMES:
        assert archive.read(f"notebooks/{name}.ipynb") == (site / "notebooks" / name / f"{name}.ipynb").read_bytes()
    listing = (site / "notebooks" / "index.html").read_text(encoding="utf-8")
    assert 'href="notebooks.zip"' in listing or 'href="notebooks/notebooks.zip"' in listing
    page = (site / "notebooks" / "masks" / "index.html").read_text(encoding="utf-8")
    colab = "https://colab.research.google.com/github/attention-by-hand/attention-by-hand/blob/notebooks/masks.ipynb"
    assert f'href="{colab}"' in page and f'href="{colab}"' in listing


def test_figures_are_outputs_of_the_cells_that_draw_them(site):
    notebook = json.loads((site / "notebooks" / "training" / "training.ipynb").read_text(encoding="utf-8"))
    images = [o for c in notebook["cells"] for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    # the encoder's diagram, the loss curve, the sum model's heads (three figures), post-norm against pre-norm, and
    # the heads of the argmax model
    drawn = (
        "encoder_diagram",
        "training_loss",
        "sum_model_heads",
        "dynamic_weights",
        "every_head_map",
        "loss_curve",
        "argmax_heads",
    )
    assert len(images) == len(drawn)
    import base64

    published = {(site / "figures" / f"{n}.png").read_bytes() for n in drawn}
    assert {base64.b64decode(image["data"]["image/png"]) for image in images} == published


@pytest.mark.parametrize("name", RERUN_IN_A_KERNEL)
def test_the_downloaded_notebook_runs_top_to_bottom_in_a_fresh_kernel(site, name, monkeypatch):
    for key, value in prepared_env().items():
        monkeypatch.setenv(key, value)
    built = nbformat.read(site / "notebooks" / name / f"{name}.ipynb", as_version=4)
    fresh = nbformat.read(site / "notebooks" / name / f"{name}.ipynb", as_version=4)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    # The build's preparation first (it reuses the build's trainings); every cell of the download still runs.
    prepare = f"import sitebuild.in_chapter.kernel\nsitebuild.in_chapter.kernel.prepare({str(ROOT)!r})"
    fresh.cells.insert(0, nbformat.v4.new_code_cell(prepare))
    NotebookClient(fresh, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    fresh.cells.pop(0)
    assert stdout_of(fresh) == stdout_of(built)


def test_notebook_pages_have_one_short_search_entry_and_edit_their_chapter_script(site):
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    entries = [doc for doc in index["docs"] if re.match(r"notebooks/\w+/", doc["location"])]
    assert len(entries) == len(NAMES), "one short entry per notebook, not its code and outputs again"
    assert {"location": "notebooks/masks/", "title": "3. Masks: the notebook"}.items() <= next(
        doc for doc in entries if doc["location"] == "notebooks/masks/"
    ).items()
    assert all(len(doc["text"]) < 300 for doc in entries)
    html = (site / "notebooks" / "masks" / "index.html").read_text(encoding="utf-8")
    assert "/edit/main/docs/masks/script.py" in html


def test_a_downloaded_notebook_installs_the_package_only_where_it_is_missing(site, monkeypatch):
    import importlib.util
    import subprocess

    notebook = nbformat.read(site / "notebooks" / "masks" / "masks.ipynb", as_version=4)
    cell = notebook.cells[2]  # after the title and the links: before any import of tutorial_code
    assert cell.cell_type == "code" and 'find_spec("tutorial_code")' in cell.source
    calls = []

    def pip(argv, **_):
        calls.append(argv)
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(subprocess, "run", pip)
    exec(cell.source, {})  # here the package is installed: nothing to do
    assert calls == []
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)  # a fresh Jupyter: not even torch
    exec(cell.source, {})
    assert calls[-1][-1].startswith("transformer-tutorial @ git+https://")
    if sys.platform == "linux":  # PyTorch's CPU build first, at the version requirements.txt pins
        assert calls[0][-3:-2] == ["torch==" + build.pinned_torch(ROOT)] and "cpu" in calls[0][-1]
    today = nbformat.read(site / "notebooks" / "todays_models" / "todays_models.ipynb", as_version=4)
    assert "transformer-tutorial[today] @ git+" in today.cells[2].source  # chapter 14 needs transformers
