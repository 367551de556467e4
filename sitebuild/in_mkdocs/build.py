"""One build of the site: run the chapters, publish what they printed and drew, and fill the pages with it.

The site's plugin (`sitebuild/in_mkdocs/plugin.py`) calls these functions from MkDocs' events and keeps
everything one build learns in a
[`BuildState`][sitebuild.in_mkdocs.build.BuildState], made afresh when the build starts.

- The chapters run once, in the English pass (only those whose code changed since their stored run,
  see `sitebuild.in_mkdocs.chapters`). Their figures (`figures/<section>.png`), notebook pages and downloads
  are published in both editions; the Chinese pass runs no chapter.
- Each `python run` fence of a page is filled with its sections' code and what they printed
  (`sitebuild.in_mkdocs.pages`), in both editions.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from sitebuild.checkout import Checkout
from sitebuild.in_mkdocs import chapters as chapter_runs
from sitebuild.in_mkdocs import downloads, editions, pages
from tutorial_tools import contents

KEEP_RUNS = 3  # stored runs of each chapter: undoing an edit finds its run still there


@dataclass(frozen=True)
class Site:
    """The site a build makes, from the `mkdocs.yml` being built: its checkout (every path hangs off its root),
    the address it is published at and the repository its notebooks install the package from."""

    checkout: Checkout
    site_url: str = "/"
    repository: str = ""
    revision: str = ""  # the commit being built, which the notebooks install the package at ("" outside git)
    torch: str = ""  # the pinned torch version of requirements.txt, whose CPU build the notebooks install

    @classmethod
    def of_config(cls, config_file_path: str | Path, repo_url: str | None) -> Site:
        checkout = Checkout.of_config(config_file_path)
        site_url = published_site_url(config_file_path)
        return cls(checkout, site_url, repo_url or "", commit_of(checkout.root), pinned_torch(checkout.root))

    @property
    def root(self) -> Path:
        return self.checkout.root


def commit_of(root: Path) -> str:
    """The commit checked out at `root`, read from its `.git` folder (no process), or "" where there is none."""
    git = root / ".git"
    head = git / "HEAD"
    if not head.is_file():
        return ""
    text = head.read_text(encoding="utf-8").strip()
    if not text.startswith("ref: "):
        return text  # a detached HEAD holds the commit itself
    ref = text.removeprefix("ref: ")
    if (git / ref).is_file():
        return (git / ref).read_text(encoding="utf-8").strip()
    packed = git / "packed-refs"
    lines = packed.read_text(encoding="utf-8").splitlines() if packed.is_file() else []
    return next((line.split()[0] for line in lines if line.endswith(" " + ref)), "")


def pinned_torch(root: Path) -> str:
    """The version `requirements.txt` pins torch to (`torch==2.13.0`), or ""."""
    requirements = root / "requirements.txt"
    text = requirements.read_text(encoding="utf-8") if requirements.exists() else ""
    found = re.search(r"^torch==([\w.]+)", text, re.M)
    return found[1] if found else ""


@dataclass
class BuildState:
    """What one build has learned: the chapters, what each section printed and drew, the generated files."""

    site: Site
    notebooks: dict[str, chapter_runs.ChapterNotebook] = field(default_factory=dict)
    sections: dict[str, dict[str, chapter_runs.Section]] = field(default_factory=dict)
    generated: list[tuple[str, bytes]] = field(default_factory=list)  # (site path, content), for both editions
    notebook_files: list[str] = field(default_factory=list)  # notebook pages, by path under Checkout.published
    held: list = field(
        default_factory=list
    )  # files set aside from mkdocs-static-i18n (sitebuild.in_mkdocs.plugin_fixes)
    pass_started: list[tuple[str, float]] = field(default_factory=list)
    pass_seconds: dict[str, float] = field(default_factory=dict)
    not_found: dict[str, str] = field(default_factory=dict)  # the 404 page of each edition
    log: list[str] = field(default_factory=list)

    def output_of(self, chapter: str, section: str, language: str = "en", as_prose: bool = False) -> str:
        """What a section printed, or, where the page's edition renders it from data, that rendering. Printed
        Markdown that a Chinese page shows as prose is put in Chinese (`editions.in_chinese`)."""
        sections = self.sections.get(chapter)
        if sections is None:
            raise pages.PageError(f"no chapter script docs/{chapter}/script.py")
        if section not in sections:
            raise pages.PageError(f"docs/{chapter}/script.py has no section {section!r}")
        found = sections[section]
        own = editions.rendered(chapter, section, found.data, language, self.site.root)
        if own is not None:
            return own
        if language == "zh" and as_prose:
            try:
                return editions.in_chinese(chapter, section, found.text, self.site.root)
            except editions.Untranslated as error:
                raise pages.PageError(str(error)) from error
        return found.text

    def recorded_note(self, chapter: str, section: str, language: str = "en") -> str:
        """Under a section that shows a recorded run: where and when it was recorded (`editions.recorded_note`)."""
        found = self.sections.get(chapter, {}).get(section)
        if found is None or not found.recorded:
            return ""
        return editions.recorded_note(found.recorded, language, self.site.root)

    def chapter_of_page(self, uri: str) -> contents.Chapter | None:
        return next((c for c in contents.CHAPTERS if c.page_path == uri and c.slug in self.notebooks), None)


def last_seconds(checkout: Checkout) -> dict[str, float]:
    """Each chapter's last run time: from this machine's runs, else from the committed measurement."""
    found: dict[str, float] = {}
    if checkout.measured.exists():
        found.update(json.loads(checkout.measured.read_text(encoding="utf-8")).get("chapter_seconds", {}))
    if checkout.seconds.exists():
        found.update(json.loads(checkout.seconds.read_text(encoding="utf-8")))
    return found


def run_chapters(
    found: dict[str, chapter_runs.ChapterNotebook], checkout: Checkout, workers: int = 2
) -> tuple[dict[str, Path], set[str], str]:
    """Execute the chapters whose stored run is missing or out of date.

    Returns:
        Every chapter's executed notebook, the names of the chapters executed now, and a line for the log.
    """
    executed, pending = {}, []
    for name, chapter in found.items():
        executed[name] = checkout.store / f"{name}-{chapter.key()}.ipynb"
        if not executed[name].exists():
            pending.append(chapter)
    # Alone first: the chapters that time things. Then `workers` at a time, one CPU thread each, the chapters that
    # took longest last time first (a chapter never run here counts as long), so the short ones fill the gaps.
    seconds = last_seconds(checkout)
    alone = [chapter for chapter in pending if chapter.entry.runs_alone]
    shared = sorted((c for c in pending if not c.entry.runs_alone), key=lambda c: -seconds.get(c.name, 1e9))
    start, timings = time.perf_counter(), []
    for group, at_once in ((alone, 1), (shared, workers)):
        for chapter, notebook, took in chapter_runs.execute(group, checkout.root, at_once):
            partial = checkout.store / f"{chapter.name}.partial"
            nbformat.write(notebook, partial)
            partial.replace(executed[chapter.name])
            seconds[chapter.name] = round(took, 1)
            timings.append(f"{chapter.name} {took:.1f} s")
    if pending:
        done = checkout.seconds
        mine = json.loads(done.read_text(encoding="utf-8")) if done.exists() else {}
        mine.update({c.name: seconds[c.name] for c in pending})
        done.write_text(json.dumps(mine, indent=1, sort_keys=True), encoding="utf-8")
    line = f"chapters executed in {time.perf_counter() - start:.1f} s: {', '.join(timings) or 'none, all reused'}"
    return executed, {chapter.name for chapter in pending}, line


def run_and_publish(state: BuildState, workers: int = 2) -> set[str]:
    """Run the chapters (those out of date), and keep in `state` what they printed and the files they make.

    Returns:
        The chapters that ran now.

    Raises:
        ChapterError: If a chapter fails, or two sections publish a figure under the same name.
    """
    site = state.site
    checkout = site.checkout
    (checkout.published / editions.NOTEBOOK_DIR).mkdir(parents=True, exist_ok=True)
    checkout.store.mkdir(parents=True, exist_ok=True)
    scripts = chapter_runs.chapter_scripts(checkout.root)
    found = {name: chapter_runs.read_notebook(path) for name, path in scripts.items()}
    executed_paths, rerun, line = run_chapters(found, checkout, workers)
    state.log.append(line)
    state.notebooks, figures, everything = found, {}, {}
    for name, chapter in found.items():
        executed = nbformat.read(executed_paths[name], as_version=4)
        publishes = dict(contents.by_slug()[name].publishes)  # its chapter.yml: the files made for the browser
        state.sections[name] = chapter_runs.sections_of(chapter, executed)
        for section_name, section in state.sections[name].items():
            if section_name in publishes:
                if section.data is None:
                    raise chapter_runs.ChapterError(f"chapter {name!r}, section {section_name!r} made no data")
                content = json.dumps(section.data["value"], separators=(",", ":")).encode()
                state.generated.append((publishes[section_name], content))
            if section.png is None:
                continue
            if section_name in figures:
                raise chapter_runs.ChapterError(
                    f"two sections named {section_name!r} draw a figure (chapters {figures[section_name]!r} and "
                    f"{name!r}); figures are published as figures/<section>.png: rename one"
                )
            figures[section_name] = name
            state.generated.append((f"figures/{section_name}.png", section.png))  # the notebooks' figure
            if section.svg is not None:  # the pages' figure, and the Chinese edition's: its words in Chinese
                state.generated.append((f"figures/{section_name}.svg", section.svg.encode()))
                try:
                    chinese = editions.figure_in_chinese(section.svg, checkout.root, name)
                except editions.Untranslated as error:
                    raise chapter_runs.ChapterError(f"chapter {name!r}, figure {section_name!r}: {error}") from None
                state.generated.append((f"figures/{editions.CHINESE_FIGURES}/{section_name}.svg", chinese.encode()))
        install = downloads.install_cell(site.repository, site.revision, site.torch, chapter.entry.extras)
        content = downloads.published_notebook(chapter, executed, site.site_url, site.repository, install)
        published = checkout.published / editions.NOTEBOOK_DIR / f"{name}.ipynb"
        if not published.exists() or published.read_bytes() != content:
            published.write_bytes(content)
        state.notebook_files.append(f"{editions.NOTEBOOK_DIR}/{name}.ipynb")
        # The downloads, next to the notebook's page: the executed notebook and its jupytext source.
        state.generated.append((f"{editions.NOTEBOOK_DIR}/{name}/{name}.ipynb", content))
        drawn = {section for section, found in state.sections[name].items() if found.png is not None}
        source = chapter.script.read_text(encoding="utf-8")
        script = downloads.downloadable_script(source, drawn, site.repository, install)
        state.generated.append((f"{editions.NOTEBOOK_DIR}/{name}/{name}.py", script.encode()))
        everything[name] = content
    state.generated.append((f"{editions.NOTEBOOK_DIR}/{downloads.ZIP_NAME}", downloads.notebooks_zip(everything)))
    return rerun


def stale_outputs(state: BuildState, documentation: list[tuple[str, str, str]], rerun: set[str]) -> list[Path]:
    """For `mkdocs serve --dirty`, which renders again only pages whose source is newer than their output: the
    outputs of pages whose chapter ran again, whose included code changed since they were rendered, or (API
    pages) whose module changed. `documentation` holds `(src_uri, abs_src_path, abs_dest_path)` of each page."""
    from tutorial_tools.sections import includes

    root = state.site.root
    pages_of_rerun = {chapter.page for name, chapter in state.notebooks.items() if name in rerun}
    stale = []
    for uri, source, destination in documentation:
        dest = Path(destination)
        if not dest.exists() or not source:
            continue
        sources = [Path(source)]
        if uri.startswith("reference/"):
            sources.append(root / "tutorial_code" / f"{Path(uri).stem.replace('.', '/')}.py")
        else:
            sources += [root / found.path for found in includes(sources[0].read_text(encoding="utf-8"))]
        newest = max((path.stat().st_mtime for path in sources if path.exists()), default=0)
        if uri in pages_of_rerun or newest > dest.stat().st_mtime:
            stale.append(dest)
    return stale


def forget_old_runs(state: BuildState) -> None:
    """Keep the newest runs of each chapter."""
    for name in state.notebooks:
        store = state.site.checkout.store
        runs = sorted(store.glob(f"{name}-*.ipynb"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in runs[KEEP_RUNS:]:
            old.unlink(missing_ok=True)


STYLE = re.compile(r'<style type="text/css">.*?</style>\s*', re.S)
MERMAID_LOADER = re.compile(r'<script type="module">(?:(?!</script>).)*?mermaid.*?</script>\s*', re.S)


INLINE_PNG = re.compile(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"')


def linked_figures(output: str, prefix: str, site_dir: str) -> str:
    """Each figure of a notebook page that the site also publishes (`figures/<section>.png`, the same bytes)
    links to that file instead of carrying its bytes inline: the page is lighter, and a reader who opened the
    chapter has the image cached already. Other images stay inline."""
    published = {
        hashlib.sha256(path.read_bytes()).hexdigest(): f"figures/{path.name}"
        for path in sorted((Path(site_dir) / "figures").glob("*.png"))
    }

    def link(match: re.Match) -> str:
        found = published.get(hashlib.sha256(base64.b64decode(match.group(1))).hexdigest())
        return f'src="{prefix}{found}"' if found else match.group(0)

    return INLINE_PNG.sub(link, output)


def slim_notebook_page(output: str, page_url: str, site_dir: str) -> str:
    """Slim a notebook page: nbconvert puts 0.6 MB of the same CSS into every page, and a Mermaid
    loader that would fetch from a CDN. The CSS moves to one shared, cached file; the loader goes
    (no notebook here draws Mermaid diagrams, and the site loads nothing from other hosts).
    Its figures link to the files the chapter page shows (`linked_figures`).
    Code cells become focusable, so a keyboard can scroll them (axe: scrollable-region-focusable)."""
    css = "".join(match.group(0) for match in STYLE.finditer(output))
    css = re.sub(r"</?style[^>]*>", "", css)
    name = f"assets/notebook-{hashlib.sha256(css.encode()).hexdigest()[:12]}.css"
    target = Path(site_dir) / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, encoding="utf-8")
    link = f'<link rel="stylesheet" href="{"../" * page_url.count("/")}{name}">\n'
    output = STYLE.sub("", output)
    output = output.replace("</head>", link + "</head>", 1)
    output = re.sub(r'<div class="(highlight-ipynb[^"]*)">', r'<div class="\1" tabindex="0">', output)
    output = linked_figures(output, "../" * page_url.count("/"), site_dir)
    return MERMAID_LOADER.sub("", output)


HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def chinese_not_found(output: str, site_url: str) -> str:
    """The Chinese 404 page: its title in Chinese, and its "English" switch to the English home page (the
    404 template gets the switcher links of whichever page was rendered last)."""
    from urllib.parse import urlsplit

    root = urlsplit(site_url).path or "/"
    output = output.replace("404 - Not found", "404 - 页面不存在")
    return re.sub(r'<a href="[^"]*" hreflang="en"', f'<a href="{root}" hreflang="en"', output)


def without_alternate_links(output: str) -> str:
    """Drop the `<link rel="alternate" hreflang>` tags of the head. Material's script fetches `sitemap.xml`
    next to each of them, and mkdocs-static-i18n points them at this page in each language, where there is
    no sitemap: two failed requests on every page. The language selector keeps its links to the same page."""
    head, end, body = output.partition("</head>")
    return HEAD_ALTERNATE.sub("", head) + end + body


def published_site_url(config_file: str | Path) -> str:
    """`site_url` as written in mkdocs.yml, ending in `/`: `mkdocs serve` replaces the configured one with its
    own address."""
    for line in Path(config_file).read_text(encoding="utf-8").splitlines():
        if line.startswith("site_url:"):
            return line.split(":", 1)[1].strip().rstrip("/") + "/"
    return "/"


def with_notebook_pages_in_sitemap(site_dir: Path, site_url: str, notebook_pages: list[str]) -> None:
    """Add the notebook pages to `sitemap.xml` and its gzipped copy: MkDocs lists the pages of the navigation,
    and the navigation holds the notebooks' index, not each notebook (`notebook_pages`: paths like
    `notebooks/masks/`)."""
    sitemap = site_dir / "sitemap.xml"
    if not sitemap.exists():
        return
    text = sitemap.read_text(encoding="utf-8")
    entries = "".join(
        f"    <url>\n        <loc>{site_url}{page}</loc>\n    </url>\n"
        for page in notebook_pages
        if f"<loc>{site_url}{page}</loc>" not in text
    )
    text = text.replace("</urlset>", entries + "</urlset>")
    sitemap.write_text(text, encoding="utf-8")
    (site_dir / "sitemap.xml.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
