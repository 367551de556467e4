"""Each page loads only the stylesheets and scripts it uses: KaTeX (273 KB of script, and a render-blocking
stylesheet) on pages with math, mkdocstrings' stylesheet on API pages, and the figure zoom (mkdocs-glightbox) on
pages with a figure, where its script moves from the head, where it blocks the first paint, to just before the
line that starts it, at the end of the page, and its stylesheet loads without blocking (a zoom is a click away).

MkDocs puts every `extra_css` and `extra_javascript` file, and every plugin's, on every page. The site does not use
instant navigation, so each page loads its own: taking a tag out of a page that does not need it is safe.
"""

from __future__ import annotations

import re

KATEX = re.compile(
    r'\s*<link [^>]*href="[^"]*assets/katex/katex\.min\.css"[^>]*>'
    r'|\s*<script [^>]*src="[^"]*(?:assets/katex/katex\.min\.js|assets/katex/contrib/auto-render\.min\.js'
    r'|javascripts/katex\.js)"[^>]*>\s*</script>'
)
MKDOCSTRINGS = re.compile(r'\s*<link [^>]*href="[^"]*assets/_mkdocstrings\.css"[^>]*>')
GLIGHTBOX_SCRIPT = re.compile(r'\s*<script src="(?P<src>[^"]*assets/javascripts/glightbox\.min\.js)"></script>')
GLIGHTBOX_STYLE = re.compile(r'<link href="(?P<href>[^"]*assets/stylesheets/glightbox\.min\.css)" rel="stylesheet">')
GLIGHTBOX_INIT = re.compile(r'<script id="init-glightbox">.*?</script>', re.S)


def needs_math(html: str) -> bool:
    """Whether the page has math for KaTeX: pymdownx.arithmatex wraps each formula in class="arithmatex"."""
    return 'class="arithmatex"' in html


def trimmed(html: str, api_page: bool, notebook_page: bool = False) -> str:
    """`html` without KaTeX where it has no math, and without mkdocstrings' stylesheet unless it is an API page.
    A notebook page keeps KaTeX: its Markdown cells' math is typeset from `$...$` in the page, not arithmatex's.

    Examples:
        >>> page = ('<link rel="stylesheet" href="../assets/katex/katex.min.css">'
        ...         '<script src="../assets/katex/katex.min.js"></script><p>No math.</p>')
        >>> trimmed(page, api_page=False)
        '<p>No math.</p>'
    """
    if not (needs_math(html) or notebook_page):
        html = KATEX.sub("", html)
    if not api_page:
        html = MKDOCSTRINGS.sub("", html)
    return with_zoom_where_needed(html)


def with_zoom_where_needed(html: str) -> str:
    """No figure zoom on a page without a zoomable figure; elsewhere its script just before its start, and its
    stylesheet loaded without blocking the first paint.

    Examples:
        >>> page = ('<link href="a/glightbox.min.css" rel="stylesheet">'.replace("a/", "assets/stylesheets/")
        ...         + '<script src="assets/javascripts/glightbox.min.js"></script><p>Text.</p>'
        ...         + '<script id="init-glightbox">GLightbox({});</script>')
        >>> with_zoom_where_needed(page)
        '<p>Text.</p>'
    """
    script, init = GLIGHTBOX_SCRIPT.search(html), GLIGHTBOX_INIT.search(html)
    if script is None or init is None:
        return html
    if 'class="glightbox"' not in html:
        return GLIGHTBOX_INIT.sub("", GLIGHTBOX_STYLE.sub("", GLIGHTBOX_SCRIPT.sub("", html)))
    html = GLIGHTBOX_SCRIPT.sub("", html)
    html = GLIGHTBOX_INIT.sub(lambda found: f'<script src="{script["src"]}"></script>{found[0]}', html, count=1)
    return GLIGHTBOX_STYLE.sub(
        lambda found: f'<link href="{found["href"]}" rel="stylesheet" media="print" onload="this.media=\'all\'">',
        html,
    )
