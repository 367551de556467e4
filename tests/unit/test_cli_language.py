"""The exercises and checks in Chinese: `--lang zh` or a Chinese locale, the catalogue i18n/cli.zh.yml complete,
and what a check says carried into Chinese with its values."""

import re
import subprocess
import sys

import pytest
from conftest import ROOT, load_file

from tutorial_tools import language
from tutorial_tools.exercises import EXERCISES
from tutorial_tools.exercises.starter import reference_code, starter_code

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def test_every_text_a_check_can_say_has_its_chinese():
    """scripts/cli_strings.py --check: a new message of a grader must come with its Chinese."""
    assert load_file("scripts/cli_strings.py").main(["--check"]) == 0


@pytest.mark.parametrize(
    ("given", "variables", "expected"),
    [
        ("zh", {"LANG": "en_US.UTF-8"}, "zh"),
        ("en", {"LANG": "zh_CN.UTF-8"}, "en"),
        (None, {"LANG": "zh_CN.UTF-8"}, "zh"),
        (None, {"LANG": "zh_TW.UTF-8"}, "zh"),
        (None, {"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # gettext's order: LC_ALL before LANG
        (None, {"LANGUAGE": "zh_CN:en", "LANG": "C"}, "zh"),
        (None, {}, "en"),
    ],
)
def test_the_language_comes_from_lang_then_the_locale(monkeypatch, given, variables, expected):
    for name in language.LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert language.chosen(given) == expected


def test_a_text_with_values_keeps_them_in_chinese_and_english_stays_english():
    english = "causal_mask(5): shape (5, 4), expected (5, 5)"  # f"{what}: shape {got}, expected {expected}"
    chinese = language.say(english, "zh")
    assert CHINESE.search(chinese) and "causal_mask(5)" in chinese and "(5, 4)" in chinese and "(5, 5)" in chinese
    assert language.say(english, "en") == english
    assert language.say("a text no grader says", "zh") == "a text no grader says"  # left as it is


def test_a_message_about_a_described_tensor_reads_as_one_message():
    """ "the cross-attention weights for {0}" also matches the whole message below, its shape error inside the
    description: the message's own text, "{0}: shape {1}, expected {2}", is the one translated."""
    english = (
        "the cross-attention weights for x (2, 4, 16), memory (2, 6, 16), norm_first=False: shape (2,), expected (3,)"
    )
    said = language.say(english, "zh")
    assert said.endswith("：形状为 (2,)，应为 (3,)"), said
    assert "交叉注意力权重" in said.split("：")[0], said


def test_a_report_keeps_its_layout_with_chinese_labels():
    report = (
        "FAIL  causal_mask for several lengths\n"
        "      not implemented yet: replace `raise NotImplementedError` with your code\n"
        "causal-mask: 0 of 3 checks pass."
    )
    lines = language.say_report(report, "zh").split("\n")
    assert lines[0].startswith("未通过  ") and CHINESE.search(lines[0][6:])
    assert lines[1].startswith("      ") and "raise NotImplementedError" in lines[1] and CHINESE.search(lines[1])
    assert lines[2].startswith("causal-mask") and "0" in lines[2] and "3" in lines[2] and CHINESE.search(lines[2])


@pytest.mark.parametrize("name", ["causal-mask", "flipped-mask"])
def test_the_starter_speaks_chinese_above_the_same_code(name):
    exercise = EXERCISES[name]
    english, chinese = starter_code(exercise, "en"), starter_code(exercise, "zh")
    header, code = chinese.split('"""\n\n', 1)
    assert CHINESE.search(header) and f"transformer-tutorial check {name}" in header
    assert code == english.split('"""\n\n', 1)[1]


def check(argv: list[str], cwd, env_lang: str = "C.UTF-8") -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "LANG": env_lang, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "tutorial_tools", "check", *argv]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.integration
def test_check_fails_and_passes_in_each_language(tmp_path):
    """The command itself, in a grading process: a starter that fails and a solution that passes, in English and
    in Chinese (once by --lang zh, once by LANG)."""
    exercise = EXERCISES["causal-mask"]
    starter, solution = tmp_path / "starter", tmp_path / "solution"
    for folder, text in ((starter, starter_code(exercise, "zh")), (solution, reference_code(exercise))):
        folder.mkdir()
        (folder / exercise.file_name).write_text(text, encoding="utf-8")
    failing_en = check(["causal-mask"], starter)
    failing_zh = check(["causal-mask", "--lang", "zh"], starter)
    passing_en = check(["causal-mask", "--lang", "en"], solution, env_lang="zh_CN.UTF-8")
    passing_zh = check(["causal-mask"], solution, env_lang="zh_CN.UTF-8")
    assert failing_en.returncode == failing_zh.returncode == 1
    assert passing_en.returncode == passing_zh.returncode == 0, passing_zh.stderr
    assert "FAIL  " in failing_en.stdout and "not implemented yet" in failing_en.stdout
    assert "未通过  " in failing_zh.stdout and "not implemented yet" not in failing_zh.stdout
    assert passing_en.stdout.strip().endswith("causal-mask: all checks pass.")
    assert "通过  " in passing_zh.stdout and "PASS" not in passing_zh.stdout and CHINESE.search(passing_zh.stdout)
    assert not CHINESE.search(failing_en.stdout + passing_en.stdout)


@pytest.mark.parametrize(
    ("argv", "english", "chinese"),
    [
        (["masks", "--steps", "5"], "trains no model, so --steps does not apply", "不训练模型，所以 --steps 不适用"),
        (["training", "--steps", "0"], "argument --steps: must be at least 1, got 0", "参数 --steps：必须至少为 1"),
        (["no-such-chapter"], "no chapter 'no-such-chapter'", "没有章节 'no-such-chapter'"),
        (["sample", "--from", "/nowhere", "--prompt", "x"], "no saved model in /nowhere", "/nowhere 里没有保存的模型"),
        (["check", "no-such-exercise"], "no exercise 'no-such-exercise'", "没有练习 'no-such-exercise'"),
    ],
    ids=["steps-not-applying", "steps-range", "chapter-name", "sample-folder", "exercise-name"],
)
def test_the_command_lines_errors_in_each_language(argv, english, chinese, capsys, monkeypatch):
    from tutorial_tools import cli

    for name in language.LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for given, expected, absent in ((["--lang", "en"], english, chinese), (["--lang", "zh"], chinese, english)):
        with pytest.raises(SystemExit) as ended:
            cli.main([*argv, *given])
        said = capsys.readouterr().err.splitlines()[-1]
        assert ended.value.code == 2 and expected in said and absent not in said, said
