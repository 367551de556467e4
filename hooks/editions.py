"""MkDocs hook: the Chinese edition, which mkdocs-static-i18n builds as a second pass over the same site.

The English pass runs the chapters (`hooks/chapters.py`); the Chinese pass reuses that run, so code,
printed outputs and figures are the same build outputs in both editions. This hook:

- `on_config`: gives jieba, which cuts Chinese text into words for search, the glossary's terms.
- `on_files`, `on_nav`: set aside the files that hooks/chapters.py generates (figures, notebooks,
  downloads: they are not in docs/) while mkdocs-static-i18n sorts the files of docs/ by language,
  then put them back.
- `on_nav`: the Chinese navigation ends with a link to the API reference, which exists in English only.
- `on_pre_build`, `on_post_build`: log each pass's time; keep the search index from growing with every
  rebuild of `mkdocs serve` (see the functions).
- `on_post_page`: no request for a sitemap that does not exist (see the function).
- `on_page_markdown`: on a Chinese page, links to a notebook or API page lead to the English page (the
  Chinese pass builds only the translated pages), and the troubleshooting table's prose columns come
  from `i18n/troubleshooting.zh.yml`.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Link, Navigation
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "i18n" / "glossary.yml"
TABLE = ROOT / "i18n" / "troubleshooting.zh.yml"
# Links from a Chinese page to a page that only the English pass builds: a notebook or an API page.
ENGLISH_ONLY = re.compile(r"\]\(((?:notebooks|reference)/[\w-]+)\.(?:ipynb|md)(#[\w.-]*)?\)")
held: list[File] = []
log = get_plugin_logger(__name__)
started: list[tuple[str, float]] = []  # the passes under way: the Chinese one runs inside the English one
took: dict[str, float] = {}


def is_chinese(page: Page) -> bool:
    return page.file.src_uri.endswith(".zh.md")


@event_priority(100)  # before the search plugin reads its settings
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    search = config.plugins.get("material/search")
    if search is not None:
        words = ROOT / ".cache" / "jieba-glossary.txt"
        words.parent.mkdir(parents=True, exist_ok=True)
        glossary = yaml.safe_load(GLOSSARY.read_text(encoding="utf-8"))
        text = "".join(f"{term.replace(' ', '')} 1000 n\n" for term in glossary.values())
        if not words.exists() or words.read_text(encoding="utf-8") != text:
            words.write_text(text, encoding="utf-8")
        search.config["jieba_dict_user"] = str(words)
    return config


def on_pre_build(config: MkDocsConfig) -> None:
    language = config.theme["language"]
    started.append((language, time.perf_counter()))
    i18n = config.plugins.get("i18n")
    if language == "en" and i18n is not None:
        # mkdocs-static-i18n collects each pass's search entries into this list and never empties it, so every
        # rebuild of `mkdocs serve` added the whole index again (and its duplicate check grew quadratically:
        # a prose edit took 40 s after three rebuilds). A build starts with the English pass: start it empty.
        i18n.search_entries.clear()


@event_priority(-200)  # after mkdocs-static-i18n, whose English on_post_build runs the whole Chinese pass
def on_post_build(config: MkDocsConfig) -> None:
    """Log how long each pass took (scripts/measure_build.py reads it), and leave one search entry per section."""
    language, start = started.pop()  # the theme's language is still the Chinese pass's when the English one ends
    took[language] = time.perf_counter() - start
    if language == "zh":
        return
    chinese = took.pop("zh", 0.0)
    log.info(f"the English pass took {took['en'] - chinese:.1f} s, the Chinese pass took {chinese:.1f} s")
    site = Path(config.site_dir)
    for edition, page in (("en", site / "404.html"), ("zh", site / "zh" / "404.html")):
        if edition in not_found and page.parent.is_dir():
            page.write_text(not_found.pop(edition), encoding="utf-8")
    search = config.plugins.get("material/search")
    if search is not None:
        one_search_entry_per_section(search, Path(config.site_dir) / "search" / "search_index.json")


def one_search_entry_per_section(search, index_file: Path) -> None:
    """Under `mkdocs serve --dirty`, the search plugin merges each rebuild's entries into the last index and
    mkdocs-static-i18n adds every pass's entries on top: the index doubled with each rebuild (a prose edit took
    40 s after a few). Keep the first entry of each section, in the index on disk and in the one the next
    rebuild merges into."""
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


@event_priority(-50)  # after mkdocs-jupyter has turned notebooks into pages, before mkdocs-static-i18n (-100)
def on_files(files: Files, config: MkDocsConfig) -> Files:
    docs = Path(config.docs_dir)
    held.clear()
    for file in list(files):
        generated = file.abs_src_path is None
        if generated or (file.is_documentation_page() and docs not in Path(file.abs_src_path).parents):
            held.append(file)
            files.remove(file)
    return files


@event_priority(-150)  # after mkdocs-static-i18n; mkdocs made the Page of every documentation file before this
def on_nav(nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
    for file in held:
        files.append(file)
        if file.is_documentation_page() and file.page is None:
            Page(None, file, config)
    held.clear()
    if config.theme["language"] == "zh":  # the Chinese pass: its nav ends with the English API reference
        nav.items.append(Link("API 参考（英文）", "reference/SUMMARY/"))
    return nav


def to_english_pages(markdown: str, page: Page) -> str:
    """Point links to notebook and API pages at the English pass's pages, from this page's URL."""
    root = "../" * page.url.count("/")
    return ENGLISH_ONLY.sub(lambda match: f"]({root}{match.group(1)}/{match.group(2) or ''})", markdown)


def translated_table(markdown: str) -> str:
    """The troubleshooting table with its problem, cause and fix columns in Chinese; the symptoms stay
    as this version of PyTorch printed them."""
    rows = yaml.safe_load(TABLE.read_text(encoding="utf-8"))
    lines = []
    for line in markdown.splitlines():
        if line.startswith("Measured with torch "):
            line = f"测量所用的 PyTorch 版本：{line.removeprefix('Measured with torch ').rstrip('.')}。"
        elif line == "| Problem | What you see | Cause | Fix | After the fix |":
            line = "| 问题 | 你看到的现象 | 原因 | 修复 | 修复之后 |"
        else:
            for title, row in rows.items():
                if line.startswith(f"| {title} | "):
                    symptom, _, _, after = line.removeprefix(f"| {title} | ").rsplit(" | ", 3)
                    line = f"| {row['title']} | {symptom} | {row['cause']} | {row['fix']} | {after}"
                    break
        lines.append(line)
    return "\n".join(lines)


@event_priority(-10)  # after hooks/chapters.py has filled in the outputs
def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if not is_chinese(page):
        return markdown
    if page.file.src_uri == "troubleshooting.zh.md":
        markdown = translated_table(markdown)
    return to_english_pages(markdown, page)


HEAD_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Drop the `<link rel="alternate" hreflang>` tags of the head. Material's script fetches `sitemap.xml`
    next to each of them, and mkdocs-static-i18n points them at this page in each language, where there is
    no sitemap: two failed requests on every page. The language selector keeps its links to the same page."""
    head, end, body = output.partition("</head>")
    return HEAD_ALTERNATE.sub("", head) + end + body


not_found: dict[str, str] = {}  # the 404 page of each edition


def on_post_template(output: str, template_name: str, config: MkDocsConfig) -> str:
    """The same for the 404 page, which is a template rather than a page. Both passes write it to the site's
    root, so on_post_build puts the English one back there, and the Chinese one into zh/."""
    if template_name != "404.html":
        return output
    output = on_post_page(output, None, config)
    not_found[config.theme["language"]] = output
    return output
