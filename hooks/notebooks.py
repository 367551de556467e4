"""MkDocs hook: one executed notebook per chapter, rendered by mkdocs-jupyter.

The source of each notebook is its chapter script, `tutorial_code/chapters/<name>.py`,
a jupytext percent file. At every build this hook turns each script into a notebook
(section markers dropped, a cell of links added), executes it in a fresh kernel and
hands the executed `.ipynb` to mkdocs-jupyter, which renders it without executing it
again. A failing cell fails the build and names the notebook and the cell.

An executed notebook is kept in `.cache/notebooks/` under a key made of the notebook
itself, of every `tutorial_code` module its cells import (followed through imports),
of the benchmark results it may read and of the Python and PyTorch versions. So a
`tutorial_code` edit re-executes exactly the notebooks that depend on the edited
module, in `mkdocs build` and in `mkdocs serve` alike; a prose edit re-executes none.
Up to two notebooks execute at once; trained models are shared through
`tutorial_code.result_cache`, which this hook switches on (`TUTORIAL_CACHE_DIR`).

Each notebook page offers the executed `.ipynb` and the `.py` source for download,
and each chapter page gets a box that links to its notebook.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

log = get_plugin_logger(__name__)

NOTEBOOK_DIR = "notebooks"
MARKER = re.compile(r"^\s*# --8<-- \[(start|end):[\w-]+\]\s*$")
TIMED = {"why_attention"}  # measures speed: executed with no other notebook running
COST = {  # seconds of training on a cold cache (2-core CPU), to start the longest first
    "feed_forward_and_norm": 20,
    "best_practices": 20,
    "positional_encoding": 12,
    "multi_head_attention": 6,
    "training": 6,
    "troubleshooting": 5,
}
PAGE_OF_CHAPTER = {"overview": "index.md"}  # every other chapter script is named after its page
EXECUTE = """
import sys, nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
notebook = nbformat.read(sys.argv[1], as_version=4)
try:
    client = NotebookClient(notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": sys.argv[3]}})
    client.execute()
except CellExecutionError as error:
    sys.stderr.write(str(error))
    sys.exit(1)
nbformat.write(notebook, sys.argv[2])
"""


def chapter_scripts(config: MkDocsConfig) -> dict[str, Path]:
    root = Path(config.config_file_path).parent
    return {p.stem: p for p in sorted((root / "tutorial_code" / "chapters").glob("*.py")) if p.stem != "__init__"}


def page_of(chapter: str) -> str:
    return PAGE_OF_CHAPTER.get(chapter, f"{chapter}.md")


def published_site_url(config: MkDocsConfig) -> str:
    """`site_url` as written in mkdocs.yml: `mkdocs serve` replaces it with its own address."""
    for line in Path(config.config_file_path).read_text(encoding="utf-8").splitlines():
        if line.startswith("site_url:"):
            return line.split(":", 1)[1].strip().rstrip("/") + "/"
    return "/"


def chapter_url(config: MkDocsConfig, chapter: str) -> str:
    page = page_of(chapter)
    return published_site_url(config) + ("" if page == "index.md" else page[: -len(".md")] + "/")


def read_script(script: Path, cache: Path):
    """The chapter script as a notebook; jupytext's parse is kept on disk until the script changes."""
    import jupytext
    import nbformat

    source = script.read_bytes()
    parsed = cache / f"source-{script.stem}-{hashlib.sha256(source).hexdigest()[:16]}.json"
    if parsed.exists():
        return nbformat.reads(parsed.read_text(encoding="utf-8"), as_version=4)
    notebook = jupytext.reads(source.decode("utf-8"), fmt="py:percent")
    for old in cache.glob(f"source-{script.stem}-*.json"):
        old.unlink(missing_ok=True)
    parsed.write_text(nbformat.writes(notebook), encoding="utf-8")
    return notebook


def build_notebook(script: Path, config: MkDocsConfig):
    """The unexecuted notebook of one chapter script: its cells without section markers, plus a cell of links."""
    import nbformat

    root = Path(config.config_file_path).parent
    notebook = read_script(script, root / ".cache" / NOTEBOOK_DIR)
    cells = []
    for cell in notebook.cells:
        cell.source = "\n".join(line for line in cell.source.splitlines() if not MARKER.match(line)).strip("\n")
        if cell.source.strip():
            cells.append(cell)
    name = script.stem
    links = nbformat.v4.new_markdown_cell(
        f"This notebook is the code of the chapter page [{chapter_url(config, name)}]({chapter_url(config, name)}), "
        f"executed when the site was built. Download it: [{name}.ipynb]({name}.ipynb) (with these outputs) or "
        f"[{name}.py]({name}.py) (the jupytext source). It needs the `tutorial_code` package: "
        "`pip install -e .` in a clone of the repository.\n\n"
        f"From a terminal: `transformer-tutorial {name.replace('_', '-')} --help`."
    )
    if cells and cells[0].cell_type == "markdown" and cells[0].source.startswith("# "):
        title, _, rest = cells[0].source.partition("\n")
        cells[0].source = f"{title}: the notebook\n{rest}"  # tells it apart from the chapter page in tabs and links
    cells.insert(1, links)
    notebook.cells = cells
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata.pop("jupytext", None)
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"{name}-{index}"  # stable ids: the same source gives the same file, and the same key
    return notebook


def notebook_key(notebook) -> str:
    """What an executed notebook depends on: its code cells, the code they import, the data they read, the versions."""
    from tutorial_code.result_cache import code_fingerprint, data_fingerprint

    code_cells = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    digest = hashlib.sha256(repr(code_cells).encode())  # not the Markdown cells: editing them re-executes nothing
    digest.update(code_fingerprint(source="\n".join(code_cells)).encode())
    digest.update(data_fingerprint().encode())
    digest.update(f"python {platform.python_version()}".encode())
    return digest.hexdigest()[:20]


def with_outputs(notebook, executed):
    """`notebook` (current Markdown cells) with the outputs of `executed` (same code cells, in the same order)."""
    code_cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    for cell in notebook.cells:
        if cell.cell_type == "code":
            ran = code_cells.pop(0)
            cell.outputs, cell.execution_count = ran.outputs, ran.execution_count
    return notebook


def execute(name: str, source: Path, target: Path, root: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", EXECUTE, str(source), str(target), str(root)],
        capture_output=True,
        text=True,
        cwd=root,
        env=os.environ.copy(),  # OMP_NUM_THREADS=1 and TUTORIAL_CACHE_DIR, from on_config
    )
    if result.returncode != 0:
        raise PluginError(
            f"notebook {name!r} (tutorial_code/chapters/{name}.py) failed to execute:\n{result.stderr[-4000:]}"
        )
    return time.perf_counter() - start


@event_priority(100)  # before anything computes
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Compute with one CPU thread per process, everywhere in the build.

    One and two threads add floats in different orders, so a model trained in a notebook's kernel
    and the same model trained by a page block would differ in the last printed digits. With one
    thread per process every process computes the same numbers, and two notebooks can execute at
    once on two cores (two kernels of two threads each spin-wait and ran many times slower).
    """
    import torch

    os.environ["OMP_NUM_THREADS"] = "1"  # the kernels, and any other process the build starts
    torch.set_num_threads(1)
    root = Path(config.config_file_path).parent
    # The result cache for every process of the build (tutorial_code/result_cache.py): page blocks,
    # figures and kernels share trained models, and hooks/exec_cache.py keeps block outputs there.
    os.environ.setdefault("TUTORIAL_CACHE_DIR", str(root / ".cache" / "results"))
    # mkdocs-jupyter's render cache, next to the others whatever the working directory
    # (its cache_dir option is relative to the working directory and does not accept !relative).
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        jupyter.config["cache_dir"] = str(root / ".cache" / "mkdocs-jupyter")
    return config


@event_priority(100)  # before mkdocs-jupyter looks for notebooks among the files, and before the figures
def on_files(files: Files, config: MkDocsConfig) -> Files:
    import nbformat

    root = Path(config.config_file_path).parent
    cache = root / ".cache" / NOTEBOOK_DIR
    published_dir = root / ".cache" / "notebook-pages"  # mkdocs-jupyter reads notebooks from files on disk
    (published_dir / NOTEBOOK_DIR).mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    scripts = chapter_scripts(config)
    notebooks, executed_copies, pending, start = {}, {}, [], time.perf_counter()
    for name, script in scripts.items():
        notebooks[name] = notebook = build_notebook(script, config)
        executed = cache / f"{name}-{notebook_key(notebook)}.ipynb"
        if not executed.exists():
            unexecuted = executed.with_suffix(".unexecuted")
            nbformat.write(notebook, unexecuted)
            pending.append((name, unexecuted, executed))
        executed_copies[name] = executed
        page = File(f"{NOTEBOOK_DIR}/{name}.ipynb", str(published_dir), config.site_dir, config.use_directory_urls)
        files.append(page)
    # Alone first: the chapters that time things. Then two kernels at a time (each computes with
    # one CPU thread, see on_config), the chapters that train most first, so the cheap ones fill the gaps.
    alone = [job for job in pending if job[0] in TIMED]
    shared = sorted((job for job in pending if job[0] not in TIMED), key=lambda job: -COST.get(job[0], 0))
    try:
        timings = [(job[0], execute(*job, root)) for job in alone]
        with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
            timings += pool.map(lambda job: (job[0], execute(*job, root)), shared)
    finally:
        for _, unexecuted, _ in pending:
            unexecuted.unlink(missing_ok=True)
    for name, executed in executed_copies.items():
        published = published_dir / NOTEBOOK_DIR / f"{name}.ipynb"
        notebook = with_outputs(notebooks[name], nbformat.read(executed, as_version=4))
        content = nbformat.writes(notebook).encode()
        if not published.exists() or published.read_bytes() != content:
            published.write_bytes(content)
        # The downloads, next to the notebook's page: the executed notebook and its jupytext source.
        files.append(File.generated(config, f"{NOTEBOOK_DIR}/{name}/{name}.ipynb", content=content))
        files.append(File.generated(config, f"{NOTEBOOK_DIR}/{name}/{name}.py", content=scripts[name].read_bytes()))
    ran = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings) or "none, all reused"
    log.info(f"notebooks executed in {time.perf_counter() - start:.1f} s: {ran}")
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Put a box under the first heading of every chapter page that links to its notebook and its command."""
    pages = {page_of(name): name for name in chapter_scripts(config)}
    name = pages.get(page.file.src_uri)
    if name is None:
        return markdown
    command = name.replace("_", "-")
    box = (
        '!!! example "Run this chapter"\n\n'
        f"    [Read it as an executed notebook]({NOTEBOOK_DIR}/{name}.ipynb), or download it: "
        f"[{name}.ipynb]({NOTEBOOK_DIR}/{name}/{name}.ipynb) with its outputs, "
        f"[{name}.py]({NOTEBOOK_DIR}/{name}/{name}.py) as a jupytext script. "
        f"From a terminal, after `pip install -e .`: `transformer-tutorial {command}` prints what this page "
        f"shows; `transformer-tutorial {command} --help` lists its options.\n"
    )
    lines = markdown.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.startswith("# "):
            return "".join(lines[: index + 1]) + "\n" + box + "\n" + "".join(lines[index + 1 :])
    return box + "\n" + markdown


@event_priority(100)  # before the search plugin indexes the page
def on_page_context(context: dict, page: Page, config: MkDocsConfig, nav) -> dict:
    """A notebook page's edit link opens its source: the chapter script, not a generated .ipynb.

    Notebook pages stay out of the search index: they repeat their chapter's code and outputs,
    and indexing their large HTML doubled the index and slowed every rebuild.
    """
    uri = page.file.src_uri
    if uri.startswith(NOTEBOOK_DIR + "/") and uri.endswith(".ipynb"):
        page.meta["search"] = {"exclude": True}
    if uri.startswith(NOTEBOOK_DIR + "/") and uri.endswith(".ipynb") and config.repo_url:
        branch = (config.edit_uri or "edit/main/").strip("/").split("/")[:2]
        page.edit_url = f"{config.repo_url.rstrip('/')}/{'/'.join(branch)}/tutorial_code/chapters/{Path(uri).stem}.py"
    return context


STYLE = re.compile(r'<style type="text/css">.*?</style>\s*', re.S)
MERMAID_LOADER = re.compile(r'<script type="module">(?:(?!</script>).)*?mermaid.*?</script>\s*', re.S)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Slim a notebook page: nbconvert puts 0.6 MB of the same CSS into every page, and a Mermaid
    loader that would fetch from a CDN. The CSS moves to one shared, cached file; the loader goes
    (no notebook here draws Mermaid diagrams, and the site loads nothing from other hosts).
    Code cells become focusable, so a keyboard can scroll them (axe: scrollable-region-focusable)."""
    uri = page.file.src_uri
    if not (uri.startswith(NOTEBOOK_DIR + "/") and uri.endswith(".ipynb")):
        return output
    css = "".join(match.group(0) for match in STYLE.finditer(output))
    css = re.sub(r"</?style[^>]*>", "", css)
    name = f"assets/notebook-{hashlib.sha256(css.encode()).hexdigest()[:12]}.css"
    target = Path(config.site_dir) / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, encoding="utf-8")
    link = f'<link rel="stylesheet" href="{"../" * page.url.count("/")}{name}">\n'
    output = STYLE.sub("", output, count=0)
    output = output.replace("</head>", link + "</head>", 1)
    # Code cells scroll sideways: keyboard users must be able to focus them to scroll.
    output = re.sub(r'<div class="(highlight-ipynb[^"]*)">', r'<div class="\1" tabindex="0">', output)
    return MERMAID_LOADER.sub("", output)


def on_post_build(config: MkDocsConfig) -> None:
    """Keep the three newest executed copies of each notebook: undoing an edit finds its copy still there."""
    root = Path(config.config_file_path).parent
    cache = root / ".cache" / NOTEBOOK_DIR
    for name in chapter_scripts(config):
        copies = sorted(cache.glob(f"{name}-*.ipynb"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in copies[3:]:
            old.unlink(missing_ok=True)
