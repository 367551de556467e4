"""What the build adds to a page, in the page's language: the "Run this chapter" box, the notebook list, the
troubleshooting table's prose, and links from a Chinese page to pages that exist in English only.

The words come from `i18n/strings.yml` and `i18n/troubleshooting.zh.yml`; the chapter list from
`tutorial_tools.contents`.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

import yaml

from tutorial_tools import contents

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = "notebooks"
NOTEBOOK_LIST = "<!-- chapter notebooks -->"
TABLE = ROOT / "i18n" / "troubleshooting.zh.yml"
# Links from a Chinese page to a page that only the English pass builds: a notebook or an API page.
ENGLISH_ONLY = re.compile(r"\]\(((?:notebooks|reference)/[\w-]+)\.(?:ipynb|md)(#[\w.-]*)?\)")


@functools.cache
def strings(language: str) -> dict[str, str]:
    """The build's words in `language` (`en` or `zh`)."""
    return yaml.safe_load((ROOT / "i18n" / "strings.yml").read_text(encoding="utf-8"))[language]


def chinese_interface(output: str) -> str:
    """A Chinese page's HTML with the English texts of the theme and the Markdown extensions (permalink titles,
    the colour-scheme switch) in Chinese: `interface` in i18n/strings.yml."""
    for english, chinese in strings("zh")["interface"].items():
        output = output.replace(english, chinese)
    return output


def run_box(chapter: contents.Chapter, language: str) -> str:
    """The admonition under a chapter's heading: its notebook, its downloads, its command."""
    words = strings(language)
    text = words["run_box"].format(name=chapter.slug, command=chapter.command, notebooks=NOTEBOOK_DIR)
    return f'!!! example "{words["run_box_title"]}"\n\n    {text}\n'


def notebook_list(language: str) -> str:
    """The notebook page's list: every chapter in reading order, with its title in `language`."""
    words, lines = strings(language), []
    for chapter in contents.CHAPTERS:
        name = chapter.slug
        title = words["notebook_title"].format(title=chapter.heading(language))
        lines.append(
            f"- [{title}]({NOTEBOOK_DIR}/{name}.ipynb): [{name}.ipynb]({NOTEBOOK_DIR}/{name}/{name}.ipynb), "
            f"[{name}.py]({NOTEBOOK_DIR}/{name}/{name}.py), `transformer-tutorial {chapter.command}`"
        )
    return "\n".join(lines)


def with_run_box(markdown: str, chapter: contents.Chapter, language: str) -> str:
    """`markdown` with the run box right under its first heading."""
    lines = markdown.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.startswith("# "):
            return "".join(lines[: index + 1]) + "\n" + run_box(chapter, language) + "\n" + "".join(lines[index + 1 :])
    return run_box(chapter, language) + "\n" + markdown


DATA = {("troubleshooting", "table"): "rows"}
"""(chapter, section): the chapter value that a page's edition renders in its own words, from the section's run."""


def as_data(value: object) -> object:
    """A chapter value as plain data (dataclasses become dicts), to keep in the executed notebook."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (list, tuple)):
        return [as_data(item) for item in value]
    return value


def rendered(chapter: str, section: str, data: object, language: str) -> str | None:
    """The output of a section in `language`, when that edition renders it from data; else None (the printed
    text is shown)."""
    if language == "zh" and (chapter, section) == ("troubleshooting", "table"):
        return troubleshooting_table(data)
    return None


def troubleshooting_table(data: dict) -> str:
    """The troubleshooting table in Chinese, from the rows the chapter ran: its problem, cause and fix columns
    from `i18n/troubleshooting.zh.yml`; the symptoms and what the fix gives as the run printed them."""
    prose = yaml.safe_load(TABLE.read_text(encoding="utf-8"))  # keyed by the English title
    lines = [
        f"测量所用的 PyTorch 版本：{data['torch']}。",
        "",
        "| 问题 | 你看到的现象 | 原因 | 修复 | 修复之后 |",
        "|---|---|---|---|---|",
    ]
    for row in data["value"]:
        words, symptom = prose[row["title"]], row["symptom"].replace("|", "\\|")
        lines.append(f"| {words['title']} | `{symptom}` | {words['cause']} | {words['fix']} | {row['after']} |")
    return "\n".join(lines)


def to_english_pages(markdown: str, page_url: str) -> str:
    """Point links to notebook and API pages at the English pass's pages, from the URL of this page."""
    root = "../" * page_url.count("/")
    return ENGLISH_ONLY.sub(lambda match: f"]({root}{match.group(1)}/{match.group(2) or ''})", markdown)
