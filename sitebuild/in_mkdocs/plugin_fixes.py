"""Every change the build makes to a plugin's internals, in one place.

Each fix names the plugin version it was written for (`WRITTEN_FOR`) and why it is needed;
`tests/unit/test_plugin_fixes.py` fails when an installed plugin's version differs, so that
whoever upgrades it reads these fixes again, and the site tests check what each fix is for.
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

WRITTEN_FOR = {"mkdocs-static-i18n": "1.3.1", "mkdocs-material": "9.8.2", "mkdocs-jupyter": "0.26.3"}


def version_changes() -> dict[str, tuple[str, str]]:
    """`{plugin: (written for, installed)}` for each plugin whose installed version is not the one the fixes
    were written for."""
    changes = {}
    for plugin, written_for in WRITTEN_FOR.items():
        installed = metadata.version(plugin)
        if installed != written_for:
            changes[plugin] = (written_for, installed)
    return changes


def set_notebook_cache(config: MkDocsConfig, folder: Path) -> None:
    """mkdocs-jupyter 0.26.3: its `cache_dir` option is relative to the working directory and does not take
    `!relative`; set it absolute, so the render cache sits in `.cache/` whatever the directory mkdocs runs in."""
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None:
        jupyter.config["cache_dir"] = str(folder)


def use_glossary_in_search(config: MkDocsConfig, dictionary: Path) -> None:
    """mkdocs-material 9.8.2: jieba cuts Chinese text into words for search; its `jieba_dict_user` option is a
    path, set here to the glossary's terms (`i18n/glossary.yml`) written out as jieba's dictionary."""
    search = config.plugins.get("material/search")
    if search is not None:
        search.config["jieba_dict_user"] = str(dictionary)


def set_chinese_navigation(config: MkDocsConfig, nav: list) -> None:
    """mkdocs-static-i18n 1.3.1: each language's `nav` is read from its language entry when its pass starts."""
    i18n = config.plugins.get("i18n")
    for language in i18n.config["languages"] if i18n is not None else ():
        if language["locale"] == "zh":
            language["nav"] = nav


def start_search_entries_afresh(config: MkDocsConfig) -> None:
    """mkdocs-static-i18n 1.3.1 collects each pass's search entries into `search_entries` and never empties it,
    so every rebuild of `mkdocs serve` added the whole index again (a prose edit took 40 s after three
    rebuilds). A build starts with the English pass: empty it then."""
    i18n = config.plugins.get("i18n")
    if i18n is not None:
        i18n.search_entries.clear()


def one_search_entry_per_section(config: MkDocsConfig) -> None:
    """mkdocs-material 9.8.2 with mkdocs-static-i18n 1.3.1: under `mkdocs serve --dirty` the search plugin merges
    each rebuild's entries into the last index, and mkdocs-static-i18n adds every pass's entries on top, so the
    index doubled with each rebuild. Keep the first entry of each section, in the index on disk and in the one
    the next rebuild merges into."""
    search = config.plugins.get("material/search")
    if search is None:
        return
    index_file = Path(config.site_dir) / "search" / "search_index.json"
    seen, unique = set(), []
    for entry in search.search_index.entries:
        key = (entry["location"], entry["title"], entry["text"])
        if key not in seen:
            seen.add(key)
            unique.append(entry)
    if len(unique) == len(search.search_index.entries):
        return
    search.search_index.entries[:] = unique
    if index_file.exists():
        data = json.loads(index_file.read_text(encoding="utf-8"))
        data["docs"] = unique
        index_file.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def hide_generated_files(files: Files, docs_dir: str) -> list[File]:
    """mkdocs-static-i18n 1.3.1 sorts the files of `docs/` by language in its `on_files` and drops or mislabels
    files that are not there: the figures, notebooks and downloads the chapters generate. Take them out before
    it runs; `restore_generated_files` puts them back after it."""
    held = []
    docs = Path(docs_dir)
    for file in list(files):
        if file.abs_src_path is None or (file.is_documentation_page() and docs not in Path(file.abs_src_path).parents):
            held.append(file)
            files.remove(file)
    return held


def restore_generated_files(held: list[File], files: Files, config: MkDocsConfig) -> None:
    """Put back the files `hide_generated_files` took out; mkdocs makes the `Page` of every documentation file
    before `on_nav`, so the notebook pages get theirs here."""
    for file in held:
        files.append(file)
        if file.is_documentation_page() and file.page is None:
            Page(None, file, config)


def set_language_links(config: MkDocsConfig, links: dict[str, str]) -> None:
    """mkdocs-static-i18n 1.3.1 sets the language switcher (`extra.alternate`, mkdocs-material's option) for each
    page from the page's translations; a page it did not sort (a notebook page) keeps the last page's links.
    Point each language's entry at `links[language]`, a site path. (mkdocs-static-i18n assigns the list as an
    attribute of `config.extra`, which the theme's template reads first.)"""
    entries = getattr(config.extra, "alternate", None) or config.extra.get("alternate") or ()
    for entry in entries:
        if entry.get("lang") in links:
            entry["link"] = links[entry["lang"]]
