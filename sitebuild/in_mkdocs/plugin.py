"""The site's MkDocs plugin, `tutorial-site` in mkdocs.yml: thin handlers over one build's state.

mkdocs-static-i18n builds the site twice in one process, the English pass, then the Chinese one inside
its `on_post_build`, with the same plugin instance. The English pass runs the chapters; the Chinese
pass reuses that run. The state (`sitebuild.in_mkdocs.build.BuildState`) lives on the instance and is
made afresh when a build starts and when one fails.

- `on_config`: both navigations from the table of contents (`tutorial_tools/contents.py`).
- `on_files`: run the chapters (English pass) and add the figures, notebooks and downloads they make.
- `on_page_markdown`: fill the `python run` fences with outputs, add the "Run this chapter" box and the
  notebook list, in the page's language.
- `on_page_context`, `on_post_page`: notebook pages stay out of search, edit their chapter script, and
  share one stylesheet.
- `on_build_error`: a failed build's state is dropped, so the next build starts afresh.
- The changes to plugins' internals are in `sitebuild/in_mkdocs/plugin_fixes.py`.

The MkDocs process never imports `tutorial_code`: the chapters run in their own processes, and
fingerprints read this checkout's files.
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Link, Navigation
from mkdocs.structure.pages import Page

from sitebuild.in_mkdocs import (
    build,
    code_tokens,
    descriptions,
    editions,
    images,
    page_assets,
    pages,
    plugin_fixes,
    search_words,
)
from sitebuild.in_mkdocs.build import BuildState
from sitebuild.in_mkdocs.chapters import ChapterError
from tutorial_tools import contents, shown_code
from tutorial_tools.exercises import EXERCISES
from tutorial_tools.exercises.starter import fix_diff

log = get_plugin_logger(__name__)


class SiteConfig(base.Config):
    """The plugin's options in mkdocs.yml."""

    chapter_workers = c.Type(int, default=2)  # chapters run at a time, one CPU thread each
    notebook_cache = c.Type(str, default=".cache/mkdocs-jupyter")  # mkdocs-jupyter's renders, from mkdocs.yml


def language(config: MkDocsConfig) -> str:
    """The pass under way: mkdocs-static-i18n sets the theme's language for each."""
    return config.theme["language"]


def is_notebook_page(page: Page) -> bool:
    uri = page.file.src_uri
    return uri.startswith(editions.NOTEBOOK_DIR + "/") and uri.endswith(".ipynb")


class SitePlugin(BasePlugin[SiteConfig]):
    """Runs every chapter once; pages, figures and notebooks in both editions come from that run."""

    def __init__(self) -> None:
        self.state: BuildState | None = None  # made when a build starts

    @event_priority(100)  # before mkdocs-static-i18n (-100) reads the navigation and search its settings
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if self.config.chapter_workers < 1:
            raise PluginError(f"tutorial-site: chapter_workers is {self.config.chapter_workers}; give 1 or more")
        if self.state is None or not self.state.pass_started:  # a new build, not the Chinese pass inside one
            # Everything hangs off the mkdocs.yml being built; what the last build read is read again, so that
            # `mkdocs serve` shows an edited word, chapter list or chapter folder on its next rebuild.
            importlib.reload(contents)
            editions.forget()
            self.state = BuildState(build.Site.of_config(config.config_file_path, config.repo_url))
            contents.use(self.state.site.root / "docs")  # its chapters, as its docs/contents.yml orders them
        config["nav"] = contents.navigation("en")
        plugin_fixes.set_chinese_navigation(config, contents.navigation("zh"))
        here = Path(config.config_file_path).parent
        plugin_fixes.set_notebook_cache(config, here / self.config.notebook_cache)
        plugin_fixes.use_glossary_in_search(config, search_words.jieba_dictionary(self.state.site.root))
        return config

    def on_pre_build(self, config: MkDocsConfig) -> None:
        self.state.pass_started.append((language(config), time.perf_counter()))
        if language(config) == "en":
            plugin_fixes.start_search_entries_afresh(config)

    @event_priority(100)  # before mkdocs-jupyter looks for notebooks among the files
    def add_chapter_files(self, files: Files, config: MkDocsConfig) -> Files:
        state = self.state
        if language(config) == "en":
            try:
                rerun = build.run_and_publish(state, self.config.chapter_workers)
            except (ChapterError, pages.PageError) as error:
                raise PluginError(str(error)) from error
            log.info(state.log[-1])
            documentation = [(f.src_uri, f.abs_src_path, f.abs_dest_path) for f in files.documentation_pages()]
            for stale in build.stale_outputs(state, documentation, rerun):
                stale.unlink()
            for uri in state.notebook_files:  # the notebook pages: English only
                published = str(state.site.checkout.published)
                files.append(File(uri, published, config.site_dir, config.use_directory_urls))
        for uri, content in state.generated:
            files.append(File.generated(config, uri, content=content))
        return files

    @event_priority(-50)  # after mkdocs-jupyter has turned notebooks into pages, before mkdocs-static-i18n (-100)
    def hold_generated_files(self, files: Files, config: MkDocsConfig) -> Files:
        self.state.held = plugin_fixes.hide_generated_files(files, config.docs_dir)
        return files

    on_files = CombinedEvent(add_chapter_files, hold_generated_files)

    @event_priority(-150)  # after mkdocs-static-i18n; mkdocs made the Page of every documentation file before this
    def on_nav(self, nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
        plugin_fixes.restore_generated_files(self.state.held, files, config)
        self.state.held = []
        if language(config) == "zh":  # the API reference exists in English only
            nav.items.append(Link(editions.strings("zh", self.state.site.root)["api_reference"], "reference/"))
        return nav

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        state = self.state
        uri = page.file.src_uri.replace(".zh.md", ".md")  # a Chinese page shows the same outputs as its English one
        edition = "zh" if uri != page.file.src_uri else "en"
        try:
            markdown = pages.fill(
                markdown,
                uri,
                lambda chapter, section, prose: state.output_of(chapter, section, edition, prose),
                lambda chapter, section: state.recorded_note(chapter, section, edition),
            )
            markdown = pages.fill_fixes(markdown, uri, lambda name: fix_diff(EXERCISES[name]))
            # the lesson's lines of the code each fence includes, and each import where it is first used
            markdown = shown_code.expand(markdown, shown_code.section_reader(state.site.root))
        except pages.PageError as error:
            raise PluginError(f"{uri}: {error}") from error
        if uri == "notebooks.md":
            listed = editions.notebook_list(edition, state.site.root, state.site.repository)
            markdown = markdown.replace(editions.NOTEBOOK_LIST, listed)
        chapter = state.chapter_of_page(uri)
        if chapter is not None:
            markdown = editions.with_run_box(markdown, chapter, edition, state.site.root)
        if edition == "zh":
            markdown = editions.to_english_pages(markdown, page.url)
        found = descriptions.description(markdown)
        if found and "description" not in page.meta:  # else the site's description, the same on every page
            page.meta["description"] = found
        return editions.with_svg_figures(markdown, edition)

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Figures with their size and legible width, lazily loaded below the first (`images.with_sizes`). A
        notebook page's figures are its outputs, which the build links to the chapter's figures afterwards: no
        lightbox there."""
        if is_notebook_page(page):
            page.meta["glightbox"] = False
        sizes = {
            Path(uri).stem: images.svg_size(content.decode())
            for uri, content in self.state.generated
            if uri.startswith("figures/") and uri.count("/") == 1 and uri.endswith(".svg")
        }
        return images.with_sizes(html, sizes)

    @event_priority(100)  # before the search plugin indexes the page
    def edit_link_and_search(self, context: dict, page: Page, config: MkDocsConfig, nav) -> dict:
        """A notebook page's edit link opens its source, the chapter script, and an API page's its module;
        notebook pages stay out of the search plugin's index (they repeat their chapter's code and outputs; the
        build adds one short entry for each, `search_words.one_index_per_edition`)."""
        source = None
        if is_notebook_page(page):
            page.meta["search"] = {"exclude": True}
            source = f"docs/{Path(page.file.src_uri).stem}/script.py"
        elif page.file.src_uri.startswith("reference/") and page.file.src_uri not in (
            "reference/SUMMARY.md",
            "reference/index.md",
        ):
            module = Path(page.file.src_uri).stem.replace(".", "/")
            source = f"tutorial_code/{module}.py"  # an API page is edited in its module
        if source and config.repo_url:
            branch = (config.edit_uri or "edit/main/").strip("/").split("/")[:2]
            page.edit_url = f"{config.repo_url.rstrip('/')}/{'/'.join(branch)}/{source}"
        return context

    @event_priority(0)  # after mkdocs-static-i18n (50) has set the language switcher for the page
    def notebook_language_switch(self, context: dict, page: Page, config: MkDocsConfig, nav) -> dict:
        """A notebook page exists in English only: its switcher leads to itself and to its chapter's Chinese
        page."""
        if is_notebook_page(page):
            chapter = next(c for c in contents.CHAPTERS if c.slug == Path(page.file.src_uri).stem)
            chinese = "zh/" + chapter.page_path.removesuffix("index.md")
            plugin_fixes.set_language_links(config, {"en": page.url, "zh": chinese})
        return context

    on_page_context = CombinedEvent(edit_link_and_search, notebook_language_switch)

    @event_priority(-100)  # after mkdocs-glightbox (listed after this plugin) has added its script and style
    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        if is_notebook_page(page):
            output = build.slim_notebook_page(output, page.url, config.site_dir)
        api_page = page.file.src_uri.startswith("reference/")
        output = page_assets.trimmed(output, api_page, notebook_page=is_notebook_page(page))
        if not is_notebook_page(page):  # nbconvert's colours there, not the theme's
            output = code_tokens.lighter_code(output)
        if language(config) == "zh":
            output = search_words.chinese_search_base(editions.chinese_interface(output, self.state.site.root))
        return build.without_alternate_links(output)

    def on_post_template(self, output: str, template_name: str, config: MkDocsConfig) -> str:
        """The 404 page is a template rather than a page. Both passes write it to the site's root, so
        on_post_build puts the English one back there, and the Chinese one into zh/."""
        if template_name != "404.html":
            return output
        output = build.without_alternate_links(page_assets.trimmed(output, api_page=False))
        if language(config) == "zh":
            output = build.chinese_not_found(output, self.state.site.site_url)
            output = search_words.chinese_search_base(editions.chinese_interface(output, self.state.site.root))
        self.state.not_found[language(config)] = output
        return output

    def on_build_error(self, *, error: Exception) -> None:
        """A failed build leaves no state behind: under `mkdocs serve` the next build starts from a fresh one
        (its chapter runs, generated files and passes), not from what the failed one had half done."""
        self.state = None

    @event_priority(-200)  # after mkdocs-static-i18n, whose English on_post_build runs the whole Chinese pass
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """Log how long each pass took (scripts/measure_build.py reads it); put each edition's 404 page in
        place."""
        state = self.state
        edition, start = state.pass_started.pop()  # the theme's language is still the Chinese pass's at the end
        state.pass_seconds[edition] = time.perf_counter() - start
        if edition == "zh":
            return
        chinese = state.pass_seconds.get("zh", 0.0)
        english = state.pass_seconds["en"] - chinese
        log.info(f"the English pass took {english:.1f} s, the Chinese pass took {chinese:.1f} s")
        site = Path(config.site_dir)
        for page_language, page in (("en", site / "404.html"), ("zh", site / "zh" / "404.html")):
            if page_language in state.not_found and page.parent.is_dir():
                page.write_text(state.not_found[page_language], encoding="utf-8")
        plugin_fixes.one_search_entry_per_section(config)
        notebooks = [str(Path(uri).with_suffix("")) + "/" for uri in state.notebook_files]
        headings = contents.by_slug()
        entries = [(n, headings[Path(n).name].heading()) for n in notebooks]
        search_words.one_index_per_edition(site, state.site.root, entries)
        build.with_notebook_pages_in_sitemap(site, state.site.site_url, notebooks)
        build.forget_old_runs(state)
