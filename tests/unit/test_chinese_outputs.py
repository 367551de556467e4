"""What chapters print as prose is put in Chinese on Chinese pages, from each chapter's strings.zh.yml, or the build
stops."""

import re

import pytest
import yaml
from conftest import ROOT

from sitebuild.in_mkdocs import editions


def test_a_table_and_a_sentence_are_put_in_chinese_with_their_numbers():
    table = (
        "| learning rate 0.01, 200 steps | held-out MSE: mean ± std of 3 seeds | each seed |\n|---|---|---|\n"
        "| warm-up, then cosine to 0 | 0.0124 ± 0.0040 | 0.0164, 0.0121, 0.0085 |\n"
        "| warm-up | 0.0177 ± 0.0133 | 0.0330, 0.0094, 0.0106 |"
    )
    chinese = editions.in_chinese("best_practices", "schedule", table, ROOT)
    assert chinese.splitlines()[0] == "| 学习率 0.01，200 步 | 留出 MSE：3 个种子的均值 ± 标准差 | 各种子 |"
    assert "| 预热，然后按余弦降到 0 | 0.0124 ± 0.0040 |" in chinese and "| 预热 | 0.0177" in chinese


def test_english_left_in_a_printed_table_stops_the_build_and_names_the_file():
    wanted = r"under 'outputs: behaviour_table:' in docs/masks/strings.zh.yml: \['\| a row nobody translated \|'\]"
    with pytest.raises(editions.Untranslated, match=wanted):
        editions.in_chinese("masks", "behaviour_table", "| implementation |\n|---|\n| a row nobody translated |", ROOT)


def test_the_troubleshooting_cells_keep_pytorch_messages_and_translate_measurements():
    error = "RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x32 and 64x64)"
    assert editions.measured_in_chinese(error, ROOT) == error
    assert editions.measured_in_chinese("held-out MSE after 200 steps: 0.637", ROOT) == "训练 200 步后的留出 MSE：0.637"


def every_phrase():
    """`(where, English, Chinese)` for each phrase of the chapters' strings and of the shared figure words."""
    for path in sorted(ROOT.glob(f"docs/*/{editions.STRINGS}")):
        strings = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert set(strings) <= {"outputs", "figures"}, path
        for section, phrases in (strings.get("outputs") or {}).items():
            yield from ((f"{path.parent.name}:{section}", english, chinese) for english, chinese in phrases.items())
        yield from ((f"{path.parent.name} figures", *pair) for pair in (strings.get("figures") or {}).items())
    shared = yaml.safe_load((ROOT / editions.FIGURE_WORDS).read_text(encoding="utf-8"))
    yield from (("i18n/figures.zh.yml", *pair) for pair in shared.items())


def test_every_phrase_has_chinese_with_the_same_placeholders():
    def names(text: str) -> list[str]:
        return sorted(m[1] for m in editions.PLACEHOLDER.finditer(text))

    for key, english, chinese in every_phrase():
        if "figures" not in key:  # a figure's text may stay as code ("BOS + target[:-1]")
            assert re.search(r"[\u3400-\u9fff]", chinese), (key, english)
        assert names(english) == names(chinese), (key, english)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("| nn.MultiheadAttention, need_weights=True | NaN | 2.3× | 12 ms (0.61x) |", []),
        ("测于 AMD EPYC（2 核），torch 2.13.0+cpu，float32", []),
        ("| eval() fast path |", ["fast", "path"]),
        ("`code here` and $\\text{math}$ but prose", ["and", "but", "prose"]),
    ],
)
def test_english_words_are_words_not_names_units_or_code(text, words):
    assert editions.english_words(text) == words
