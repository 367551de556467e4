"""Search in Chinese: jieba cuts Chinese text into words, and learns the glossary's terms as words."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from sitebuild.in_mkdocs.descriptions import latex_as_text

GLOSSARY = Path("i18n", "glossary.yml")  # in the checkout


def jieba_dictionary(root: Path) -> Path:
    """jieba's user dictionary made of the glossary's Chinese terms (written only when it changes), in the checkout
    `root`'s `.cache/`."""
    words = root / ".cache" / "jieba-glossary.txt"
    words.parent.mkdir(parents=True, exist_ok=True)
    glossary = yaml.safe_load((root / GLOSSARY).read_text(encoding="utf-8"))
    text = "".join(f"{term.replace(' ', '')} 1000 n\n" for term in glossary.values())
    if not words.exists() or words.read_text(encoding="utf-8") != text:
        words.write_text(text, encoding="utf-8")
    return words


USAGE = Path("i18n", "glossary_usage.yml")  # in the checkout
CHINESE = "zh"
CUT = "\u200b"  # how the search plugin's text marks jieba's cuts, and what its separator splits on
TITLE_CUT = "<wbr>"  # the same in a title, which results show as HTML: a cut that no reader sees, copies or hears


def other_names(root: Path) -> dict[str, list[str]]:
    """`{glossary term: [other names readers search for]}`, from `also_known_as` in i18n/glossary_usage.yml."""
    usage_file = root / USAGE
    usage = yaml.safe_load(usage_file.read_text(encoding="utf-8")) if usage_file.exists() else {}
    return {term: list(names) for term, names in (usage or {}).get("also_known_as", {}).items()}


def with_other_names(text: str, names: dict[str, list[str]]) -> str:
    """`text` followed by the other names of each glossary term it uses, each a word of its own for search, as
    many times as the term: a search for another name ranks the pages as a search for the term does.

    Examples:
        >>> with_other_names("\\u200b掩码\\u200b和\\u200b掩码", {"掩码": ["掩蔽"], "教师强制": ["强制教学"]})
        '\\u200b掩码\\u200b和\\u200b掩码\\u200b掩蔽\\u200b\\u200b掩蔽\\u200b'
    """
    plain = text.replace(CUT, "").lower()  # a term jieba cuts in two (KV 缓存) still counts, Dropout too
    found = [name for term, others in names.items() for name in others * plain.count(term.lower())]
    return text + "".join(f"{CUT}{name}{CUT}" for name in found)


def plain_title(title: str) -> str:
    r"""A heading as a search result shows it: its math as text, not as the LaTeX source KaTeX reads.

    Examples:
        >>> plain_title(r"Why divide by \(\sqrt{d_k}\)"), plain_title(r"What \(-\infty\) does")
        ('Why divide by sqrt(d_k)', 'What -∞ does')
    """
    return latex_as_text(title.replace("\\(", "").replace("\\)", ""))


def one_index_per_edition(site_dir: Path, root: Path, notebooks: list[tuple[str, str]] = ()) -> None:
    """Split the site's one search index into an English one (where it is) and a Chinese one (`zh/search/`).

    mkdocs-static-i18n gives both passes one index, so English and API pages ranked first for a query typed on
    the Chinese site. The Chinese index holds the Chinese pages only, located from the Chinese site's root
    (where `chinese_search_base` points the Chinese pages' search), and the other names of the glossary's
    terms, so that 强制教学 finds the page that teaches 教师强制. Chinese titles mark jieba's cuts with `<wbr>`,
    not with zero-width spaces, so that a result's title is the heading's text. The chapter pages' code blocks
    and outputs stay out of both indexes (`without_code_blocks`). Each notebook page, `(location, chapter
    heading)` in `notebooks`, gets one short English entry: the search plugin's own entries for it are left out
    (they repeat the chapter's code and outputs), and this one lets "notebook" or a chapter's name find it.
    """
    import json

    english_file = site_dir / "search" / "search_index.json"
    if not english_file.exists():
        return
    index = json.loads(english_file.read_text(encoding="utf-8"))
    for doc in index["docs"]:
        doc["title"] = plain_title(doc["title"])
    prefix = f"{CHINESE}/"
    chinese = [doc for doc in index["docs"] if doc["location"].startswith(prefix)]
    if not chinese:
        return
    names = other_names(root)
    english = {**index, "docs": [doc for doc in index["docs"] if not doc["location"].startswith(prefix)]}
    english["docs"] += [notebook_entry(location, heading) for location, heading in notebooks]
    for doc in chinese:
        doc["location"] = doc["location"].removeprefix(prefix)
        doc["text"] = with_other_names(doc["text"], names)
        doc["title"] = doc["title"].replace(CUT, TITLE_CUT)
    chinese_file = site_dir / CHINESE / "search" / "search_index.json"
    chinese_file.parent.mkdir(parents=True, exist_ok=True)
    for doc in index["docs"]:
        if not doc["location"].startswith("reference/"):
            doc["text"] = without_code_blocks(doc["text"])
    chinese_file.write_text(json.dumps({**index, "docs": chinese}, **COMPACT), encoding="utf-8")
    english_file.write_text(json.dumps(english, **COMPACT), encoding="utf-8")


COMPACT = {"separators": (",", ":"), "ensure_ascii": False}  # UTF-8: a Chinese character is 3 bytes, not 6
CODE_BLOCK = re.compile(r"<pre>.*?</pre>", re.S)


def without_code_blocks(text: str) -> str:
    """A page's search text without its code blocks and printed outputs, which were half of each index and
    which every page loads: prose, headings and inline code stay searchable, and the API pages keep their
    code (the index's one place for every name of the package).

    Examples:
        >>> without_code_blocks("<p>the <code>mask</code></p><pre><code>x = 1</code></pre><p>then</p>")
        '<p>the <code>mask</code></p> <p>then</p>'
    """
    return CODE_BLOCK.sub(" ", text)


def chinese_search_base(output: str) -> str:
    """A Chinese page's HTML with the theme's `base` (where its search index and results are found) at the
    Chinese site's root, `zh/`, so that its search uses the Chinese index.

    Examples:
        >>> chinese_search_base('<script id="__config" type="application/json">{"base": "../.."}</script>')
        '<script id="__config" type="application/json">{"base": "../../zh/"}</script>'
    """
    return re.sub(
        r'(<script id="__config" type="application/json">\{.*?"base": ")([^"]*)(")',
        lambda m: f"{m[1]}{m[2].rstrip('/')}/{CHINESE}/{m[3]}",  # a folder: the theme resolves URLs against it
        output,
        count=1,
        flags=re.S,
    )


def notebook_entry(location: str, heading: str) -> dict[str, str]:
    """The search entry of a notebook page."""
    text = (
        f"The executed notebook of chapter {heading}: its code, outputs and figures. Download it as .ipynb "
        "or as a jupytext .py script, or open it in Colab."
    )
    return {"location": location, "title": f"{heading}: the notebook", "text": text}
