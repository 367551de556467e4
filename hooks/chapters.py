"""MkDocs hook: run every chapter once, and build its page outputs, figures and notebook page from that run.

- `on_files`: execute each chapter script as a notebook (only those whose code changed since
  the stored run, see `sitebuild.chapters`), publish the figures its sections drew
  (`figures/<section>.png`), its notebook page (rendered by mkdocs-jupyter) and the
  downloads (`.ipynb` with outputs, `.py` source).
- `on_page_markdown`: fill each `python run` fence with the section's code and what it
  printed (`sitebuild.pages`), add the "Run this chapter" box, list the notebooks.
- `on_page_context`, `on_post_page`: notebook pages stay out of search, edit their chapter
  script, and share one stylesheet instead of 0.6 MB of CSS each.

The mkdocs process never imports `tutorial_code`: the kernels import it from this checkout
(`sitebuild.kernel` checks), and fingerprints read this checkout's files.
"""

from __future__ import annotations

import hashlib
import re
import sys
import time
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sitebuild import chapters as chapter_runs  # noqa: E402
from sitebuild import pages  # noqa: E402

log = get_plugin_logger(__name__)
NOTEBOOK_DIR = "notebooks"
NOTEBOOK_INDEX = "notebooks.md"
NOTEBOOK_LIST = "<!-- chapter notebooks -->"
COST = {  # seconds a chapter takes on a cold build (2-core CPU), to start the longest first, so that the
    # short ones fill the gaps at the end
    "feed_forward_and_norm": 80,
    "best_practices": 65,
    "positional_encoding": 26,
    "troubleshooting": 20,
    "language_model": 30,
    "encoder_decoder": 10,
    "multi_head_attention": 8,
    "training": 8,
}
state: dict = {"chapters": {}, "sections": {}, "shared": []}


def is_chinese_pass(config: MkDocsConfig) -> bool:
    """Whether this build pass makes the Chinese edition: mkdocs-static-i18n builds the site once per
    language, in one process, and sets the theme's language for each pass (hooks/editions.py)."""
    return config.theme["language"] == "zh"


def published_site_url(config: MkDocsConfig) -> str:
    """`site_url` as written in mkdocs.yml: `mkdocs serve` replaces it with its own address."""
    for line in Path(config.config_file_path).read_text(encoding="utf-8").splitlines():
        if line.startswith("site_url:"):
            return line.split(":", 1)[1].strip().rstrip("/") + "/"
    return "/"


def links_cell(chapter: chapter_runs.Chapter, config: MkDocsConfig):
    import nbformat

    page = chapter.page
    url = published_site_url(config) + ("" if page == "index.md" else page[: -len(".md")] + "/")
    name = chapter.name
    return nbformat.v4.new_markdown_cell(
        f"This notebook is the code of the chapter page [{url}]({url}), executed when the site was built. "
        f"Download it: [{name}.ipynb]({name}.ipynb) (with these outputs) or [{name}.py]({name}.py) "
        "(the jupytext source). It needs the `tutorial_code` package: `pip install -e .` in a clone of the "
        f"repository.\n\nFrom a terminal: `transformer-tutorial {chapter.command} --help`."
    )


def published_notebook(chapter: chapter_runs.Chapter, executed, config: MkDocsConfig) -> bytes:
    """The executed notebook as readers get it: the current Markdown cells, a cell of links, the outputs."""
    import copy

    import nbformat

    notebook = chapter_runs.with_outputs(copy.deepcopy(chapter.notebook), executed)
    cells = notebook.cells
    if cells and cells[0].cell_type == "markdown" and cells[0].source.startswith("# "):
        title, _, rest = cells[0].source.partition("\n")
        cells[0].source = f"{title}: the notebook\n{rest}"  # tells it apart from the chapter page in tabs and links
    links = links_cell(chapter, config)
    links["id"] = f"{chapter.name}-links"
    cells.insert(1, links)
    return nbformat.writes(notebook).encode()


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    # mkdocs-jupyter's render cache, next to the others whatever the working directory
    # (its cache_dir option is relative to the working directory and does not accept !relative).
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        jupyter.config["cache_dir"] = str(ROOT / ".cache" / "mkdocs-jupyter")
    return config


def run_chapters(found: dict, store: Path) -> tuple[dict[str, Path], set[str]]:
    """Execute the chapters whose stored run is missing or out of date.

    Returns:
        Every chapter's executed notebook, and the names of the chapters executed now.
    """
    import nbformat

    executed, pending = {}, []
    for name, chapter in found.items():
        executed[name] = store / f"{name}-{chapter.key()}.ipynb"
        if not executed[name].exists():
            pending.append(chapter)
    # Alone first: the chapters that time things. Then two at a time, one CPU thread each,
    # the chapters that take longest first, so that the short ones fill the gaps.
    alone = [chapter for chapter in pending if chapter.name in chapter_runs.TIMED]
    shared = sorted((c for c in pending if c.name not in chapter_runs.TIMED), key=lambda c: -COST.get(c.name, 0))
    start, timings = time.perf_counter(), []
    try:
        for group, workers in ((alone, 1), (shared, 2)):
            for chapter, notebook, seconds in chapter_runs.execute(group, ROOT, workers):
                partial = store / f"{chapter.name}.partial"
                nbformat.write(notebook, partial)
                partial.replace(executed[chapter.name])
                timings.append(f"{chapter.name} {seconds:.1f} s")
    except chapter_runs.ChapterError as error:
        raise PluginError(str(error)) from error
    log.info(f"chapters executed in {time.perf_counter() - start:.1f} s: {', '.join(timings) or 'none, all reused'}")
    return executed, {chapter.name for chapter in pending}


INCLUDE = re.compile(r'--8<--\s+"([^":]+)')


def forget_stale_pages(files: Files, rerun: set[str]) -> None:
    """For `mkdocs serve --dirty`, which renders again only pages whose source is newer than their output:
    drop the output of every page whose chapter ran again, whose included code changed since it was
    rendered, or (API pages) whose module changed. A full build renders every page anyway."""
    pages_of_rerun = {chapter.page for name, chapter in state["chapters"].items() if name in rerun}
    for file in files.documentation_pages():
        dest = Path(file.abs_dest_path)
        if not dest.exists() or not file.abs_src_path:
            continue
        sources = [Path(file.abs_src_path)]
        if file.src_uri.startswith("reference/"):
            sources.append(ROOT / "tutorial_code" / f"{Path(file.src_uri).stem}.py")
        else:
            text = sources[0].read_text(encoding="utf-8")
            sources += [ROOT / path for path in INCLUDE.findall(text)]
        newest = max((path.stat().st_mtime for path in sources if path.exists()), default=0)
        if file.src_uri in pages_of_rerun or newest > dest.stat().st_mtime:
            dest.unlink()


@event_priority(100)  # before mkdocs-jupyter looks for notebooks among the files
def on_files(files: Files, config: MkDocsConfig) -> Files:
    if is_chinese_pass(config):
        # The chapters ran in the English pass of this build: the same figures and downloads, no notebook
        # pages (the Chinese pages link to the English ones, hooks/editions.py).
        for uri, content in state["shared"]:
            files.append(File.generated(config, uri, content=content))
        return files
    import nbformat

    store = ROOT / ".cache" / "chapters"
    published_dir = ROOT / ".cache" / "notebook-pages"  # mkdocs-jupyter reads notebooks from files on disk
    (published_dir / NOTEBOOK_DIR).mkdir(parents=True, exist_ok=True)
    store.mkdir(parents=True, exist_ok=True)
    try:
        found = {name: chapter_runs.read_chapter(path) for name, path in chapter_runs.chapter_scripts(ROOT).items()}
    except chapter_runs.ChapterError as error:
        raise PluginError(str(error)) from error
    executed_paths, rerun = run_chapters(found, store)
    state["chapters"], state["sections"], state["shared"], figures = found, {}, [], {}
    forget_stale_pages(files, rerun)
    for name, chapter in found.items():
        executed = nbformat.read(executed_paths[name], as_version=4)
        try:
            sections = chapter_runs.sections_of(chapter, executed)
        except chapter_runs.ChapterError as error:
            raise PluginError(str(error)) from error
        state["sections"][name] = sections
        for section_name, section in sections.items():
            if section.png is None:
                continue
            if section_name in figures:
                raise PluginError(
                    f"two sections named {section_name!r} draw a figure (chapters {figures[section_name]!r} and "
                    f"{name!r}); figures are published as figures/<section>.png: rename one"
                )
            figures[section_name] = name
            state["shared"].append((f"figures/{section_name}.png", section.png))
        content = published_notebook(chapter, executed, config)
        published = published_dir / NOTEBOOK_DIR / f"{name}.ipynb"
        if not published.exists() or published.read_bytes() != content:
            published.write_bytes(content)
        files.append(
            File(f"{NOTEBOOK_DIR}/{name}.ipynb", str(published_dir), config.site_dir, config.use_directory_urls)
        )
        # The downloads, next to the notebook's page: the executed notebook and its jupytext source.
        state["shared"].append((f"{NOTEBOOK_DIR}/{name}/{name}.ipynb", content))
        state["shared"].append((f"{NOTEBOOK_DIR}/{name}/{name}.py", chapter.script.read_bytes()))
    for uri, content in state["shared"]:
        files.append(File.generated(config, uri, content=content))
    return files


def output_of(chapter: str, section: str) -> str:
    sections = state["sections"].get(chapter)
    if sections is None:
        raise pages.PageError(f"no chapter script tutorial_code/chapters/{chapter}.py")
    if section not in sections:
        raise pages.PageError(f"tutorial_code/chapters/{chapter}.py has no section {section!r}")
    return sections[section].text


def run_box(chapter: chapter_runs.Chapter, chinese: bool = False) -> str:
    name = chapter.name
    if chinese:
        return (
            '!!! example "运行本章"\n\n'
            f"    [以执行过的笔记本阅读本章]({NOTEBOOK_DIR}/{name}.ipynb)（英文），或下载："
            f"[{name}.ipynb]({NOTEBOOK_DIR}/{name}/{name}.ipynb)（含输出）、"
            f"[{name}.py]({NOTEBOOK_DIR}/{name}/{name}.py)（jupytext 脚本）。"
            f"在终端里先执行 `pip install -e .`，然后运行 `transformer-tutorial {chapter.command}`，"
            f"它会打印本页显示的内容；`transformer-tutorial {chapter.command} --help` 列出可用选项。"
            f"全部笔记本：[笔记本]({NOTEBOOK_INDEX})。\n"
        )
    return (
        '!!! example "Run this chapter"\n\n'
        f"    [Read it as an executed notebook]({NOTEBOOK_DIR}/{name}.ipynb), or download it: "
        f"[{name}.ipynb]({NOTEBOOK_DIR}/{name}/{name}.ipynb) with its outputs, "
        f"[{name}.py]({NOTEBOOK_DIR}/{name}/{name}.py) as a jupytext script. "
        f"From a terminal, after `pip install -e .`: `transformer-tutorial {chapter.command}` prints what this page "
        f"shows; `transformer-tutorial {chapter.command} --help` lists its options. "
        f"All notebooks: [Notebooks]({NOTEBOOK_INDEX}).\n"
    )


def notebook_list(chinese: bool = False) -> str:
    lines = []
    for name, chapter in state["chapters"].items():
        title = chapter.notebook.cells[0].source.splitlines()[0].lstrip("# ").strip()
        if chinese:
            title = f"{title}（英文）"
        lines.append(
            f"- [{title}]({NOTEBOOK_DIR}/{name}.ipynb): [{name}.ipynb]({NOTEBOOK_DIR}/{name}/{name}.ipynb), "
            f"[{name}.py]({NOTEBOOK_DIR}/{name}/{name}.py), `transformer-tutorial {chapter.command}`"
        )
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    uri = page.file.src_uri.replace(".zh.md", ".md")  # a Chinese page shows the same outputs as its English one
    chinese = uri != page.file.src_uri
    try:
        markdown = pages.fill(markdown, uri, output_of)
    except pages.PageError as error:
        raise PluginError(f"{uri}: {error}") from error
    if uri == NOTEBOOK_INDEX:
        return markdown.replace(NOTEBOOK_LIST, notebook_list(chinese))
    chapter = next((c for c in state["chapters"].values() if c.page == uri), None)
    if chapter is None:
        return markdown
    lines = markdown.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.startswith("# "):
            return "".join(lines[: index + 1]) + "\n" + run_box(chapter, chinese) + "\n" + "".join(lines[index + 1 :])
    return run_box(chapter, chinese) + "\n" + markdown


def is_notebook_page(page: Page) -> bool:
    uri = page.file.src_uri
    return uri.startswith(NOTEBOOK_DIR + "/") and uri.endswith(".ipynb")


@event_priority(100)  # before the search plugin indexes the page
def on_page_context(context: dict, page: Page, config: MkDocsConfig, nav) -> dict:
    """A notebook page's edit link opens its source, the chapter script, and an API page's its module;
    notebook pages stay out of search (they repeat their chapter's code and outputs)."""
    source = None
    if is_notebook_page(page):
        page.meta["search"] = {"exclude": True}
        source = f"tutorial_code/chapters/{Path(page.file.src_uri).stem}.py"
    elif page.file.src_uri.startswith("reference/") and page.file.src_uri != "reference/SUMMARY.md":
        source = f"tutorial_code/{Path(page.file.src_uri).stem}.py"  # an API page is edited in its module
    if source and config.repo_url:
        branch = (config.edit_uri or "edit/main/").strip("/").split("/")[:2]
        page.edit_url = f"{config.repo_url.rstrip('/')}/{'/'.join(branch)}/{source}"
    return context


STYLE = re.compile(r'<style type="text/css">.*?</style>\s*', re.S)
MERMAID_LOADER = re.compile(r'<script type="module">(?:(?!</script>).)*?mermaid.*?</script>\s*', re.S)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Slim a notebook page: nbconvert puts 0.6 MB of the same CSS into every page, and a Mermaid
    loader that would fetch from a CDN. The CSS moves to one shared, cached file; the loader goes
    (no notebook here draws Mermaid diagrams, and the site loads nothing from other hosts).
    Code cells become focusable, so a keyboard can scroll them (axe: scrollable-region-focusable)."""
    if not is_notebook_page(page):
        return output
    css = "".join(match.group(0) for match in STYLE.finditer(output))
    css = re.sub(r"</?style[^>]*>", "", css)
    name = f"assets/notebook-{hashlib.sha256(css.encode()).hexdigest()[:12]}.css"
    target = Path(config.site_dir) / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, encoding="utf-8")
    link = f'<link rel="stylesheet" href="{"../" * page.url.count("/")}{name}">\n'
    output = STYLE.sub("", output)
    output = output.replace("</head>", link + "</head>", 1)
    output = re.sub(r'<div class="(highlight-ipynb[^"]*)">', r'<div class="\1" tabindex="0">', output)
    return MERMAID_LOADER.sub("", output)


def on_post_build(config: MkDocsConfig) -> None:
    """Keep the three newest runs of each chapter: undoing an edit finds its run still there."""
    store = ROOT / ".cache" / "chapters"
    for name in state["chapters"]:
        runs = sorted(store.glob(f"{name}-*.ipynb"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in runs[3:]:
            old.unlink(missing_ok=True)
