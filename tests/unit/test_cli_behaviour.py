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

    monkeypatch.setattr(contents, "FOLDER", tmp_path / "docs")
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


def test_a_reader_that_stops_reading_ends_it_quietly(chapter_dir, capsys):
    """`transformer-tutorial masks | head -1`: the pipe closes, and the command ends with SIGPIPE's status and no
    traceback."""
    chapter_dir("raise BrokenPipeError(32, 'Broken pipe')")
    assert cli.main(["test-chapter"]) == 141
    assert capsys.readouterr().err == ""


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


def test_version_and_every_command_in_the_help(chapter_dir, capsys):
    chapter_dir("pass")
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("transformer-tutorial ")
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    listed = capsys.readouterr().out
    assert all(command in listed for command in ("test-chapter", "exercise", "check"))


def test_the_steps_help_says_what_the_chapter_trains(chapter_dir, capsys):
    chapter_dir("pass")
    with pytest.raises(SystemExit):
        cli.main(["test-chapter", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--steps STEPS steps (default 5)" in shown  # the parameter's own comment, not a generic sentence


def refused_with_one_line(run, capsys) -> str:
    with pytest.raises(SystemExit) as exited:
        run()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


def test_a_starter_that_cannot_be_written_gets_one_line(tmp_path, monkeypatch, capsys):
    from pathlib import Path

    from tutorial_tools.exercises import commands

    monkeypatch.chdir(tmp_path)
    (tmp_path / "causal_mask.py").mkdir()  # a folder where the starter file should go
    line = refused_with_one_line(lambda: commands.exercise_main(["causal-mask", "--force"]), capsys)
    assert "causal_mask.py is a folder: rename or move it" in line
    (tmp_path / "causal_mask.py").rmdir()

    def read_only(self, *args, **kwargs):  # root writes into a read-only folder: the refusal is simulated
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_text", read_only)
    line = refused_with_one_line(lambda: commands.exercise_main(["causal-mask"]), capsys)
    assert "cannot write" in line and "Permission denied; run the command in a folder you can write to" in line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["causal-mask", "x" * 300 + ".py"], "File name too long"),
        (["causal-mask", "--time-limit", "1e300"], "must be at most 86,400 seconds (a day), got 1e300"),
        (["causal-mask", "--time-limit", "inf"], "is not a time limit"),
    ],
)
def test_a_check_refuses_a_file_or_a_limit_it_cannot_use_in_one_line(tmp_path, monkeypatch, capsys, argv, message):
    from tutorial_tools.exercises import commands

    monkeypatch.chdir(tmp_path)
    assert message in refused_with_one_line(lambda: commands.check_main(argv), capsys)


def test_a_graded_file_may_import_a_helper_beside_it(tmp_path):
    from tutorial_tools.exercises.grading import load

    (tmp_path / "my_helpers.py").write_text("ANSWER = 42\n", encoding="utf-8")
    (tmp_path / "causal_mask.py").write_text("from my_helpers import ANSWER\n", encoding="utf-8")
    assert load(tmp_path / "causal_mask.py").ANSWER == 42


@pytest.fixture
def keeping_chapter(chapter_dir, monkeypatch):
    """The test chapter as one that keeps a model: an untrained CharTransformer over the characters it printed."""
    from tutorial_code.language_model import CharTransformer, CharVocabulary
    from tutorial_tools import trained_models

    def keeper(namespace, values):
        import torch

        torch.manual_seed(values["SEED"])
        vocabulary = CharVocabulary.of("def return x\n")
        return CharTransformer(len(vocabulary.chars), d_model=16, num_heads=2, num_layers=1), vocabulary

    monkeypatch.setitem(trained_models.KEEPERS, "test-chapter", keeper)
    monkeypatch.setattr(cli, "KEEPERS", trained_models.KEEPERS)
    chapter_dir("")


def test_save_keeps_the_model_and_sample_continues_a_prompt(keeping_chapter, tmp_path, capsys):
    folder = tmp_path / "kept" / "lm"  # made where it is missing
    assert cli.main(["test-chapter", "--seed", "4", "--save", str(folder)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "seed 4, steps 5\n"  # standard output is still what the chapter prints
    assert f"sample --from {folder}" in captured.err and (folder / "model.pt").exists()
    assert cli.main(["sample", "--from", str(folder), "--prompt", "def ", "--chars", "30", "--seed", "1"]) == 0
    first = capsys.readouterr().out
    assert first.startswith("def ") and len(first) == len("def ") + 30 + 1  # and the newline of print
    assert set(first[:-1]) <= set("def return x\n")
    options = ["sample", "--from", str(folder), "--prompt", "def ", "--chars", "30", "--seed", "1"]
    assert cli.main([*options, "--temperature", "0.5", "--top-p", "0.9"]) == 0
    assert cli.main(options) == 0
    assert capsys.readouterr().out.endswith(first)  # the same seed, the same text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--prompt", "déf"], "--prompt: prompt holds characters the model never saw: 'é'"),
        (["--prompt", ""], "--prompt: prompt must hold at least one character"),
        (["--prompt", "d", "--top-p", "0"], "argument --top-p: must be a number in (0, 1]"),
        (["--prompt", "d", "--temperature", "-1"], "argument --temperature: must be a number above 0"),
        (["--prompt", "d", "--chars", "-3"], "argument --chars: must be 0 or more"),
    ],
)
def test_sample_refuses_what_it_cannot_do_in_one_line(keeping_chapter, tmp_path, capsys, args, message):
    cli.main(["test-chapter", "--save", str(tmp_path)])
    capsys.readouterr()
    with pytest.raises(SystemExit) as ended:
        cli.main(["sample", "--from", str(tmp_path), *args])
    assert ended.value.code == 2 and message in capsys.readouterr().err


def test_save_where_nothing_can_be_written_or_nothing_is_kept(keeping_chapter, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for argv, message in [
        (["test-chapter", "--save", str(blocker / "sub")], "--save "),
        (["sample", "--from", str(tmp_path / "none"), "--prompt", "d"], "no saved model in"),
    ]:
        with pytest.raises(SystemExit) as ended:
            cli.main(argv)
        assert ended.value.code == 2 and message in capsys.readouterr().err
    (tmp_path / "model.pt").write_bytes(b"not a model")
    with pytest.raises(SystemExit):
        cli.main(["sample", "--from", str(tmp_path), "--prompt", "d"])
    assert "is not a model kept by this tutorial" in capsys.readouterr().err


def test_the_chapter_15_keeper_reads_the_width_the_chapter_computes():
    """`todays-models --save` trains the model of chapter 14's `llama_size` section: its `d_ff`, read from the
    chapter's run, must be the one that section assigns."""
    import ast

    from tutorial_tools.sections import section_text
    from tutorial_tools.trained_models import KEEPERS

    source = (contents.chapter_folders() / "todays_models" / "script.py").read_text(encoding="utf-8")
    names = [
        target.id
        for node in ast.parse(section_text(source, "llama_size")).body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    ]
    assert "d_ff" in names and set(KEEPERS) == {"language-model", "todays-models"}


def test_lang_before_the_command_is_read_as_after_it(tmp_path, monkeypatch, capsys):
    assert cli.command_first(["--lang", "zh", "check", "causal-mask"]) == ["check", "causal-mask", "--lang", "zh"]
    assert cli.command_first(["--lang=zh", "sample", "--from", "d"]) == ["sample", "--from", "d", "--lang=zh"]
    assert cli.command_first(["masks", "--lang", "zh"]) == ["masks", "--lang", "zh"]
    monkeypatch.chdir(tmp_path)
    assert cli.main(["--lang", "zh", "exercise", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "causal-mask" in listed
