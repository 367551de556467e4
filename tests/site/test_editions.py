"""The built Chinese edition: a page for every English page, the same build outputs, links that stay in the
edition (but for the English-only API reference and notebooks), and a language switch to the same page."""

import re
from html.parser import HTMLParser
from pathlib import PurePosixPath
from urllib.parse import urlsplit

import pytest
from conftest import REPORT, ROOT, site_prefix

ENGLISH = sorted(  # the pages by name: the chapters' folders and the other pages
    [p.parent.name for p in (ROOT / "docs").glob("*/index.md") if p.parent.name != "reference"]  # English only
    + [p.stem for p in (ROOT / "docs").glob("*.md") if not p.name.endswith(".zh.md")]
)
SHARED = ("reference/", "notebooks/", "figures/", "assets/", "stylesheets/", "javascripts/", "search/")


def built(site, page: str, chinese: bool):
    folder = site / "zh" if chinese else site
    return folder / ("index.html" if page == "index" else f"{page}/index.html")


class Page(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.links: list[str] = []
        self.switch: dict[str, str] = {}
        self.outputs: list[str] = []
        self.images: list[str] = []
        self._output_depth = 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "a" and attributes.get("href"):
            if "md-select__link" in classes:  # the language switch
                self.switch[attributes["hreflang"]] = attributes["href"]
            else:
                self.links.append(attributes["href"])
        if tag == "img":
            self.images.append(attributes.get("src", ""))
        if self._output_depth:
            self._output_depth += tag == "div"
        elif tag == "div" and "language-text" in classes:
            self._output_depth = 1
            self.outputs.append("")

    def handle_endtag(self, tag):
        if self._output_depth and tag == "div":
            self._output_depth -= 1

    def handle_data(self, data):
        if self._output_depth:
            self.outputs[-1] += data


SITE_PATH = site_prefix()


def resolve(page_dir: PurePosixPath, href: str) -> str:
    """The site path a link leads to, from a page's folder (an absolute path starts at the published site's root)."""
    if href.startswith("/"):
        page_dir, href = PurePosixPath(), href.removeprefix(SITE_PATH)
    parts = list(page_dir.parts)
    for piece in urlsplit(href).path.split("/"):
        if piece == "..":
            parts.pop()
        elif piece not in ("", "."):
            parts.append(piece)
    return "/".join(parts)


@pytest.mark.parametrize("page", ENGLISH)
def test_every_page_is_built_in_both_editions_with_the_same_outputs_and_figures(site, page):
    english, chinese = built(site, page, False), built(site, page, True)
    assert chinese.exists(), f"no Chinese page for {page}"
    html = chinese.read_text(encoding="utf-8")
    assert '<html lang="zh"' in html
    ours, theirs = Page(english.read_text(encoding="utf-8")), Page(html)
    assert theirs.outputs == ours.outputs, "a Chinese page shows the same printed outputs as its English page"
    figures = [src.rsplit("figures/", 1)[-1].removesuffix(".svg") for src in ours.images if "figures/" in src]
    chinese_figures = [src.rsplit("figures/zh/", 1)[-1] for src in theirs.images if "figures/" in src]
    assert chinese_figures == [f"{figure}.svg" for figure in figures]  # the same figures, in their Chinese version


def figure_texts(svg: str) -> list[str]:
    import html

    return [html.unescape(text).strip() for text in re.findall(r"<text\b[^>]*>([^<]+)</text>", svg)]


def test_every_figure_on_a_chinese_page_carries_chinese_text(site):
    """Each figure of a Chinese page is the SVG the chapter drew, its words as text elements, in Chinese: no
    English word is left, and a figure whose English version has words shows Chinese ones."""
    from sitebuild.in_mkdocs.editions import english_words

    shown = {
        src.rsplit("figures/zh/", 1)[-1]
        for page in ENGLISH
        for src in Page(built(site, page, True).read_text(encoding="utf-8")).images
        if "figures/zh/" in src
    }
    assert len(shown) > 30
    english_left, without_chinese = {}, []
    for name in sorted(shown):
        texts = figure_texts((site / "figures" / "zh" / name).read_text(encoding="utf-8"))
        left = [text for text in texts if english_words(text)]
        if left:
            english_left[name] = left
        worded = any(re.search("[A-Za-z]{2}", text) for text in texts)
        if worded and not any(re.search(r"[\u3400-\u9fff]", text) for text in texts):
            without_chinese.append(name)
    assert english_left == {} and without_chinese == []
    REPORT["figures on the Chinese pages, each in Chinese"] = str(len(shown))


@pytest.mark.parametrize("page", ENGLISH)
def test_links_on_a_chinese_page_stay_in_the_chinese_edition(site, page):
    html_path = built(site, page, True)
    page_dir = PurePosixPath(html_path.parent.relative_to(site).as_posix())
    leaving = []
    for href in Page(html_path.read_text(encoding="utf-8")).links:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("#") or "edit/main" in href:
            continue
        target = resolve(page_dir, href)
        if not (target == "zh" or target.startswith("zh/") or (target + "/").startswith(SHARED)):
            leaving.append(href)
        assert (site / target).is_file() or (site / target / "index.html").is_file(), href
    assert leaving == []


@pytest.mark.parametrize("page", ["index", "masks", "troubleshooting"])
def test_the_language_switch_names_the_same_page_in_the_other_edition(site, page):
    for chinese, other in ((True, "en"), (False, "zh")):
        html_path = built(site, page, chinese)
        page_dir = PurePosixPath(html_path.parent.relative_to(site).as_posix())
        href = Page(html_path.read_text(encoding="utf-8")).switch[other]
        expected = built(site, page, not chinese).parent.relative_to(site).as_posix()
        assert resolve(page_dir, href) == ("" if expected == "." else expected)


@pytest.mark.parametrize("chapter", ["overview", "masks", "kv_cache"])
def test_a_notebook_pages_switch_leads_to_itself_and_to_its_chapters_chinese_page(site, chapter):
    page_dir = PurePosixPath("notebooks", chapter)
    switch = Page((site / page_dir / "index.html").read_text(encoding="utf-8")).switch
    assert resolve(page_dir, switch["en"]) == page_dir.as_posix()
    assert resolve(page_dir, switch["zh"]) == ("zh" if chapter == "overview" else f"zh/{chapter}")


def test_each_404_page_is_in_its_language_and_switches_to_the_other_home_page(site):
    english, chinese = (site / "404.html").read_text("utf-8"), (site / "zh" / "404.html").read_text("utf-8")
    assert "404 - Not found" in english and "页面不存在" in chinese and "Not found" not in chinese
    assert resolve(PurePosixPath("zh"), Page(chinese).switch["en"]) == ""
    assert resolve(PurePosixPath(), Page(english).switch["zh"]) == "zh"


def test_the_chinese_troubleshooting_table_is_in_chinese_with_the_measured_symptoms(site):
    """Every column in Chinese, with the same measured numbers; an error message PyTorch printed stays as printed."""
    english = built(site, "troubleshooting", False).read_text(encoding="utf-8")
    chinese = built(site, "troubleshooting", True).read_text(encoding="utf-8")
    rows = lambda html: re.findall(r"<tr>(.*?)</tr>", html, re.S)  # noqa: E731
    cells = lambda row: re.findall(r"<td>(.*?)</td>", row, re.S)  # noqa: E731
    ours, theirs = rows(english), rows(chinese)
    assert len(ours) == len(theirs) > 10
    numbers = lambda cell: re.findall(r"\d+(?:\.\d+)?", re.sub(r"<[^>]+>", "", cell))  # noqa: E731
    for mine, translated in zip(ours[1:], theirs[1:], strict=True):
        assert all(re.search(r"[\u3400-\u9fff]", cells(translated)[i]) for i in (0, 2, 3))
        for column in (1, 4):  # what you see, and what the fix gives: the same measurement
            english, chinese = cells(mine)[column], cells(translated)[column]
            printed_by_pytorch = re.match(r"<code>\w*(Error|Warning)\b", english)
            assert chinese == english if printed_by_pytorch else re.search(r"[\u3400-\u9fff]", chinese), chinese
            assert sorted(numbers(chinese)) == sorted(numbers(english))


def test_each_edition_has_its_own_search_index_and_the_chinese_one_holds_chinese_words(site):
    import json

    english = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    index = json.loads((site / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert not [doc for doc in english["docs"] if doc["location"].startswith("zh/")]
    chinese = index["docs"]
    assert chinese and "zh" in index["config"]["lang"]
    assert all(re.search(r"[\u3400-\u9fff]", doc["title"] + doc["text"]) for doc in chinese if doc["text"])
    english_only = [doc["location"] for doc in chinese if re.match(r"reference/|notebooks/\w|zh/", doc["location"])]
    assert english_only == []  # the API pages and the notebooks are the English pass's
    # jieba cut the text, marking the cuts with zero-width spaces; the glossary's terms are whole words
    for term in ("注意力", "掩码", "位置编码"):
        assert any(f"\u200b{term}\u200b" in doc["text"] for doc in chinese), term


def test_chinese_pages_search_their_own_index_and_speak_chinese(site):
    """A Chinese page's search reads zh/search/ (the theme's `base` is the Chinese site's root); its permalink
    titles, colour-scheme switch and footer are in Chinese. An English page keeps the site's root and English."""
    chinese = built(site, "masks", True).read_text(encoding="utf-8")
    english = built(site, "masks", False).read_text(encoding="utf-8")
    assert '"base": "../../zh/"' in chinese and '"base": ".."' in english
    for text in ("Permanent link", "Switch to dark theme", "Switch to light theme", "Made with"):
        assert text not in chinese and text in english
    assert "本节链接" in chinese and "切换到深色模式" in chinese and "本站由" in chinese
    not_found = (site / "zh" / "404.html").read_text(encoding="utf-8")
    assert re.search(r'"base": "[^"]*/zh/"', not_found)


class Segments(HTMLParser):
    """The text a reader sees in a page's article, one segment per paragraph, list item, table cell, heading,
    caption and alt text; code, preformatted outputs and formulas left out."""

    BLOCKS = {"p", "li", "td", "th", "figcaption", "h1", "h2", "h3", "h4", "summary", "dt", "dd"}
    SKIPPED = {"code", "pre", "script", "style", "svg"}

    def __init__(self, html: str) -> None:
        super().__init__()
        self.segments: list[tuple[str, str]] = []
        self._open: list[tuple[str, str]] = []  # (kind, tag): kind is block, skipped or other
        self._texts: list[list[str]] = []
        self._article = 0
        self._skipped = 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self._article += tag == "article"
        if not self._article:
            return
        if tag in self.SKIPPED or "arithmatex" in (attributes.get("class") or ""):
            self._skipped += 1
            self._open.append(("skipped", tag))
        elif tag == "img":
            self.segments.append(("alt", attributes.get("alt") or ""))
        elif tag in self.BLOCKS:
            self._open.append(("block", tag))
            self._texts.append([])
        elif tag not in {"br", "hr", "input", "meta", "link"}:
            self._open.append(("other", tag))

    def handle_endtag(self, tag):
        if tag == "article":
            self._article -= 1
        while self._open:
            kind, opened = self._open.pop()
            if kind == "skipped":
                self._skipped -= 1
            elif kind == "block":
                self.segments.append((opened, " ".join("".join(self._texts.pop()).split())))
            if opened == tag:
                break

    def handle_data(self, data):
        if self._article and not self._skipped and self._texts:
            self._texts[-1].append(data)


def english_segments(html: str) -> list[str]:
    """The segments of a page with no Chinese and at least one English word (sitebuild.in_mkdocs.editions.english_words:
    names, identifiers, units and numbers are not English words)."""
    from sitebuild.in_mkdocs.editions import english_words

    return [
        f"{kind}: {text}"
        for kind, text in Segments(html).segments
        if not re.search(r"[\u3400-\u9fff]", text) and english_words(text)
    ]


def test_the_finder_of_english_segments_finds_them():
    html = (
        "<article><p>注意力（attention）</p><table><tr><td>constant rate</td><td>0.03 ± 0.01</td>"
        "<td>nn.MultiheadAttention</td></tr></table><pre><code>print('in code')</code></pre>"
        '<img alt="Line chart of the loss"><p>$\\text{if query}$ 与 <code>x</code></p></article>'
    )
    assert english_segments(html) == ["td: constant rate", "alt: Line chart of the loss"]


def test_no_chinese_page_shows_an_english_sentence_outside_code_and_printed_outputs(site):
    """Issue 22 counted 52 English segments on the Chinese pages (paragraphs, list items, table cells, captions,
    alt texts): generated tables, measured sentences, the troubleshooting columns."""
    found = {}
    for page in sorted((site / "zh").rglob("index.html")):
        segments = english_segments(page.read_text(encoding="utf-8"))
        if segments:
            found[str(page.parent.relative_to(site))] = segments
    REPORT["English segments on the Chinese pages"] = str(sum(len(s) for s in found.values()))
    assert found == {}
