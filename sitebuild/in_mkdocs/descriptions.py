"""Each page's meta description: its first paragraph of prose, as plain text.

Search engines and link previews show it; without one, every page would carry the site's description.
"""

from __future__ import annotations

import re

LIMIT = 160  # characters a search result shows
SKIPPED = ("#", "!", "<", "```", "--8<--", "|", "- ", "* ", "1.", ">", "???", "===", ":::", "{", "[TOC]")


def latex_as_text(text: str) -> str:
    r"""LaTeX commands as the words they stand for: `\sqrt{d_k}` as sqrt(d_k), `\infty` as ∞, `\mathrm{x}` as x.

    Examples:
        >>> latex_as_text(r"\sqrt{d_k} and -\infty, \operatorname{softmax}")
        'sqrt(d_k) and -∞, softmax'
    """
    text = re.sub(r"\\sqrt\{([^}]*)\}", r"sqrt(\1)", text).replace("\\infty", "∞")
    text = re.sub(r"\\(?:operatorname|mathrm|text)\{([^}]*)\}", r"\1", text)
    return re.sub(r"\\([A-Za-z]+)", r"\1", text).replace("{", "").replace("}", "")


def plain(text: str) -> str:
    r"""Markdown as plain text: no images, link targets, code marks, emphasis, math delimiters or attributes.

    Examples:
        >>> plain("Divide by $\\sqrt{d_k}$: see [chapter 2](../x.md) and `softmax` { .note }")
        'Divide by sqrt(d_k): see chapter 2 and softmax'
    """
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)  # images
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their words
    text = re.sub(r"\{[^}]*\.[\w-]+[^}]*\}", "", text)  # attribute lists: { .class }
    text = re.sub(r"[`*$\\]|(?<!\w)_|_(?!\w)", "", latex_as_text(text))
    return " ".join(text.split())


def description(markdown: str, limit: int = LIMIT) -> str | None:
    """The first paragraph of prose of a page's Markdown, plain, cut at a word (or, in Chinese, at a character)
    before `limit` characters; None for a page without prose.

    Examples:
        >>> description("# Title\\n\\n![a figure](f.png)\\n\\nAttention is a *weighted* mean of the value vectors.\\n")
        'Attention is a weighted mean of the value vectors.'
    """
    body = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.S)  # front matter
    for block in re.split(r"\n\s*\n", body):
        text = block.strip()
        if not text or text.startswith(SKIPPED) or block.startswith("    "):
            continue
        text = plain(text)
        if len(text) < 40:  # a label, not a paragraph
            continue
        if re.search(r"[\u4e00-\u9fff]", text):  # Chinese: a character is about two Latin ones wide
            limit = LIMIT // 2
        if len(text) <= limit:
            return text
        cut = text[: limit - 1]
        if " " in cut[limit // 2 :]:
            cut = cut[: cut.rindex(" ")]
        return cut.rstrip(",;:") + "…"
    return None
