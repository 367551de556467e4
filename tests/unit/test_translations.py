"""The Chinese edition: a page for every English page, the same code and structure, translated prose,
one glossary used the same way everywhere, and a record of which English version each page translates."""

import re
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT

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
    orphans = [p for p in (ROOT / "docs").glob("*.zh.md") if not p.with_name(p.name[: -len(".zh.md")] + ".md").exists()]
    assert orphans == []


@pytest.mark.parametrize("page", ENGLISH, ids=lambda p: p.stem)
def test_the_chinese_page_translates_the_current_english_page(page):
    recorded = translations.recorded_hash(chinese(page))
    assert recorded == translations.source_hash(page.read_text(encoding="utf-8")), (
        f"docs/{page.name} changed since {chinese(page).name} was translated: "
        "`python scripts/translations.py` shows the English diff; update the translation, then "
        f"`python scripts/translations.py stamp {page.stem}`"
    )


@pytest.mark.parametrize("page", ENGLISH, ids=lambda p: p.stem)
def test_the_chinese_page_has_the_same_code_headings_and_links(page):
    english, translated = page.read_text(encoding="utf-8"), chinese(page).read_text(encoding="utf-8")
    assert includes(translated) == includes(english), "the --8<-- lines differ"
    levels = [level for _, level in translations.headings(translations.FRONT_MATTER.sub("", english, count=1))]
    assert [level for _, level in translations.headings(translated)] == levels
    assert link_targets(translated) == link_targets(english)
    fences = re.compile(r"^\s*```", re.M)
    assert len(fences.findall(translated)) == len(fences.findall(english))


@pytest.mark.parametrize("page", ENGLISH, ids=lambda p: p.stem)
def test_the_chinese_headings_carry_the_english_anchors(page):
    """Links with an anchor work in both editions, and `stamp` put them there."""
    translated = chinese(page).read_text(encoding="utf-8")
    anchors = re.findall(r"\{ #([\w-]+) \}\s*$", translated, re.M)
    assert anchors == translations.heading_ids(page.read_text(encoding="utf-8"))


def running_text(page) -> str:
    text = prose(chinese(page).read_text(encoding="utf-8"))
    if page.stem == "troubleshooting":  # the table's prose comes first, from the YAML
        rows = " ".join(f"{row['title']} {row['cause']} {row['fix']}" for row in TABLE.values())
        head, _, tail = text.partition("\n\n")
        text = f"{head}\n\n{INLINE.sub(' ', rows)}\n\n{tail}"
    return text


@pytest.mark.parametrize("page", ENGLISH, ids=lambda p: p.stem)
def test_a_glossary_term_gives_its_english_at_its_first_use(page):
    text = running_text(page)
    wrong = {}
    for english, term in GLOSSARY.items():
        if len(term) < 2:  # 键 and 值 also occur inside everyday words
            continue
        masked = text
        for longer in (t for t in GLOSSARY.values() if term in t and t != term):
            masked = masked.replace(longer, "\0" * len(longer))
        first = masked.find(term)
        if first < 0:
            continue
        after = re.sub(r"^\**", "", masked[first + len(term) :])
        if not re.match(rf"[（(]{re.escape(english)}[）),，]", after, re.I):
            wrong[term] = masked[max(0, first - 10) : first + len(term) + 20]
    assert wrong == {}, "give the English in brackets at the first use: 注意力（attention）"


@pytest.mark.parametrize("page", ENGLISH, ids=lambda p: p.stem)
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
