"""What the build adds to a page, in the page's language: the "Run this chapter" box, the notebook list, the
troubleshooting table's prose, and links from a Chinese page to pages that exist in English only.

The words come from `i18n/strings.yml` and, for what a chapter prints and draws, from its folder
(`docs/<chapter>/strings.zh.yml`, the troubleshooting table's `table.zh.yml`); the chapter list from
`tutorial_tools.contents`. Every reader takes the root of the checkout being built; what they read is kept until
the next build starts (`forget`), so that `mkdocs serve` shows an edited word on its next rebuild.
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path

import yaml

from sitebuild.in_mkdocs import downloads
from tutorial_tools import contents

NOTEBOOK_DIR = "notebooks"
NOTEBOOK_LIST = "<!-- chapter notebooks -->"
TABLE = Path("docs", "troubleshooting", "table.zh.yml")  # in the checkout
# Links from a Chinese page to a page that only the English pass builds: a notebook or an API page.
ENGLISH_ONLY = re.compile(r"\]\((?:\.\./)*((?:notebooks|reference)/[\w-]+)\.(?:ipynb|md)(#[\w.-]*)?\)")


@functools.cache
def strings(language: str, root: Path) -> dict[str, str]:
    """The build's words in `language` (`en` or `zh`)."""
    return yaml.safe_load((root / "i18n" / "strings.yml").read_text(encoding="utf-8"))[language]


def forget() -> None:
    """Drop every word read so far: a build starts (`mkdocs serve` rebuilds in the same process)."""
    for reader in (strings, chapter_strings, output_phrases, figure_phrases):
        reader.cache_clear()


def chinese_interface(output: str, root: Path) -> str:
    """A Chinese page's HTML with the English texts of the theme and the Markdown extensions (permalink titles,
    the colour-scheme switch) in Chinese: `interface` in i18n/strings.yml."""
    for english, chinese in strings("zh", root)["interface"].items():
        output = output.replace(english, chinese)
    return output


def run_box(chapter: contents.Chapter, language: str, root: Path) -> str:
    """The folded box at the end of a chapter's page: its notebook, its downloads, its command."""
    words = strings(language, root)
    up = "../" * chapter.page_path.count("/")  # from the chapter's page to the top of docs/
    text = words["run_box"].format(name=chapter.slug, command=chapter.command, notebooks=up + NOTEBOOK_DIR, up=up)
    return f'??? example "{words["run_box_title"]}"\n\n    {text}\n'


def notebook_list(language: str, root: Path, repository: str) -> str:
    """The notebook page's list: every chapter in reading order, with its title in `language`."""
    words, lines = strings(language, root), []
    for chapter in contents.CHAPTERS:
        name = chapter.slug
        title = words["notebook_title"].format(title=chapter.heading(language))
        lines.append(
            f"- [{title}]({NOTEBOOK_DIR}/{name}.ipynb): [{name}.ipynb]({NOTEBOOK_DIR}/{name}/{name}.ipynb), "
            f"[{name}.py]({NOTEBOOK_DIR}/{name}/{name}.py), [Colab]({downloads.colab_url(name, repository)}), "
            f"`transformer-tutorial {chapter.command}`"
        )
    every = words["notebook_zip"].format(zip=f"{NOTEBOOK_DIR}/{downloads.ZIP_NAME}")
    return every + "\n\n" + "\n".join(lines)


def with_run_box(markdown: str, chapter: contents.Chapter, language: str, root: Path) -> str:
    """`markdown` with the run box, folded, at its end: the lesson comes first (the home page has none)."""
    if chapter.page_path == "index.md":
        return markdown
    return markdown.rstrip("\n") + "\n\n" + run_box(chapter, language, root)


def recorded_note(entries: list[dict], language: str, root: Path) -> str:
    """A note that the numbers above are a recorded run, not this build's, with each machine they ran on."""
    words = strings(language, root)
    machines = []
    for entry in entries:
        machine = entry.get("machine") or {}
        described = words["recorded_machine"].format(
            cpu=machine.get("cpu", "?"),
            threads=machine.get("torch_threads", "?"),
            torch=machine.get("torch", "?"),
            date=machine.get("date", "?"),
        )
        if described not in machines:
            machines.append(described)
    body = words["recorded_note"].format(machines=words["recorded_and"].join(machines))
    return f'!!! note "{words["recorded_title"]}"\n\n    {body}\n'


def rendered(chapter: str, section: str, data: object, language: str, root: Path) -> str | None:
    """The output of a section in `language`, when that edition renders it from data; else None (the printed
    text is shown)."""
    if language == "zh" and (chapter, section) == ("troubleshooting", "table"):
        return troubleshooting_table(data, root)
    return None


def troubleshooting_table(data: dict, root: Path) -> str:
    """The troubleshooting table in Chinese, from the rows the chapter ran: its problem, cause and fix columns
    from `docs/troubleshooting/table.zh.yml`; the symptoms and what the fix gives in Chinese where the site measured
    them, as printed where PyTorch printed them."""
    prose = yaml.safe_load((root / TABLE).read_text(encoding="utf-8"))  # keyed by the English title
    lines = [
        f"测量所用的 PyTorch 版本：{data['torch']}。",
        "",
        "| 问题 | 你看到的现象 | 原因 | 修复 | 修复之后 |",
        "|---|---|---|---|---|",
    ]
    for row in data["value"]:
        words = prose[row["title"]]
        symptom, after = measured_in_chinese(row["symptom"], root), measured_in_chinese(row["after"], root)
        if symptom == row["symptom"]:  # printed by PyTorch (or Python): shown as printed, as code
            symptom = f"`{symptom}`"
        symptom, after = symptom.replace("|", "\\|"), after.replace("|", "\\|")
        lines.append(f"| {words['title']} | {symptom} | {words['cause']} | {words['fix']} | {after} |")
    return "\n".join(lines)


def measured_in_chinese(text: str, root: Path) -> str:
    """A troubleshooting cell that the site measured, in Chinese (`outputs: table` in
    docs/troubleshooting/strings.zh.yml); an error message PyTorch printed stays as it is."""
    if re.match(r"\w*(Error|Warning)\b", text):
        return text
    return in_chinese("troubleshooting", "table", text, root)


STRINGS = "strings.zh.yml"  # in each chapter's folder: what it prints as prose and draws, in Chinese
PLACEHOLDER = re.compile(r"\{(\w+)(?::(number))?\}")
# Words a Chinese page may show in a chapter's printed prose: names of things, units and code, not English.
KEPT_WORDS = {"matmul", "softmax", "autocast", "bfloat16", "float32", "torch", "cpu", "dropout", "eval"}
KEPT_WORDS |= {"nan", "inf", "logits", "rad", "top"}
CODE_LIKE = re.compile(r"`[^`]*`|\$[^$]*\$|\\\(.*?\\\)|\b[\w.]*[._=()/\[\]][\w.=()/\[\]:-]*|\b[A-Z][\w-]*")


class Untranslated(ValueError):
    """A chapter printed prose or drew words that its `strings.zh.yml` does not put in Chinese."""


def english_words(text: str) -> list[str]:
    """The English words of `text`: lowercase words of three letters or more outside code, formulas and
    names (capitalised words, identifiers such as `nn.MultiheadAttention` or `need_weights=True`), units and
    `KEPT_WORDS`.

    Examples:
        >>> english_words("| nn.MultiheadAttention, need_weights=True | NaN | 2.3x | 12 ms |")
        []
        >>> english_words("| warm-up, then cosine to 0 | 预热 |")
        ['warm', 'then', 'cosine']
    """
    words = re.findall(r"[a-z][a-z0-9]{2,}", CODE_LIKE.sub(" ", text))
    return [word for word in words if word not in KEPT_WORDS]


def compiled_phrases(phrases: dict[str, str]) -> list[tuple[re.Pattern[str], str]]:
    """(English pattern, Chinese replacement) pairs, the longest English first, so that a phrase inside a longer
    one is put in Chinese after the longer one. `{name}` matches any text of one line and one table cell,
    `{name:number}` a number."""
    pairs = []
    for english, chinese in sorted(phrases.items(), key=lambda pair: -len(PLACEHOLDER.sub("", pair[0]))):
        pattern, last = "", 0
        for match in PLACEHOLDER.finditer(english):
            pattern += re.escape(english[last : match.start()])
            at_end = match.end() == len(english)
            wildcard = r"-?[\d.,]+" if match[2] == "number" else (r"[^|\n]+" if at_end else r"[^|\n]+?")
            pattern += f"(?P<{match[1]}>{wildcard})"
            last = match.end()
        pattern += re.escape(english[last:])
        replacement = PLACEHOLDER.sub(lambda m: f"\\g<{m[1]}>", chinese.replace("\\", "\\\\"))
        pairs.append((re.compile(pattern), replacement))
    return pairs


@functools.cache
def chapter_strings(chapter: str, root: Path) -> dict:
    """A chapter's `docs/<chapter>/strings.zh.yml`: `outputs` by section, `figures`; empty when it has none."""
    path = root / "docs" / chapter / STRINGS
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.exists() else {}


@functools.cache
def output_phrases(chapter: str, section: str, root: Path) -> list[tuple[re.Pattern[str], str]]:
    """The (English pattern, Chinese) pairs of what a section prints as prose, from its chapter's strings."""
    return compiled_phrases((chapter_strings(chapter, root).get("outputs") or {}).get(section) or {})


def in_chinese(chapter: str, section: str, text: str, root: Path) -> str:
    """What a section printed as Markdown (a table, a sentence), with its English phrases put in Chinese from
    `docs/<chapter>/strings.zh.yml`; the numbers and names stay as printed.

    Raises:
        Untranslated: If English words are left: the message names the lines to add to the file.
    """
    for pattern, chinese in output_phrases(chapter, section, root):
        text = pattern.sub(chinese, text)
    left = [line for line in text.splitlines() if english_words(line)]
    if left:
        raise Untranslated(
            f"docs/{chapter}/script.py, section {section!r}, printed English that the Chinese page shows "
            f"as prose; add its phrases under 'outputs: {section}:' in docs/{chapter}/{STRINGS}: {left[:3]}"
        )
    return text


FIGURE_WORDS = Path("i18n", "figures.zh.yml")  # in the checkout
CHINESE_FIGURES = "zh"  # figures/zh/<section>.svg
SVG_TEXT = re.compile(r"(<text\b[^>]*>)([^<]+)(</text>)")
# Chinese fonts the reader's system may have, after the figure's own: the site loads no web fonts.
CJK_FONTS = "'Noto Sans CJK SC', 'Source Han Sans SC', 'WenQuanYi Micro Hei', 'PingFang SC', 'Microsoft YaHei'"


@functools.cache
def figure_phrases(root: Path, chapter: str | None = None) -> list[tuple[re.Pattern[str], str]]:
    """The words several chapters draw (`i18n/figures.zh.yml`) and those of `chapter`'s own figures (`figures` in
    its strings), compiled like `output_phrases`, each phrase matching a whole text of a figure."""
    table = dict(yaml.safe_load((root / FIGURE_WORDS).read_text(encoding="utf-8")) or {})
    table.update(chapter_strings(chapter, root).get("figures") or {} if chapter else {})
    return [(re.compile(f"^{pattern.pattern}$"), chinese) for pattern, chinese in compiled_phrases(table)]


def figure_in_chinese(svg: str, root: Path, chapter: str | None = None) -> str:
    r"""A figure drawn as SVG with its words as text (`sitebuild/in_chapter/execute.py`), its words in Chinese from
    `i18n/figures.zh.yml` and `chapter`'s strings, in a font stack that has Chinese glyphs. Numbers, names and
    formulas stay.

    Examples:
        >>> svg = "<text style=\"font-family: 'DejaVu Sans'\" x=\"1\">key 3</text>"
        >>> chinese = figure_in_chinese(svg, Path())  # the checkout: here, the folder the tests run in
        >>> chinese.endswith('>键 3</text>') and "'Noto Sans CJK SC'" in chinese
        True

    Raises:
        Untranslated: If a text of the figure has English words that neither file translates.
    """
    left = []

    def translate(match: re.Match[str]) -> str:
        opening, text, closing = match.groups()
        english = html.unescape(text)
        for pattern, chinese in figure_phrases(root, chapter):
            if pattern.fullmatch(english):
                english = pattern.sub(chinese, english)
                break
        if english_words(english):
            left.append(english)
        opening = opening.replace("font-family: 'DejaVu Sans'", f"font-family: 'DejaVu Sans', {CJK_FONTS}")
        return opening + html.escape(english, quote=False) + closing

    chinese = SVG_TEXT.sub(translate, svg)
    if left:
        where = f"docs/{chapter}/{STRINGS} (under `figures`)" if chapter else "i18n/figures.zh.yml"
        raise Untranslated(f"the figure's words {sorted(set(left))} have no Chinese: add them to {where}")
    return chinese


def with_svg_figures(markdown: str, edition: str) -> str:
    """A page's figures as SVG, their words as text: `figures/<section>.png` becomes `figures/<section>.svg` on an
    English page and the Chinese SVG, `figures/zh/<section>.svg`, on a Chinese one.

    Examples:
        >>> with_svg_figures("![一张图](../figures/mask_maps_figure.png)", "zh")
        '![一张图](../figures/zh/mask_maps_figure.svg)'
        >>> with_svg_figures("![A map](figures/mask_maps_figure.png)", "en")
        '![A map](figures/mask_maps_figure.svg)'
    """
    folder = f"{CHINESE_FIGURES}/" if edition == "zh" else ""
    return re.sub(r"\]\(((?:\.\./)*)figures/(\w+)\.png\)", rf"](\1figures/{folder}\2.svg)", markdown)


def to_english_pages(markdown: str, page_url: str) -> str:
    """Point links to notebook and API pages at the English pass's pages, from the URL of this page."""
    root = "../" * page_url.count("/")
    return ENGLISH_ONLY.sub(lambda match: f"]({root}{match.group(1)}/{match.group(2) or ''})", markdown)
