"""What a reader downloads to run a chapter elsewhere: the executed notebook, its jupytext script, a zip of all the
notebooks, and a link that opens a notebook on Colab.

Each notebook and script installs the package itself where it is missing (`install_cell`), so it runs on Colab or a
fresh Jupyter, not only in a clone. The script is the chapter's `docs/<chapter>/script.py` without the section
markers the pages include it by, and it saves each figure as a PNG file, since `python` shows no figure.
"""

from __future__ import annotations

import copy
import io
import zipfile

import nbformat

from sitebuild.in_mkdocs import chapters as chapter_runs
from tutorial_tools.sections import marker

NOTEBOOK_BRANCH = "notebooks"  # the branch .github/workflows/pages.yml pushes the built notebooks to, for Colab
ZIP_NAME = "notebooks.zip"


CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's CPU build: without it, Linux gets CUDA's GBs


def install_cell(repository: str, revision: str = "", torch: str = "", extras: tuple[str, ...] = ()) -> str:
    """The first code cell of every download: where `tutorial_code` is missing, it installs the package from
    `repository` (`repo_url` of the mkdocs.yml being built) at `revision`, the commit the notebook was built from,
    with the chapter's `extras`. On Linux without torch and without an NVIDIA GPU it first installs the pinned
    `torch` version's CPU build, from the package index where PyTorch's own cannot be reached; an installed torch is
    left alone. It says in one line what it installed. Where the package is installed (the build, a clone, a
    wheel) it does nothing; where the repository cannot be reached it says what to do instead of failing with
    pip's traceback."""
    extra = f"[{','.join(extras)}]" if extras else ""
    at = f"@{revision}" if revision else ""
    lines = [
        "# On Colab or a fresh Jupyter: install this tutorial's package when it is missing, at the commit this",
        "# notebook was built from (in a clone of the repository, `pip install -e .` does the same).",
        "import importlib.util",
        "import shutil",
        "import subprocess",
        "import sys",
        "",
        "",
        "def pip_install(*arguments: str) -> bool:",
        '    return subprocess.run([sys.executable, "-m", "pip", "install", *arguments]).returncode == 0',
        "",
        "",
        'if importlib.util.find_spec("tutorial_code") is None:',
    ]
    package = f"transformer-tutorial{extra} @ git+{repository}{at}"
    if torch:
        lines += [
            '    gpu = shutil.which("nvidia-smi") is not None',
            '    if importlib.util.find_spec("torch") is None and sys.platform == "linux" and not gpu:',
            f'        if not pip_install("torch=={torch}", "--index-url", "{CPU_TORCH_INDEX}"):  # the CPU build',
            f'            pip_install("torch=={torch}")  # where PyTorch\'s index cannot be reached',
        ]
    lines += [
        f'    if pip_install("{package}"):',
        f'        print("Installed {package}")',
        "    else:",
        "        print(",
        '            "The package could not be installed from the repository. Clone it, run "',
        '            "`pip install -e .` in the clone, and open this notebook from there."',
        "        )",
    ]
    return "\n".join(lines) + "\n"


SAVE_FIGURES = (
    "# With `python`, which shows no figure, each figure is saved as a PNG file here\nimport matplotlib.pyplot as plt\n"
)


def colab_url(name: str, repository: str) -> str:
    """The address that opens the notebook `name` on Colab, from the notebook branch of `repository`."""
    repository = repository.removeprefix("https://github.com/").rstrip("/")
    return f"https://colab.research.google.com/github/{repository}/blob/{NOTEBOOK_BRANCH}/{name}.ipynb"


def links_cell(chapter: chapter_runs.ChapterNotebook, site_url: str, repository: str) -> nbformat.NotebookNode:
    """The notebook's second cell: its page, its downloads, Colab, the command."""
    url = site_url + chapter.page.removesuffix("index.md")
    name = chapter.name
    return nbformat.v4.new_markdown_cell(
        f"This notebook is the code of the chapter page [{url}]({url}), executed when the site was built. "
        f"Download it: [{name}.ipynb]({name}.ipynb) (with these outputs) or [{name}.py]({name}.py) "
        f"(the jupytext source), or [open it in Colab]({colab_url(name, repository)}). It needs the `tutorial_code` "
        "package: the next cell installs it from the repository where it is missing.\n\n"
        f"From a terminal: `transformer-tutorial {chapter.command} --help`."
    )


def published_notebook(
    chapter: chapter_runs.ChapterNotebook, executed, site_url: str, repository: str, install: str = ""
) -> bytes:
    """The executed notebook as readers get it: the current Markdown cells, a cell of links, the install cell, the
    outputs."""
    notebook = chapter_runs.with_outputs(copy.deepcopy(chapter.notebook), executed)
    cells = notebook.cells
    if cells and cells[0].cell_type == "markdown" and cells[0].source.startswith("# "):
        title, _, rest = cells[0].source.partition("\n")
        cells[0].source = f"{title}: the notebook\n{rest}"  # tells it apart from the chapter page in tabs and links
    links = links_cell(chapter, site_url, repository)
    links["id"] = f"{chapter.name}-links"
    install = nbformat.v4.new_code_cell(install or install_cell(repository))
    install["id"] = f"{chapter.name}-install"
    cells[1:1] = [links, install]
    return nbformat.writes(notebook).encode()


def downloadable_script(source: str, figures: set[str], repository: str, install: str = "") -> str:
    """The chapter script `source` as readers download it: no section markers, the install cell after the title
    cell, and a `plt.savefig` at the end of each section in `figures` (those that draw one)."""
    lines, title_done = [], False
    for line in source.splitlines():
        found = marker(line)
        if found is None:
            if not title_done and line.startswith("# %%") and lines:
                lines += ["# %%", *(install or install_cell(repository)).splitlines(), "", ""]
                if figures:
                    lines += ["# %%", *SAVE_FIGURES.splitlines(), "", ""]
                title_done = True
            lines.append(line)
        elif found[0] == "end" and found[1] in figures:
            lines.append(f'plt.savefig("{found[1]}.png", bbox_inches="tight")')
    return "\n".join(lines) + "\n"


def notebooks_zip(notebooks: dict[str, bytes]) -> bytes:
    """A zip of the executed notebooks, `{name: content}`, as `notebooks/<name>.ipynb`; the same notebooks give
    the same bytes (fixed dates)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in notebooks.items():
            info = zipfile.ZipInfo(f"notebooks/{name}.ipynb", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return buffer.getvalue()
