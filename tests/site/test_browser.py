"""The built site in a real browser: Debian's Chromium driven by Playwright, served on 127.0.0.1.

Where no browser is installed these tests skip with the reason, except under CI=true, where
they fail: CI must run them. `.ci/run` installs Chromium.
"""

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest
from conftest import REPORT, ROOT, site_prefix

playwright_api = pytest.importorskip("playwright.sync_api")

BROWSER_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "test-output" / "screenshots"
PHONE = {"width": 375, "height": 740}
DESKTOP = {"width": 1280, "height": 900}


def find_browser() -> str | None:
    for candidate in (
        os.environ.get("CHROMIUM"),
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site under its site_url path, and 404.html with status 404, as GitHub Pages does."""

    prefix = "/"

    def log_message(self, *args):
        pass

    def translate_path(self, path):
        path = urlsplit(path).path
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_the_site__")
        return super().translate_path("/" + path.removeprefix(self.prefix))

    def send_error(self, code, message=None, explain=None):
        not_found = Path(self.directory) / "404.html"
        if code != 404 or not not_found.exists():
            return super().send_error(code, message, explain)
        body = not_found.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="session")
def base_url(site):
    prefix = site_prefix()
    handler = functools.partial(type("Handler", (_SiteHandler,), {"prefix": prefix}), directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}{prefix}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    executable = find_browser()
    if executable is None:
        message = "no Chromium found (install Debian's chromium, or set CHROMIUM to a browser's path)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=BROWSER_FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def page_paths(site) -> list[str]:
    """Every page of the site, as a path below the site's root ("", "masks/", ...)."""
    paths = []
    for html in sorted(site.rglob("index.html")):
        relative = html.parent.relative_to(site).as_posix()
        paths.append("" if relative == "." else relative + "/")
    return paths


class PageWatcher:
    """Records what a page does that a reader would notice: errors, failed or foreign requests."""

    def __init__(self, page, host: str):
        self.problems: list[str] = []
        self.bytes = 0
        page.on("console", lambda m: m.type == "error" and self.problems.append(f"console error: {m.text}"))
        page.on("pageerror", lambda e: self.problems.append(f"script error: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url} ({r.failure})"))
        page.on("request", lambda r: self._check_host(r.url, host))
        page.on("response", self._on_response)

    def _check_host(self, url: str, host: str) -> None:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc != host:
            self.problems.append(f"request to another host: {url}")

    def _on_response(self, response) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")


SEARCH_CONFIG = {
    "lang": ["en"],
    "separator": "[\\s\\-]+",
    "pipeline": ["stopWordFilter"],
    "fields": {"title": {"boost": 1000.0}, "text": {"boost": 1.0}},
}


def visit(browser, url: str, viewport=DESKTOP, color_scheme="light", wait_until="networkidle", search=True):
    """Open `url` in a fresh context. With `search=False` the page gets an empty search index: every page load
    otherwise builds the index of both editions in the search worker (about 0.6 s a page here); the search tests
    load the real one."""
    context = browser.new_context(viewport=viewport, color_scheme=color_scheme)
    if not search:
        context.route(
            "**/search/search_index.json", lambda route: route.fulfill(json={"config": SEARCH_CONFIG, "docs": []})
        )
    page = context.new_page()
    watcher = PageWatcher(page, urlsplit(url).netloc)
    page.goto(url, wait_until=wait_until)
    # docs/javascripts/katex.js typesets the formulas off the screen while the browser is idle, then says so
    page.wait_for_function("() => !window.renderMathInElement || document.body.dataset.mathTypeset === 'all'")
    return context, page, watcher


PAGE_CHECKS = """async () => {
  const problems = [];
  for (const img of document.images) {
    if (img.loading === "lazy") {  // below the first screen: loaded as the reader scrolls; load it now
      img.loading = "eager";
      await img.decode().catch(() => {});
    }
    if (!img.complete || img.naturalWidth === 0) problems.push("image not loaded: " + img.src);
  }
  const formulas = document.querySelectorAll(".arithmatex");
  for (const formula of formulas) {
    if (!formula.querySelector(".katex")) problems.push("formula not typeset: " + formula.textContent.slice(0, 60));
  }
  for (const error of document.querySelectorAll(".katex-error")) problems.push("KaTeX error: " + error.title);
  for (const display of document.querySelectorAll(".md-content .katex-display")) {  // cut, or scrolled sideways
    if (display.scrollWidth > display.clientWidth + 1 && display.clientWidth > 0) {
      problems.push("formula wider than the column: " + display.textContent.slice(0, 60));
    }
  }
  for (const part of document.querySelectorAll(".md-sidebar, .md-footer")) {  // headings with math, listed
    for (const raw of ["\\\\(", "\\\\sqrt", "\\\\frac"]) {
      if (part.innerText.includes(raw)) problems.push("raw TeX in the navigation: " + raw);
    }
  }
  const text = document.querySelector(".md-content").innerText;
  for (const raw of ["\\\\frac", "\\\\sqrt", "\\\\operatorname", "$$"]) {
    const code = [...document.querySelectorAll(".md-content pre, .md-content code")].map(e => e.innerText).join("");
    if (text.includes(raw) && !code.includes(raw)) problems.push("raw LaTeX left in the page: " + raw);
  }
  return {problems, formulas: formulas.length};
}"""


WEIGHT = """() => performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
     .reduce((total, entry) => total + (entry.transferSize || entry.encodedBodySize || 0), 0)"""


def samples(page_paths: list[str], per_kind: int = 2) -> set[str]:
    """Every written English page, and the first `per_kind` notebook, API and Chinese pages (generated from one
    template each, or the same markup as their English page)."""
    chosen, seen = set(), {"notebooks/": 0, "reference/": 0, "zh/": 0}
    for path in page_paths:
        kind = next((k for k in seen if path.startswith(k)), None)
        if kind is None or seen[kind] < per_kind:
            chosen.add(path)
            if kind is not None:
                seen[kind] += 1
    return chosen


def audited(page_paths: list[str]) -> set[str]:
    """The pages axe-core audits (a few seconds each): the samples above, less every second numbered chapter (the
    chapters share one template and one set of content kinds: code, outputs, figures, formulas, tables)."""
    from tutorial_tools.contents import CHAPTERS

    skipped = {f"{c.slug}/" for c in CHAPTERS if c.number is not None and c.number % 2 == 0}
    return samples(page_paths) - skipped


EDIT_LINK = re.compile(r'<a href="([^"]*/edit/[^"]*)"[^>]*class="md-content__button')


def loads_only_the_template(html: str) -> bool:
    """A page with no image and no formula loads nothing but its template's assets."""
    return "<img" not in html and 'class="arithmatex' not in html


@pytest.fixture(scope="session")
def page_reports(browser, base_url, page_paths, site) -> dict[str, dict]:
    """One visit of every page (desktop, light theme), recording what the tests below check: what went wrong while
    it loaded, the page checks, its edit links, the bytes it transferred and axe-core's violations. API pages
    beyond the samples that hold no image and no formula are read from their HTML instead: they load only the
    template's assets, which the visited pages check (about a second a page saved, 28 pages)."""
    import time

    from axe_playwright_python.sync_playwright import Axe

    axe, reports, audit, start = Axe(), {}, audited(page_paths), time.perf_counter()
    sampled, visited = samples(page_paths), 0
    for path in page_paths:
        html = (site / path / "index.html").read_text(encoding="utf-8")
        if path.startswith("reference/") and path not in sampled and loads_only_the_template(html):
            checks = {"problems": [], "formulas": 0}
            reports[path] = {"checks": checks, "edit_links": EDIT_LINK.findall(html), "bytes": len(html.encode())}
            reports[path] |= {"violations": [], "problems": []}
            continue
        # "load": the images, styles and scripts are in, formulas typeset (networkidle adds half a second a page)
        context, page, watcher = visit(browser, base_url + path, wait_until="load", search=False)
        edit = page.locator("a.md-content__button[href*='/edit/']")
        reports[path or "home"] = {
            "checks": page.evaluate(PAGE_CHECKS),
            "edit_links": [edit.nth(i).get_attribute("href") for i in range(edit.count())],
            "bytes": page.evaluate(WEIGHT),
            "violations": (
                axe.run(page, options={"resultTypes": ["violations"]}).response["violations"] if path in audit else []
            ),
            "problems": list(watcher.problems),
        }
        visited += 1
        context.close()
    REPORT["browser pass over every page"] = (
        f"{time.perf_counter() - start:.1f} s, {visited} of {len(page_paths)} pages visited, axe-core audit of "
        f"{len(audit)}"
    )
    return reports


def test_every_page_loads_cleanly(page_reports, page_paths):
    problems, formulas = {}, 0
    for path, report in page_reports.items():
        formulas += report["checks"]["formulas"]
        if report["problems"] or report["checks"]["problems"]:
            problems[path] = report["problems"] + report["checks"]["problems"]
    REPORT["pages checked"] = str(len(page_paths))
    REPORT["formulas typeset"] = str(formulas)
    assert problems == {}
    assert formulas > 50


def test_sitemap_and_404_page(browser, base_url):
    context = browser.new_context()
    sitemap = context.request.get(base_url + "sitemap.xml")
    assert sitemap.status == 200 and "<urlset" in sitemap.text()
    context.close()
    context, page, watcher = visit(browser, base_url + "no/such/page/")
    # The missing page itself answers 404 (the browser logs that); nothing it loads may fail.
    expected = {f"HTTP 404: {base_url}no/such/page/"}
    console_404 = "console error: Failed to load resource: the server responded with a status of 404 (Not Found)"
    assert f"HTTP 404: {base_url}no/such/page/" in watcher.problems
    assert [p for p in watcher.problems if p not in expected and p != console_404] == []
    assert "404" in page.inner_text(".md-content")
    assert page.evaluate("[...document.styleSheets].length") > 1  # the theme loaded on a nested missing URL
    context.close()


def test_no_serious_accessibility_violations(page_reports):
    serious, counts = {}, {"minor": 0, "moderate": 0, "serious": 0, "critical": 0}
    for path, report in page_reports.items():
        for violation in report["violations"]:
            counts[violation["impact"]] = counts.get(violation["impact"], 0) + 1
            if violation["impact"] in ("serious", "critical"):
                serious.setdefault(path, []).append(f"{violation['id']}: {violation['help']}")
    REPORT["axe violations by impact (pages x rules)"] = ", ".join(f"{k} {v}" for k, v in counts.items())
    assert serious == {}


def test_search_finds_w_o_and_softmax(browser, base_url):
    context, page, _ = visit(browser, base_url)
    for query in ("W_O", "softmax"):
        page.click("input.md-search__input", force=True)
        page.fill("input.md-search__input", "")
        page.keyboard.type(query)
        page.wait_for_function(
            "q => [...document.querySelectorAll('.md-search-result__item')]"
            "  .some(item => item.innerText.toLowerCase().includes(q.toLowerCase()))",
            arg=query,
            timeout=15_000,
        )
        page.keyboard.press("Escape")
    context.close()


def test_copy_button_copies_the_code(browser, base_url):
    context, page, _ = visit(browser, base_url + "scaled_dot_product_attention/")
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    block = page.locator(".md-content pre").first
    block.hover()
    block.locator("button[data-md-type='copy']").click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "torch.softmax(" in copied  # the page opens with the six steps of attention
    assert copied.strip() == block.inner_text().strip()
    context.close()


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_figures_are_legible_in_both_themes(browser, base_url, color_scheme):
    context, page, _ = visit(browser, base_url + "multi_head_attention/", color_scheme=color_scheme)
    scheme = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
    assert scheme == ("slate" if color_scheme == "dark" else "default")
    # Figures carry their own white background, so dark text on them stays readable on a dark page.
    corner = page.evaluate(
        """() => {
          const img = document.querySelector("figure img");
          const canvas = document.createElement("canvas");
          canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
          const ctx = canvas.getContext("2d"); ctx.drawImage(img, 0, 0);
          return [...ctx.getImageData(2, 2, 1, 1).data];
        }"""
    )
    assert corner == [255, 255, 255, 255]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("figure").first.screenshot(path=SCREENSHOTS / f"figure-{color_scheme}.png")
    context.close()


WIDE_FORMULAS = """() => [...document.querySelectorAll(".md-content .katex-display")]
  .filter(display => display.clientWidth > 0 && display.scrollWidth > display.clientWidth + 1)
  .map(display => display.textContent.slice(0, 50))"""


def test_phone_viewport_has_no_horizontal_scrolling(browser, base_url, page_paths):
    """Every written English page, two of each generated kind (notebook, API page: one template each), and the
    Chinese pages with the widest tables (the others hold the same blocks as their English page, and Chinese text
    wraps between any two characters)."""
    wide, formulas = {}, {}
    chinese = {"zh/", "zh/troubleshooting/", "zh/best_practices/", "zh/where_to_go_next/"}
    for path in [p for p in sorted(samples(page_paths)) if not p.startswith("zh/")] + sorted(chinese):
        context, page, _ = visit(browser, base_url + path, viewport=PHONE, wait_until="load", search=False)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide[path or "home"] = width
        cut = page.evaluate(WIDE_FORMULAS)
        if cut:
            formulas[path or "home"] = cut
        context.close()
    assert wide == {}
    assert formulas == {}, f"display formulas wider than a phone's column (they scroll sideways): {formulas}"


def test_edit_links_point_at_files_in_the_repository(page_reports):
    import yaml  # shipped with mkdocs

    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    edit_prefix = config["repo_url"].rstrip("/") + "/edit/main/"
    wrong = {}
    for path, report in page_reports.items():
        if len(report["edit_links"]) != 1:
            wrong[path] = "no edit link"
        else:
            href = report["edit_links"][0]
            file = href.removeprefix(edit_prefix)
            if not href.startswith(edit_prefix) or not (ROOT / file).is_file():
                wrong[path] = href
    assert wrong == {}
    assert page_reports["reference/masks/"]["edit_links"][0].endswith("/tutorial_code/masks.py")


def test_page_weight_and_screenshots(browser, base_url, page_reports):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    weights = {path: report["bytes"] for path, report in page_reports.items()}
    heaviest = max((p for p in weights if p != "home"), key=weights.get)
    REPORT["bytes transferred, home page"] = f"{weights['home']:,} (and the search index, loaded once: " + (
        f"{len(urlopen(base_url + 'search/search_index.json').read()):,})"
    )
    REPORT[f"bytes transferred, heaviest page ({heaviest})"] = f"{weights[heaviest]:,}"
    for name, path in (("home", ""), ("chapter", "multi_head_attention/")):
        for device, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            context, page, _ = visit(browser, base_url + path, viewport=viewport)
            page.screenshot(path=SCREENSHOTS / f"{name}-{device}.png", full_page=True)
            context.close()
    assert all(weight > 0 for weight in weights.values())


CHINESE_QUERIES = [  # a term, and the pages that teach it (注意力 is on every page: the chapters named after it)
    ("注意力", ("zh/why_attention/", "zh/scaled_dot_product_attention/", "zh/multi_head_attention/")),
    ("掩码", ("zh/masks/",)),
    ("位置编码", ("zh/positional_encoding/",)),
    # other names readers know (i18n/glossary_usage.yml, also_known_as), which the pages do not use
    ("强制教学", ("zh/encoder_decoder/",)),
    ("困惑度", ("zh/language_model/",)),
    ("层规范化", ("zh/feed_forward_and_norm/",)),
    ("掩蔽", ("zh/masks/",)),
    ("KV缓存", ("zh/kv_cache/",)),  # a Latin term written against Chinese characters
    ("暂退法", ("zh/best_practices/",)),  # d2l-zh's name for dropout, which the pages keep in English
]
QUERY_IDS = [
    "attention",
    "mask",
    "positional-encoding",
    "qiangzhi-jiaoxue",
    "kunhuodu",
    "ceng-guifanhua",
    "yanbi",
    "kv-huancun",
    "zantuifa",
]


@pytest.mark.parametrize(("query", "pages"), CHINESE_QUERIES, ids=QUERY_IDS)
def test_search_finds_chinese_terms_on_the_chinese_pages(browser, base_url, query, pages):
    context, tab, watcher = visit(browser, base_url + "zh/")
    tab.click("input.md-search__input", force=True)
    tab.fill("input.md-search__input", query)  # typed Chinese arrives as one input event, without key presses
    tab.keyboard.press("End")  # the search reacts to a key
    tab.wait_for_selector(".md-search-result__item", timeout=15_000)
    found = tab.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
    titles = tab.eval_on_selector_all(
        ".md-search-result__article h1, .md-search-result__article h2", "titles => titles.map(t => t.textContent)"
    )
    assert titles and not [t for t in titles if "\u200b" in t or "<wbr>" in t], titles  # what a reader copies, hears
    found_pages = {urlsplit(href).path for href in found}
    assert {urlsplit(base_url + page).path for page in pages} & found_pages, sorted(found_pages)
    assert all(urlsplit(href).path.startswith(urlsplit(base_url).path + "zh/") for href in found), found
    assert watcher.problems == []
    context.close()


def test_an_english_word_searched_on_the_chinese_site_finds_chinese_pages(browser, base_url):
    """Both editions once shared one index, so "softmax" typed on the Chinese site listed English pages first."""
    context, tab, watcher = visit(browser, base_url + "zh/")
    tab.click("input.md-search__input", force=True)
    tab.fill("input.md-search__input", "softmax")
    tab.keyboard.press("End")
    tab.wait_for_selector(".md-search-result__item", timeout=15_000)
    found = tab.eval_on_selector_all(".md-search-result__item a", "links => links.map(a => a.href)")
    assert found and all(urlsplit(href).path.startswith(urlsplit(base_url).path + "zh/") for href in found), found
    assert watcher.problems == []
    context.close()


SWITCHES = [  # the page, and where its switch to the other language leads
    ("zh/masks/", "masks/"),
    ("masks/", "zh/masks/"),
    ("zh/", ""),
    ("notebooks/masks/", "zh/masks/"),  # a notebook exists in English only: to its chapter's Chinese page
    ("zh/404.html", ""),  # the Chinese 404 page: to the English home page
    ("404.html", "zh/"),
]


@pytest.mark.parametrize(("start", "target"), SWITCHES)
def test_the_language_switch_leads_to_the_same_page(browser, base_url, start, target):
    context, page, watcher = visit(browser, base_url + start)
    language = "en" if start.startswith("zh/") else "zh"
    page.hover(".md-header__option .md-select")
    with page.expect_navigation():
        page.click(f".md-select__link[hreflang='{language}']", force=True)
    page.wait_for_load_state("networkidle")
    assert page.url == base_url + target
    assert page.evaluate("document.documentElement.lang") == language
    assert watcher.problems == []  # no sitemap.xml or other request fails on the way
    context.close()


def test_screenshots_of_chinese_pages(browser, base_url):
    """Home, multi-head attention and troubleshooting in Chinese, for a reader's eye (a CJK font must be installed
    on the machine that takes them: .ci/run installs one)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in (
        ("home", "zh/"),
        ("multi-head-attention", "zh/multi_head_attention/"),
        ("troubleshooting", "zh/troubleshooting/"),
    ):
        context, page, watcher = visit(browser, base_url + path)
        assert "注意力" in page.inner_text(".md-content") or "故障" in page.inner_text(".md-content")
        page.screenshot(path=SCREENSHOTS / f"zh-{name}.png", full_page=False)
        assert watcher.problems == []
        context.close()


TEXT_BOXES = """() => [...document.querySelectorAll("svg text")].map(t => {
  const r = t.getBoundingClientRect();
  return [t.textContent.trim(), r.left, r.top, r.right, r.bottom];
})"""


def overlapping(boxes: list) -> list[tuple[str, str]]:
    """Pairs of texts of a figure whose boxes cross by more than a pixel each way."""
    found = []
    for i, (text, left, top, right, bottom) in enumerate(boxes):
        for other, left2, top2, right2, bottom2 in boxes[i + 1 :]:
            if text and other and left < right2 - 1 and left2 < right - 1 and top < bottom2 - 1 and top2 < bottom - 1:
                found.append((text, other))
    return found


@pytest.mark.parametrize("path", ["zh/", "zh/masks/", "zh/positional_encoding/"])
def test_chinese_figures_render_their_text_without_overlaps(browser, base_url, path):
    """Three Chinese pages with figures, screenshotted (test-output/screenshots/zh-*.png): each figure is the
    Chinese SVG, loaded, and no two of its texts (set in the reader's Chinese font) overlap."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context, page, watcher = visit(browser, base_url + path, search=False)
    sources = page.eval_on_selector_all("img[src*='figures/zh/']", "imgs => imgs.map(i => i.src)")
    assert sources and all(src.endswith(".svg") for src in sources)
    name = path.strip("/").replace("/", "-") or "zh-home"
    page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)
    assert watcher.problems == []
    figure = context.new_page()  # each SVG inline, so that its texts can be measured where the browser set them
    for src in sources:
        svg = urlopen(src).read().decode("utf-8")
        figure.set_content(f"<html><body style='margin:0'>{svg[svg.find('<svg') :]}</body></html>")
        boxes = figure.evaluate(TEXT_BOXES)
        assert any(re.search(r"[\u3400-\u9fff]", box[0]) for box in boxes), src
        assert all(box[3] > box[1] for box in boxes if box[0]), src  # every text drawn with a width
        assert overlapping(boxes) == [], src
    context.close()


# The attention explorer (docs/javascripts/explorer.js): chapter 11's trained model in the page.

EXPLORER_FORWARD = """async ([ids, causal, off]) => {
    const model = await window.attentionExplorer.loadModel('../explorer/language_model.json');
    const result = window.attentionExplorer.forward(model, ids, {causal, off: new Set(off)});
    return {
        logits: Array.from(result.logits),
        weights: result.weights.map((layer) => layer.map((head) => head.map((row) => Array.from(row)))),
    };
}"""


def pytorch_forward(model, ids, causal=True, off=()):
    """Chapter 11's model on the hand-written attention, with the causal mask on or off and the heads in `off`
    ("layer:head") replaced by zeros before W_O: what the explorer's switches do."""
    import copy

    import torch

    from tutorial_code.masks import causal_mask

    model = copy.deepcopy(model)
    d_k = model.embedding.embedding_dim // model.layers[0].attention.num_heads
    with torch.no_grad():
        for name in off:
            layer, head = map(int, name.split(":"))
            model.layers[layer].attention.W_O.weight[:, head * d_k : (head + 1) * d_k] = 0
        tokens = torch.tensor([ids])
        x = model.positions(model.embedding(tokens))
        mask = causal_mask(len(ids)) if causal else None
        weights = []
        for layer in model.layers:
            x, w = layer(x, mask=mask)
            weights.append(w[0])
        return model.output(model.final_norm(x))[0], weights


@pytest.fixture(scope="module")
def explorer(browser, base_url, site):
    """The language model page with its explorer loaded, and the same model in PyTorch from the site's file."""
    import json

    from tutorial_code.browser_export import from_browser_model

    exported = json.loads((site / "explorer" / "language_model.json").read_text(encoding="utf-8"))
    context, page, watcher = visit(browser, base_url + "language_model/", search=False)
    page.locator(".attention-explorer").scroll_into_view_if_needed()
    page.wait_for_selector(".attention-explorer[data-ready=true]", timeout=30_000)
    yield page, from_browser_model(exported), exported["chars"], watcher
    context.close()


@pytest.mark.parametrize(
    ("text", "causal", "off"),
    [
        ("The value of the ", True, []),
        ("A function call", False, []),  # the mask switched off
        ('The "return" statement leaves', True, ["0:1", "1:3"]),  # two heads switched off
    ],
)
def test_the_explorer_computes_what_pytorch_computes(explorer, text, causal, off):
    import torch

    page, model, chars, watcher = explorer
    ids = [chars.index(c) for c in text]
    result = page.evaluate(EXPLORER_FORWARD, [ids, causal, off])
    logits, weights = pytorch_forward(model, ids, causal, off)
    theirs = torch.tensor(result["logits"]).view(len(ids), -1)
    assert (theirs - logits).abs().max().item() <= 1e-4
    for layer, layer_weights in enumerate(weights):
        assert (torch.tensor(result["weights"][layer]) - layer_weights).abs().max().item() <= 1e-4
    if not causal:  # the switch really changes something: a query now reads a later key
        assert any(w[0, 1:].sum().item() > 0.01 for w in weights[0])
    assert watcher.problems == []


EXPLORER_WRITES = """async ([ids, off]) => {
    // one character at a time with the prefix cache, as the page writes, then once without it
    const {loadModel, forward} = window.attentionExplorer;
    const model = await loadModel('../explorer/language_model.json');
    const cache = {};
    let cached;
    for (let t = 3; t <= ids.length; t++) cached = forward(model, ids.slice(0, t), {off: new Set()}, cache);
    cached = forward(model, ids, {}, cache);  // the same text again (a slider moved): all rows from the cache
    const switched = forward(model, ids, {off: new Set(off)}, cache);  // a head off: the cache cannot serve
    const whole = forward(model, ids, {off: new Set(off)});
    const plain = forward(model, ids, {});
    const rows = (r) => r.weights.map((layer) => layer.map((head) => head.map((row) => Array.from(row))));
    return {
        cached: Array.from(cached.logits), plain: Array.from(plain.logits),
        cachedWeights: rows(cached), plainWeights: rows(plain),
        switched: Array.from(switched.logits), whole: Array.from(whole.logits),
    };
}"""


def test_the_explorer_s_prefix_cache_gives_what_a_whole_forward_pass_gives(explorer):
    """Writing a character reuses the rows of the text before it (under the causal mask they cannot change):
    the logits and weights are those of a pass over the whole text, and of PyTorch."""
    import torch

    page, model, chars, _ = explorer
    ids = [chars.index(c) for c in "The value of the return"]
    result = page.evaluate(EXPLORER_WRITES, [ids, ["1:2"]])
    assert (torch.tensor(result["cached"]) - torch.tensor(result["plain"])).abs().max().item() <= 1e-6
    assert (torch.tensor(result["cachedWeights"]) - torch.tensor(result["plainWeights"])).abs().max().item() <= 1e-6
    assert (torch.tensor(result["switched"]) - torch.tensor(result["whole"])).abs().max().item() <= 1e-6
    logits, _ = pytorch_forward(model, ids)
    assert (torch.tensor(result["cached"]).view(len(ids), -1) - logits).abs().max().item() <= 1e-4


def test_the_explorer_s_sliders_do_what_they_say(explorer):
    import torch

    page, model, chars, _ = explorer
    ids = [chars.index(c) for c in "The value of the "]
    with torch.no_grad():
        last = model(torch.tensor([ids]))[0][0, -1]
    checks = page.evaluate(
        """(logits) => {
            const {probabilities, draw} = window.attentionExplorer;
            const cold = probabilities(logits, 1e-4, 1);
            const us = [0, 0.25, 0.5, 0.75, 0.999];
            return {
                coldDraws: us.map((u) => draw(cold, u)),
                plain: probabilities(logits, 1, 1),
                nucleus: probabilities(logits, 1, 0.5),
            };
        }""",
        last.tolist(),
    )
    assert set(checks["coldDraws"]) == {int(last.argmax())}  # temperature -> 0: always the argmax
    softmax = torch.softmax(last, dim=-1)
    assert (torch.tensor(checks["plain"]) - softmax).abs().max().item() <= 1e-6  # top-p = 1 changes nothing
    nucleus = torch.tensor(checks["nucleus"])
    kept = nucleus > 0
    assert softmax[kept].sum() >= 0.5 and softmax[kept].sum() - softmax[kept].min() < 0.5  # the smallest set
    assert abs(nucleus.sum().item() - 1) < 1e-6


def test_the_explorer_answers_typing_and_the_keyboard(explorer):
    page, _, _, watcher = explorer
    root = page.locator(".attention-explorer")
    root.locator("textarea").fill("Attention")
    assert root.locator(".explorer-table tr[tabindex]").count() == len("Attention")  # one row per character
    assert root.locator(".explorer-bars li").count() == 10
    root.locator(".explorer-table tr[tabindex]").nth(3).focus()
    reads = root.locator(".explorer-reads").inner_text()
    assert reads.startswith("Query “e” (position 3) reads:")
    before = root.locator("textarea").input_value()
    root.get_by_role("button", name="Add one character").click()
    assert len(root.locator("textarea").input_value()) == len(before) + 1
    assert watcher.problems == []


def test_the_explorer_loads_its_model_only_when_it_comes_into_view_and_speaks_chinese(browser, base_url):
    context, page, watcher = visit(browser, base_url + "zh/language_model/", search=False)
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.wait_for_timeout(500)
    assert not any(url.endswith("language_model.json") for url in requested)  # not at the top of the page
    page.locator(".attention-explorer").scroll_into_view_if_needed()
    page.wait_for_selector(".attention-explorer[data-ready=true]", timeout=30_000)
    assert any(url.endswith("language_model.json") for url in requested)
    assert page.locator(".attention-explorer").get_by_role("button", name="添加一个字符").count() == 1
    assert watcher.problems == []
    context.close()


def test_figures_below_the_first_load_lazily_with_their_size(browser, base_url):
    context, page, watcher = visit(browser, base_url + "encoder_decoder/", search=False)
    figures = page.locator("article img[src*='figures/']")
    assert figures.count() >= 4
    sizes = figures.evaluate_all("(images) => images.map((i) => [i.getAttribute('width'), i.getAttribute('loading')])")
    assert all(width is not None for width, _ in sizes)  # no layout shift while they load
    assert sizes[0][1] is None and {loading for _, loading in sizes[1:]} == {"lazy"}
    figures.nth(0).click()  # a click opens the figure full size
    page.wait_for_selector(".glightbox-container .gslide-image img", timeout=5_000)
    assert watcher.problems == []
    context.close()


@pytest.mark.parametrize("numbers", [[3, 1, 4, 1, 5, 9, 2, 6], [7, 7], [0, 9, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9]])
def test_the_sum_model_in_the_page_computes_what_pytorch_computes(browser, base_url, site, numbers):
    import json

    import torch

    from tutorial_code.browser_export import from_browser_digit_model

    exported = json.loads((site / "explorer" / "sum_model.json").read_text(encoding="utf-8"))
    model = from_browser_digit_model(exported)
    context, page, watcher = visit(browser, base_url + "training/", search=False)
    page.locator(".attention-explorer").scroll_into_view_if_needed()
    page.wait_for_selector(".attention-explorer[data-ready=true]", timeout=30_000)
    result = page.evaluate(
        """async ([numbers, off]) => {
            const model = await window.attentionExplorer.loadModel('../explorer/sum_model.json');
            const on = window.attentionExplorer.forward(model, numbers);
            const without = window.attentionExplorer.forward(model, numbers, {off: new Set(off)});
            const rows = (r) => r.weights.map((l) => l.map((h) => h.map((row) => Array.from(row))));
            return {prediction: on.prediction, weights: rows(on), without: without.prediction};
        }""",
        [numbers, ["0:0"]],
    )
    with torch.no_grad():
        prediction, weights = model(torch.tensor([numbers], dtype=torch.float32))
        d_k = exported["d_model"] // exported["num_heads"]
        model.layers[0].attention.W_O.weight[:, :d_k] = 0  # head 0 of layer 0 switched off
        without, _ = model(torch.tensor([numbers], dtype=torch.float32))
    assert abs(result["prediction"] - prediction.item()) <= 1e-4
    assert abs(result["without"] - without.item()) <= 1e-4
    for layer, layer_weights in enumerate(weights):
        assert (torch.tensor(result["weights"][layer]) - layer_weights[0]).abs().max().item() <= 1e-4
    shown = page.locator(".attention-explorer .explorer-guesses").inner_text()
    assert shown.startswith("The model's sum: ") and "add up to 31" in shown  # the page's own 3 1 4 1 5 9 2 6
    assert watcher.problems == []
    context.close()


FIGURE_TEXT = """async () => {
  // For each figure: the size of its smallest words as shown, from the SVG's own width (pt) and font sizes (pt),
  // and whether its <figure> must scroll sideways to show it.
  const found = [];
  for (const img of document.querySelectorAll("article img[src*='figures/']")) {
    const svg = new DOMParser().parseFromString(await (await fetch(img.src)).text(), "image/svg+xml");
    const root = svg.documentElement;
    const sizes = [...svg.querySelectorAll("text")]
      .map((t) => parseFloat(t.style.fontSize || t.getAttribute("font-size")))
      .filter((size) => size > 0);
    if (!sizes.length) continue;
    const shown = img.getBoundingClientRect().width;
    const figure = img.closest("figure");
    found.push({
      name: img.src.split("/").pop(),
      smallest: Math.min(...sizes) * shown / parseFloat(root.getAttribute("width")),
      scrolls: figure.scrollWidth > figure.clientWidth + 1,
      leftEdgeShown: img.getBoundingClientRect().left >= figure.getBoundingClientRect().left - 1,
    });
  }
  return found;
}"""


def test_every_figure_shows_its_words_at_11_px_or_more(browser, base_url, site):
    """Every figure of every chapter page (and of one Chinese page: the Chinese figures are the same drawings),
    measured as the browser shows it, on a desktop and on a phone: its smallest words at least 11 px tall. On a
    desktop every figure fits the column; on a phone a figure wider than the column scrolls sideways in its
    <figure>, its left edge in view, and the page itself does not scroll sideways."""
    paths = sorted(
        str(page.parent.relative_to(site)) + "/"
        for page in site.glob("*/index.html")
        if "figures/" in page.read_text(encoding="utf-8") and not page.parent.name.startswith(("notebooks", "zh"))
    ) + ["zh/multi_head_attention/"]
    small, hidden, wide = [], [], []
    scrolling = {DESKTOP["width"]: [], PHONE["width"]: []}
    for path in paths:
        context, page, _ = visit(browser, base_url + path, viewport=DESKTOP, wait_until="load", search=False)
        for viewport in (DESKTOP, PHONE):  # one load, two widths
            page.set_viewport_size(viewport)
            for figure in page.evaluate(FIGURE_TEXT):
                where = f"{path}{figure['name']} at {viewport['width']} px"
                if figure["smallest"] < 11 - 0.05:
                    small.append((where, round(figure["smallest"], 1)))
                if figure["scrolls"]:
                    scrolling[viewport["width"]].append(where)
                if not figure["leftEdgeShown"]:
                    hidden.append(where)
            if page.evaluate("document.documentElement.scrollWidth") > viewport["width"]:
                wide.append(f"{path} at {viewport['width']} px")
        context.close()
    assert len(paths) >= 15
    assert small == [] and hidden == [] and wide == []
    assert scrolling[DESKTOP["width"]] == []
    REPORT["figures that scroll sideways on a 375-px phone, their words kept at 11 px"] = (
        f"{len(scrolling[PHONE['width']])} on {len(paths)} pages; none on a desktop"
    )


def test_the_explorer_s_controls_show_keyboard_focus_and_pass_axe_in_the_dark_scheme(browser, base_url):
    """Tab lands on a checkbox with a visible ring, and in the dark scheme axe-core finds no contrast failure
    in the explorer (its buttons were 2.34:1 on the theme's primary colour)."""
    from axe_playwright_python.sync_playwright import Axe

    context, page, _ = visit(browser, base_url + "training/", color_scheme="dark", search=False)
    page.locator(".attention-explorer").scroll_into_view_if_needed()
    page.wait_for_selector(".attention-explorer[data-ready=true]", timeout=30_000)
    box = page.locator(".attention-explorer input[type=checkbox]").first
    box.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # focus from the keyboard: :focus-visible applies
    outline = box.evaluate("e => [getComputedStyle(e).outlineStyle, getComputedStyle(e).outlineWidth]")
    assert outline[0] != "none" and outline[1] != "0px", outline
    violations = Axe().run(page, context=".attention-explorer", options={"runOnly": ["color-contrast"]})
    assert violations.response["violations"] == [], violations.generate_report()
    context.close()


DARK_AUDITED = ["", "scaled_dot_product_attention/", "masks/", "training/", "language_model/", "zh/training/"]


def test_the_dark_scheme_passes_axe_contrast(browser, base_url):
    """The pages with the most kinds of content (code, outputs, tables, admonitions, the explorer), in the dark
    scheme: axe-core's colour-contrast rule finds nothing."""
    from axe_playwright_python.sync_playwright import Axe

    failures = {}
    for path in DARK_AUDITED:
        context, page, _ = visit(browser, base_url + path, color_scheme="dark", wait_until="load", search=False)
        explorer = page.locator(".attention-explorer")
        if explorer.count():
            explorer.scroll_into_view_if_needed()
            page.wait_for_selector(".attention-explorer[data-ready=true]", timeout=30_000)
        found = Axe().run(page, options={"runOnly": ["color-contrast"]}).response["violations"]
        nodes = [node["target"][0] for violation in found for node in violation["nodes"]]
        if nodes:
            failures[path or "home"] = (len(nodes), nodes[:4])
        context.close()
    assert failures == {}, failures
