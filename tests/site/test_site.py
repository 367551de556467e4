"""The strict site build, and what the built site must contain."""

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from conftest import ROOT, executed_chapters, stdout_of

PUBLIC_MODULES = sorted(  # every module readers copy has its page (a subpackage's as `diagrams.plots`)
    ".".join(p.relative_to(ROOT / "tutorial_code").with_suffix("").parts)
    for p in [*(ROOT / "tutorial_code").glob("*.py"), *(ROOT / "tutorial_code").glob("*/*.py")]
    if not p.stem.startswith("_")  # tooling lives in tutorial_tools
)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "link" and dict(attrs).get("rel") in ("canonical", "alternate", "prev", "next"):
            return  # names a page, loads nothing
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.urls.append((tag, value))


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_every_public_module_has_an_api_page(site):
    for module in PUBLIC_MODULES:
        page = site / "reference" / module / "index.html"
        assert page.exists(), f"no API page for tutorial_code.{module}"
        assert f"tutorial_code.{module}" in page.read_text(encoding="utf-8")


def test_the_api_reference_holds_the_curriculum_only(site):
    reference = {p.name for p in (site / "reference").iterdir() if p.is_dir()} - {"SUMMARY"}
    assert reference == set(PUBLIC_MODULES)
    assert not (site / "reference" / "cli").exists() and not (site / "reference" / "tutorial_tools").exists()
    assert not (site / "reference" / "sitebuild").exists()
    index = (site / "reference" / "index.html").read_text(encoding="utf-8")  # /reference/ lists every module
    assert all(f'href="{module}/"' in index for module in PUBLIC_MODULES)


def test_figures_are_built_and_not_committed(site):
    committed = subprocess.run(["git", "ls-files", "*.png", "*.svg"], cwd=ROOT, capture_output=True, text=True).stdout
    assert committed.strip() == ""
    figures = sorted((site / "figures").glob("*.png"))
    assert len(figures) >= 10
    for png in figures:  # the notebooks' figures
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        svg = png.with_suffix(".svg").read_text(encoding="utf-8")  # the pages' figure: the same drawing
        assert "<svg" in svg and ("<text" in svg or "<image" in svg)


def test_every_figure_is_used_with_alt_text(site):
    html = "".join(p.read_text(encoding="utf-8") for p in html_pages(site))
    for name in (svg.stem for svg in (site / "figures").glob("*.svg")):
        match = re.search(rf'<img[^>]*src="[^"]*figures/{name}\.svg"[^>]*>', html)
        assert match, f"figure {name} is not shown on any page"
        assert re.search(r'alt="[^"]{20,}"', match.group(0)), f"figure {name} needs a descriptive alt text"


def test_no_page_loads_anything_from_another_host(site):
    for page in html_pages(site):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for tag, url in parser.urls:
            if tag in ("script", "img", "link", "iframe", "source", "video", "audio"):
                assert not re.match(r"^(https?:)?//", url), f"{page.relative_to(site)} loads {url}"
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        for url in re.findall(r"url\(([^)]+)\)", text) + re.findall(r"@import\s+['\"]([^'\"]+)", text):
            assert not re.match(r"""^['"]?(https?:)?//""", url), f"{css.relative_to(site)} loads {url}"
    assert not list(site.rglob("*pyodide*")), "no file of markdown-exec's, which imports a stylesheet from a CDN"


def test_math_is_left_for_the_local_katex(site):
    page = (site / "scaled_dot_product_attention" / "index.html").read_text(encoding="utf-8")
    assert 'class="arithmatex"' in page
    assert (site / "assets" / "katex" / "katex.min.js").exists()


def test_outputs_were_produced_by_the_build(site):
    page = (site / "checking_against_pytorch" / "index.html").read_text(encoding="utf-8")
    assert "3,152,384" in page  # printed by the parameter_count section, not typed in the page
    assert "--8&lt;--" not in page and "--8<--" not in page
    assert "Traceback" not in page


class _Anchors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for key in ("id", "name"):
            if attributes.get(key):
                self.ids.add(attributes[key])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])


def test_every_internal_link_and_anchor_resolves(site):
    from urllib.parse import unquote, urlsplit

    from conftest import site_prefix

    prefix = site_prefix()
    parsed = {}
    for page in html_pages(site):
        parser = _Anchors()
        parser.feed(page.read_text(encoding="utf-8"))
        parsed[page] = parser
    broken, checked = [], 0
    for page, parser in parsed.items():
        for href in parser.links:
            url = urlsplit(href)
            if url.scheme or href.startswith("//"):
                continue  # links to other hosts are followed by readers, not loaded: not checked offline
            if url.path.startswith("/"):
                target = site / unquote(url.path).removeprefix(prefix).lstrip("/")
            else:
                target = (page.parent / unquote(url.path)).resolve() if url.path else page
            if target.is_dir() or not target.suffix:
                target = target / "index.html"
            checked += 1
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {href} (no file)")
            elif url.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else set()
                if unquote(url.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {href} (no anchor)")
    assert broken == []
    assert checked > 100


def test_every_page_has_its_own_meta_description(site):
    """A search result or a link preview shows the page's own first paragraph (sitebuild/in_mkdocs/descriptions.py),
    an API page the first line of its module's docstring; never the site's one sentence on every page."""
    found = {}
    for page in html_pages(site):
        relative = str(page.relative_to(site))
        if relative.startswith(("notebooks/", "zh/notebooks/", "404")) or relative.count("/") > 3:
            continue
        match = re.search(r'<meta name="description" content="([^"]*)"', page.read_text(encoding="utf-8"))
        assert match, f"{relative} has no meta description"
        found[relative] = match[1]
    shared = {text for text in found.values() if list(found.values()).count(text) > 1}
    assert shared == set(), {page: text for page, text in found.items() if text in shared}
    assert len(found) >= 70


def test_a_page_loads_katex_only_with_math_and_mkdocstrings_css_only_as_an_api_page(site):
    with_math = without_math = 0
    for page in html_pages(site):
        html = page.read_text(encoding="utf-8")
        relative = str(page.relative_to(site))
        if "notebooks/" in relative:  # a notebook's math is typeset from $...$ in its cells: KaTeX stays
            continue
        math = 'class="arithmatex"' in html
        with_math, without_math = with_math + math, without_math + (not math)
        assert ("katex.min.js" in html) == math, f"{relative}: KaTeX {'missing' if math else 'loaded without math'}"
        api = relative.startswith("reference/")
        assert ("_mkdocstrings.css" in html) == api, relative
    assert with_math >= 20 and without_math >= 20  # both kinds exist, so the rule was tried both ways


def test_the_figure_zoom_loads_after_the_content_and_code_has_no_plain_token_spans(site):
    """The zoom's script and stylesheet block no first paint (`page_assets.with_zoom_where_needed`, which must run
    after mkdocs-glightbox has added them), and highlighted code keeps only the spans that colour something
    (`code_tokens.lighter_code`)."""
    zoomed = 0
    for page in html_pages(site):
        html = page.read_text(encoding="utf-8")
        relative = str(page.relative_to(site))
        head = html[: html.find("<body")]
        assert "glightbox.min.js" not in head, f"{relative}: the zoom's script blocks the first paint"
        assert re.search(r'<link href="[^"]*glightbox\.min\.css" rel="stylesheet">', html) is None, relative
        zoomed += "glightbox.min.js" in html
        if "notebooks/" not in relative:
            plain = re.search(r'<span class="(n|p|o|w|s2|mi)">[^<]*</span>', html)  # a signature's types stay
            assert plain is None, f"{relative}: a span that colours nothing of its own: {plain[0]}"
    assert zoomed >= 20


def test_the_sitemap_lists_every_notebook_page(site):
    import gzip

    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    pages = sorted(p.parent.name for p in (site / "notebooks").glob("*/index.html"))
    assert len(pages) >= 15
    missing = [name for name in pages if f"/notebooks/{name}/</loc>" not in sitemap]
    assert missing == []
    assert gzip.decompress((site / "sitemap.xml.gz").read_bytes()).decode() == sitemap


def test_search_result_titles_show_math_as_text_and_no_zero_width_spaces(site):
    import json

    for index in (site / "search" / "search_index.json", site / "zh" / "search" / "search_index.json"):
        titles = [doc["title"] for doc in json.loads(index.read_text(encoding="utf-8"))["docs"]]
        assert [title for title in titles if "\\" in title or "$" in title] == []
        assert [title for title in titles if "\u200b" in title] == [], "jieba's cuts show as <wbr> in titles"
    assert "Multi-head attention and W_O" in titles or any("W_O" in title for title in titles)


CAPTION = re.compile(r"<figcaption>(.*?)</figcaption>", re.S)


def test_no_paragraph_ends_on_a_colon_with_nothing_after_it(site):
    """A paragraph that announces something (ending on a colon) is followed by it. Before a `python run="markdown"`
    fence, which shows only what its sections print, that means the sections printed something, or drew the figure
    that follows the fence."""
    from snippets import blocks, pages

    from sitebuild.in_mkdocs.chapters import chapter_scripts, read_notebook
    from tutorial_tools.sections import include

    printed = {}
    for name, run in executed_chapters().items():
        sections = read_notebook(chapter_scripts(ROOT)[name]).sections
        printed[name] = dict(zip(sections, stdout_of(run), strict=True))
    found = []
    for page in pages():
        lines = page.read_text(encoding="utf-8").splitlines()
        for block in blocks(page):
            if 'run="markdown"' not in block.options:
                continue
            before = next((line for line in reversed(lines[: block.line]) if line.strip()), "")
            if not before.rstrip().endswith((":", "：")):
                continue
            shown = ""
            for line in block.body:
                found_include = include(line)
                if found_include and found_include.path.endswith("script.py"):
                    chapter = Path(found_include.path).parent.name
                    shown += printed.get(chapter, {}).get(found_include.section, "")
            end = block.line + len(block.body) + 2  # the line after the closing fence
            after = next((line.strip() for line in lines[end:] if line.strip()), "")
            if not shown.strip() and not after.startswith(("<figure", "![")):  # a figure drawn there comes next
                found.append(f"{page.relative_to(ROOT)}, line {block.line}: {before.strip()[-80:]}")
    assert found == [], f"a paragraph announces an output that prints nothing: {found}"


def test_no_caption_shows_raw_tex(site):
    """A figure's caption is raw HTML, which the math extension does not read: a $...$ there is shown as typed."""
    found = [
        f"{page.relative_to(site)}: {caption[:80]}"
        for page in html_pages(site)
        for caption in CAPTION.findall(page.read_text(encoding="utf-8"))
        if re.search(r"\$[^$]+\$|\\\(", caption)
    ]
    assert found == [], found


def test_the_site_publishes_no_source_or_tool_file(site):
    """docs/ holds the chapters' scripts, checks, Chinese strings and the linter's settings beside the pages: none of
    them is part of the site (exclude_docs in mkdocs.yml). The notebooks' downloads are (notebooks/<chapter>/)."""
    found = [
        str(path.relative_to(site))
        for path in site.rglob("*")
        if path.suffix in (".py", ".yml", ".toml") and path.relative_to(site).parts[0] != "notebooks"
    ]
    assert found == [], found
