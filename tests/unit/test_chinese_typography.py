"""Chinese typography in the Chinese pages' own text: a percentage is written without a space ("10%", as Chinese
typesetting does), and the build's Chinese words put a space between Chinese and a Latin name it fills in."""

import re

import pytest
import yaml
from conftest import ROOT

ZH_PAGES = sorted((ROOT / "docs").rglob("*.zh.md"))


@pytest.mark.parametrize("page", ZH_PAGES, ids=lambda page: str(page.relative_to(ROOT / "docs")))
def test_a_percentage_has_no_space_before_its_sign(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # code keeps its own forms
    assert re.findall(r"\d %", text) == []


def test_a_latin_name_filled_into_chinese_words_is_set_apart_by_a_space():
    words = yaml.safe_load((ROOT / "i18n" / "strings.yml").read_text(encoding="utf-8"))["zh"]
    for key in ("recorded_note",):
        assert not re.search(r"[\u4e00-\u9fff]\{machines\}", words[key]), key
