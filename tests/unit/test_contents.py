"""The table of contents (tutorial_tools/contents.py) is the one description of each chapter: the navigations,
the pages, the scripts and the command line agree with it."""

import re

import pytest
from conftest import ROOT
from snippets import folded_blocks, nav_pages, page_name

from tutorial_tools import contents, sections
from tutorial_tools.contents import CHAPTERS

CJK = re.compile(r"[\u4e00-\u9fff]")
DOCS = ROOT / "docs"


def first_heading(path) -> str:
    line = next(line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
    return re.sub(r"\s*\{ #[\w-]+ \}$", "", line[2:]).replace("$", "").strip()


def test_every_chapter_script_is_in_the_table_of_contents_and_every_entry_has_its_script_and_pages():
    scripts = {path.parent.name for path in DOCS.glob("*/script.py")}
    assert scripts == {chapter.slug for chapter in CHAPTERS}
    for chapter in CHAPTERS:
        assert (DOCS / chapter.page_path).exists()
        assert (DOCS / chapter.page_path.replace(".md", ".zh.md")).exists()


def test_the_two_navigations_list_the_same_pages_in_the_same_places_with_chinese_titles():
    def shape(nav):  # the nav with its titles left out: pages and sections, in order
        return [shape(value) if isinstance(value, list) else value for item in nav for value in item.values()]

    def titles(nav):
        for item in nav:
            for title, value in item.items():
                yield title
                if isinstance(value, list):
                    yield from titles(value)

    english = [item for item in contents.navigation("en") if "reference/" not in item.values()]  # English only
    assert shape(contents.navigation("zh")) == shape(english)
    assert all(CJK.search(title) for title in titles(contents.navigation("zh")))
    assert [page_name(page) for page in nav_pages()][:3] == ["index", "why_attention", "scaled_dot_product_attention"]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda chapter: chapter.slug)
def test_each_page_and_script_carries_the_title_of_the_table_of_contents(chapter):
    assert first_heading(DOCS / chapter.page_path) == chapter.title
    assert first_heading(DOCS / chapter.page_path.replace(".md", ".zh.md")) == chapter.title_zh
    script_heading = next(
        line for line in (ROOT / chapter.script).read_text("utf-8").splitlines() if line.startswith("# # ")
    )
    assert script_heading[4:] == chapter.heading()


def test_each_module_is_listed_under_the_chapter_that_shows_its_code_first():
    first_page: dict[str, str] = {}
    for page in nav_pages():
        for block, _ in folded_blocks(page):
            for found in filter(None, map(sections.include, block.body)):
                module = found.path.removeprefix("tutorial_code/").removesuffix(".py")
                if found.path.startswith("tutorial_code/") and "/" not in module:
                    first_page.setdefault(module, str(page.relative_to(DOCS)))
    listed = {module: chapter.page_path for chapter in CHAPTERS for module in chapter.teaches}
    assert listed == first_page


def test_numbers_run_from_one_without_a_gap():
    numbers = [chapter.number for chapter in CHAPTERS if chapter.number is not None]
    assert numbers == list(range(1, len(numbers) + 1))


def test_every_chapter_folder_has_its_entry_and_its_line_in_the_order():
    entries = {path.parent.name for path in DOCS.glob(f"*/{contents.ENTRY_FILE}")}
    assert entries == {chapter.slug for chapter in CHAPTERS}


def test_an_entry_with_a_misspelt_field_is_refused_with_the_fields_it_may_have(tmp_path):
    folder = tmp_path / "minimal"
    folder.mkdir()
    (folder / contents.ENTRY_FILE).write_text("title: A\ntitle_zh: 甲\nteachs: [masks]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"unknown fields \['teachs'\].*'teaches'"):
        contents.read_entry(folder)
    (folder / contents.ENTRY_FILE).write_text("title: A\nnumbered: false\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"missing fields \['title_zh'\]"):
        contents.read_entry(folder)


def test_the_values_a_chapter_publishes_are_values_it_keeps():
    for chapter in CHAPTERS:
        assert set(dict(chapter.publishes)) <= set(dict(chapter.data)), chapter.slug
