"""The Chinese edition: a page for every English page, the same code and structure, translated prose,
one glossary used the same way everywhere, and a record of which English version each page translates."""

import re
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT
from snippets import page_name

sys.path.insert(0, str(ROOT / "scripts"))
import translations  # noqa: E402

from tutorial_code.troubleshooting import PROBLEMS  # noqa: E402

ENGLISH = translations.english_pages()
GLOSSARY = yaml.safe_load((ROOT / "i18n" / "glossary.yml").read_text(encoding="utf-8"))
TABLE = yaml.safe_load(translations.TABLE.read_text(encoding="utf-8"))
CJK = re.compile(r"[\u3400-\u9fff]")
INLINE = re.compile(r"`[^`\n]+`|\$\$.*?\$\$|\$[^$\n]+\$|<[^>\n]+>|\]\([^)\n]*\)|https?://\S+", re.S)


def chinese(page):
    return translations.chinese_of(page)


def prose(text: str) -> str:
    """A page's running text: no front matter, fenced blocks, headings, inline code, math, link targets or tags."""
    text = translations.FRONT_MATTER.sub("", text, count=1)
    kept = [line for line in translations.without_fences(text).splitlines() if not line.lstrip().startswith("#")]
    return INLINE.sub(" ", "\n".join(kept))


def includes(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "--8<--" in line]


def link_targets(text: str) -> list[str]:
    return sorted(re.findall(r"\]\(([^)\s]+)\)", text))


def test_every_english_page_has_a_chinese_edition_and_the_other_way_round():
    assert [chinese(page) for page in ENGLISH if not chinese(page).exists()] == []
    written = [*(ROOT / "docs").glob("*.zh.md"), *(ROOT / "docs").glob("*/*.zh.md")]
    orphans = [p for p in written if not p.with_name(p.name[: -len(".zh.md")] + ".md").exists()]
    assert orphans == []


@pytest.mark.parametrize("page", ENGLISH, ids=page_name)
def test_the_chinese_page_translates_the_current_english_page(page):
    recorded = translations.recorded_hash(chinese(page))
    assert recorded == translations.source_hash(page.read_text(encoding="utf-8")), (
        f"{page.relative_to(ROOT)} changed since {chinese(page).name} was translated: "
        "`python scripts/translations.py` shows the English diff; update the translation, then "
        f"`python scripts/translations.py stamp {page_name(page)}`"
    )


CHINESE_RESOURCES = ("https://zh.d2l.ai/",)  # a Chinese page may add these Chinese editions of what it links


@pytest.mark.parametrize("page", ENGLISH, ids=page_name)
def test_the_chinese_page_has_the_same_code_headings_and_links(page):
    english, translated = page.read_text(encoding="utf-8"), chinese(page).read_text(encoding="utf-8")
    assert includes(translated) == includes(english), "the --8<-- lines differ"
    levels = [level for _, level in translations.headings(translations.FRONT_MATTER.sub("", english, count=1))]
    assert [level for _, level in translations.headings(translated)] == levels
    chinese_only = [link for link in link_targets(translated) if link.startswith(CHINESE_RESOURCES)]
    assert [link for link in link_targets(translated) if link not in chinese_only] == link_targets(english)
    fences = re.compile(r"^\s*```", re.M)
    assert len(fences.findall(translated)) == len(fences.findall(english))


@pytest.mark.parametrize("page", ENGLISH, ids=page_name)
def test_the_chinese_headings_carry_the_english_anchors(page):
    """Links with an anchor work in both editions, and `stamp` put them there."""
    translated = chinese(page).read_text(encoding="utf-8")
    anchors = re.findall(r"\{ #([\w-]+) \}\s*$", translated, re.M)
    assert anchors == translations.heading_ids(page.read_text(encoding="utf-8"))


def running_text(page) -> str:
    text = prose(chinese(page).read_text(encoding="utf-8"))
    if page_name(page) == "troubleshooting":  # the table's prose comes first, from the YAML
        text = with_table_rows(text)
    return text


def with_table_rows(text: str) -> str:
    rows = " ".join(f"{row['title']} {row['cause']} {row['fix']}" for row in TABLE.values())
    head, _, tail = text.partition("\n\n")
    return f"{head}\n\n{INLINE.sub(' ', rows)}\n\n{tail}"


# The glossary's rules (i18n/glossary.yml, i18n/glossary_usage.yml): a gloss is the English in brackets right
# after a Chinese term, 注意力（attention）. It stands only after a technical term, at its first use in running
# text, once a page; never inside brackets, link text or alt text; never for an everyday word; never twice for one
# concept ("只含解码器（decoder）的模型（decoder-only model）"). Each concept has one Chinese form.
USAGE = yaml.safe_load((ROOT / "i18n" / "glossary_usage.yml").read_text(encoding="utf-8"))
PLAIN = {english.lower() for english in USAGE["plain"]}
REJECTED = [form for forms in USAGE["rejected"].values() for form in forms]
GLOSS = re.compile(r"(?<=[\u3400-\u9fff])\**[（(]([A-Za-z][^（）()\u3400-\u9fff\n]*)[）)]")
LINK_TARGET = re.compile(r"\]\([^)\n]*\)")


def glossed_text(text: str) -> str:
    """A page's running text as `prose`, but with each link's text kept between its brackets, [text]."""
    return prose(LINK_TARGET.sub("]", text))


def hidden_positions(text: str) -> list[bool]:
    """The characters inside brackets, link text or alt text: a gloss may not stand there."""
    hidden = [False] * len(text)
    for link in re.finditer(r"!?\[[^\[\]\n]*\]", text):
        hidden[link.start() : link.end()] = [True] * (link.end() - link.start())
    depth = 0
    for i, character in enumerate(text):
        if character == "\n":
            depth = 0
        elif character in "（(":
            hidden[i] = hidden[i] or depth > 0
            depth += 1
        elif character in "）)":
            depth = max(0, depth - 1)
            hidden[i] = hidden[i] or depth > 0
        else:
            hidden[i] = hidden[i] or depth > 0
    return hidden


def gloss_problems(text: str) -> list[str]:
    """Every break of the gloss rule in a page's running text (`glossed_text`)."""
    hidden, problems, seen = hidden_positions(text), [], set()
    glosses = list(GLOSS.finditer(text))
    for before, gloss in zip([None, *glosses], glosses, strict=False):
        english, where = gloss.group(1).strip(" ，,").lower(), text[max(0, gloss.start() - 12) : gloss.end()]
        if hidden[gloss.start(1) - 1]:
            problems.append(f"inside brackets or link text: {where}")
        if english in PLAIN:
            problems.append(f"an everyday word, no English: {where}")
        if english in seen:
            problems.append(f"the English once a page, at the first use: {where}")
        seen.add(english)
        if before is not None:
            between, earlier = text[before.end() : gloss.start()], before.group(1).strip().lower()
            if len(between) <= 12 and not re.search(r"[，。；：、,.;:\s和与及或]", between) and earlier in english:
                problems.append(f"two glosses for one concept: {text[before.start() - 8 : gloss.end()]}")
    outside = "".join("\0" if hide else character for character, hide in zip(text, hidden, strict=True))
    for english, term in GLOSSARY.items():
        if len(term) < 2 or english.lower() in PLAIN:  # 键 and 值 also occur inside everyday words
            continue
        masked = outside
        for longer in (t for t in GLOSSARY.values() if term in t and t != term):
            masked = masked.replace(longer, "\0" * len(longer))
        first = masked.find(term)
        if first >= 0 and not re.match(rf"\**[（(]{re.escape(english)}[）),，]", text[first + len(term) :], re.I):
            problems.append(
                f"the English at the first use, {term}（{english}）: {text[max(0, first - 10) : first + 20]}"
            )
    return problems


def competing_terms(text: str) -> list[str]:
    """The rejected forms of glossary terms (i18n/glossary_usage.yml) that a text uses outside code."""
    text = INLINE.sub(" ", LINK_TARGET.sub("]", translations.without_fences(translations.FRONT_MATTER.sub("", text))))
    return [f"{form}: {text[max(0, i - 15) : i + 15]}" for form in REJECTED for i in _positions(text, form)]


def _positions(text: str, form: str) -> list[int]:
    return [match.start() for match in re.finditer(re.escape(form), text)]


@pytest.mark.parametrize("page", ENGLISH, ids=page_name)
def test_a_glossary_term_gives_its_english_at_its_first_use_and_nowhere_else(page):
    text = glossed_text(chinese(page).read_text(encoding="utf-8"))
    if page_name(page) == "troubleshooting":
        text = with_table_rows(text)
    assert gloss_problems(text) == []


@pytest.mark.parametrize("page", ENGLISH, ids=page_name)
def test_each_concept_has_one_chinese_term_and_layernorm_is_code(page):
    text = chinese(page).read_text(encoding="utf-8")
    if page_name(page) == "troubleshooting":
        text += "\n\n" + " ".join(f"{row['title']} {row['cause']} {row['fix']}" for row in TABLE.values())
    assert competing_terms(text) == [], "use the glossary's term (i18n/glossary.yml); `LayerNorm` only in code"


def test_the_build_strings_of_chinese_pages_use_the_glossary_terms():
    def texts(value):
        return [value] if isinstance(value, str) else [t for v in value.values() for t in texts(v)]

    strings = yaml.safe_load((ROOT / "i18n" / "strings.yml").read_text(encoding="utf-8"))["zh"]
    assert competing_terms("\n\n".join(texts(strings))) == []


def test_the_glossary_usage_names_only_glossary_terms():
    english = {key.lower() for key in GLOSSARY}
    assert PLAIN <= english
    assert {key.lower() for key in USAGE["rejected"]} <= english
    assert set(USAGE["also_known_as"]) <= set(GLOSSARY.values()) | set(USAGE["kept_in_english"])
    assert not {term.lower() for term in USAGE["kept_in_english"]} & english
    assert not set(REJECTED) & set(GLOSSARY.values())


@pytest.mark.parametrize(
    ("paragraph", "problem"),
    [
        ("注意力（attention）很有用。梯度（gradient）从输出流回。", "an everyday word"),
        ("注意力（attention）有两种常见错误（少了一次转置、掩码（mask）错位了一格）。", "inside brackets"),
        ("注意力（attention）见[掩码（mask）]。", "inside brackets or link text"),
        ("注意力（attention）来自只含解码器（decoder）的模型（decoder-only model）。", "two glosses for one concept"),
        ("注意力（attention）在这里，注意力（attention）又在那里。", "the English once a page"),
        ("注意力分三步；注意力（attention）在这里。", "the English at the first use"),
        ("[注意力](x.md)很有用，掩码很有用。", "the English at the first use, 掩码"),
    ],
)
def test_the_gloss_rule_finds_each_kind_of_break(paragraph, problem):
    assert any(found.startswith(problem) for found in gloss_problems(glossed_text(paragraph)))


def test_the_gloss_rule_passes_a_page_that_keeps_it():
    paragraph = "注意力（attention）来自[掩码](masks.md)，掩码（mask）屏蔽键；梯度从输出流回（求和之后）。"
    assert gloss_problems(glossed_text(paragraph)) == []


@pytest.mark.parametrize(
    "paragraph",
    [
        "每个子层外都有残差连接和 LayerNorm。",
        "目标的平均数是 3.6。",
        "参见[排错页面](troubleshooting.md)。",
        "层规范化",
    ],
)
def test_a_competing_term_is_found_in_prose_and_not_in_code(paragraph):
    assert competing_terms(paragraph)
    assert competing_terms(f"`{paragraph}`\n\n```python\nLayerNorm\n```\n") == []


@pytest.mark.parametrize("page", ENGLISH, ids=page_name)
def test_no_paragraph_of_a_chinese_page_is_left_in_english(page):
    english_paragraphs = []
    for paragraph in re.split(r"\n\s*\n", running_text(page)):
        paragraph = re.sub(r"[（(][A-Za-z][^）)]*[）)]", " ", paragraph)  # the English given after a term
        words, characters = re.findall(r"[A-Za-z]{2,}", paragraph), CJK.findall(paragraph)
        if len(words) > 6 and len(characters) < len(words):
            english_paragraphs.append(paragraph.strip()[:80])
    assert english_paragraphs == []


def test_the_troubleshooting_table_is_translated_row_by_row_and_up_to_date():
    hashes = {p.title: translations.source_hash(f"{p.title}\n{p.cause}\n{p.fix}") for p in PROBLEMS}
    assert list(TABLE) == list(hashes)
    for title, row in TABLE.items():
        assert row["source_hash"] == hashes[title], f"{title!r} changed: update its translation, then stamp it"
        assert all(CJK.search(row[key]) and "|" not in row[key] for key in ("title", "cause", "fix")), title


@pytest.mark.integration
def test_the_status_command_reports_an_outdated_page(tmp_path, monkeypatch, capsys):
    page = tmp_path / "docs" / "masks.md"
    page.parent.mkdir()
    page.write_text("# Masks\n\nNew text.\n", encoding="utf-8")
    (tmp_path / "docs" / "masks.zh.md").write_text("---\nsource_hash: 000000000000\n---\n# 掩码\n", encoding="utf-8")
    monkeypatch.setattr(translations, "DOCS", tmp_path / "docs")
    assert translations.outdated() == [page]
    monkeypatch.setattr(translations, "ROOT", tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    monkeypatch.setattr(translations, "table_entries", lambda: {})
    assert translations.status() == 1
    assert "translates an older docs/masks.md" in capsys.readouterr().out
