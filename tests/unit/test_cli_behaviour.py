"""How `transformer-tutorial` behaves around a chapter's code, in-process on small chapter files of its own:
Ctrl-C, the line numbers of a traceback, and the ranges of numeric options. (tests/site/test_cli.py runs the
real chapters in a real process.)"""

import traceback

import pytest

from tutorial_tools import cli, contents
from tutorial_tools.contents import Chapter

CHAPTER = '''"""A chapter for the tests."""
# # 1. A test chapter

# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed
STEPS = 5  # steps
DEVICE = "cpu"  # device
# --8<-- [end:parameters]

# %%
print(f"seed {SEED}, steps {STEPS}")
{body}
'''


@pytest.fixture
def chapter_dir(tmp_path, monkeypatch):
    """A chapters folder holding one chapter, `test-chapter`, whose last line is `body`."""

    script = tmp_path / "docs" / "test_chapter" / "script.py"
    script.parent.mkdir(parents=True)

    def write(body: str) -> None:
        script.write_text(CHAPTER.replace("{body}", body), encoding="utf-8")

    monkeypatch.setattr(contents, "chapter_folders", lambda: tmp_path / "docs")
    monkeypatch.setattr(cli, "CHAPTERS", (Chapter("test_chapter", "A test chapter", "测试章节", 1),))
    return write


def test_options_replace_the_parameters_and_nothing_else(chapter_dir, capsys):
    chapter_dir("SEED = 7\nprint(f'reassigned later: {SEED}')")
    assert cli.main(["test-chapter", "--seed", "3", "--steps", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == ["seed 3, steps 2", "reassigned later: 7"]


@pytest.mark.parametrize("options", [[], ["--seed", "3"], ["--seed", "3", "--steps", "2", "--device", "cpu"]])
def test_a_traceback_points_at_the_chapter_files_real_line(chapter_dir, options):
    chapter_dir("x = 1\ny = x / 0  # the failing line")
    with pytest.raises(ZeroDivisionError) as raised:
        cli.main(["test-chapter", *options])
    last = traceback.extract_tb(raised.value.__traceback__)[-1]
    assert last.filename.endswith("test_chapter/script.py")
    assert (
        last.lineno
        == CHAPTER.replace("{body}", "x = 1\ny = x / 0  # the failing line")
        .splitlines()
        .index("y = x / 0  # the failing line")
        + 1
    )
    assert last.line == "y = x / 0  # the failing line"


def test_ctrl_c_stops_with_one_line_and_status_130(chapter_dir, capsys):
    chapter_dir("raise KeyboardInterrupt")
    assert cli.main(["test-chapter"]) == 130
    printed = capsys.readouterr()
    assert printed.err.strip().splitlines() == ["transformer-tutorial: interrupted (Ctrl-C)"]
    assert "Traceback" not in printed.err


def test_ctrl_c_in_the_exercise_commands_too(monkeypatch, capsys):
    from tutorial_tools.exercises import commands

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "check_main", interrupted)
    assert cli.main(["check", "causal-mask"]) == 130
    assert capsys.readouterr().err.strip() == "transformer-tutorial: interrupted (Ctrl-C)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "99999999999999999999999"], "argument --seed: must be at most 4,294,967,295"),
        (["--seed", "4294967296"], "argument --seed: must be at most 4,294,967,295, got 4,294,967,296"),
        (["--seed", "-1"], "argument --seed: must be 0 or more, got -1"),
        (["--seed", "1.5"], "argument --seed: expected a whole number, got '1.5'"),
        (["--steps", "0"], "argument --steps: must be at least 1, got 0"),
        (["--steps", "-3"], "argument --steps: must be at least 1, got -3"),
        (["--steps", "5000000"], "argument --steps: must be at most 1,000,000, got 5,000,000"),
        (["--steps", "1e3"], "argument --steps: expected a whole number, got '1e3'"),
        (["--device", "gpu"], "'gpu' is not a device name"),
    ],
)
def test_numeric_options_are_range_checked(chapter_dir, capsys, args, message):
    chapter_dir("pass")
    with pytest.raises(SystemExit) as exited:
        cli.main(["test-chapter", *args])
    assert exited.value.code == 2
    printed = capsys.readouterr()
    assert message in printed.err
    assert "Traceback" not in printed.err


def test_the_largest_seed_runs(chapter_dir, capsys):
    chapter_dir("import torch\ntorch.manual_seed(SEED)")
    assert cli.main(["test-chapter", "--seed", str(cli.MAX_SEED)]) == 0
    assert capsys.readouterr().out.startswith(f"seed {cli.MAX_SEED}")
