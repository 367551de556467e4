"""The `transformer-tutorial` command (and `python -m tutorial_tools`): every chapter runs, options work,
bad options get a message that says what to fix."""

import subprocess
import sys

import pytest
import torch
from conftest import ROOT, notebook_stdout, prepared_command, prepared_env

from tutorial_tools.arguments import MAX_SEED
from tutorial_tools.cli import MAX_STEPS, OPTIONS, chapters, main, parameters, script_path
from tutorial_tools.contents import by_slug
from tutorial_tools.language import LOCALE_VARIABLES
from tutorial_tools.trained_models import KEEPERS

CHAPTERS = chapters()
# The chapters that print wall-clock timings, which differ by run:
TIMED = {chapter.command for chapter in CHAPTERS.values() if chapter.runs_alone}


def command(*args: str, cache: bool = True) -> subprocess.CompletedProcess:
    """Run `python -m tutorial_tools ARGS`. With `cache`, as the build runs a chapter (its trainings reused);
    without, exactly as a reader runs it, progress bar included."""
    if cache:
        argv, env = [*prepared_command("-m"), "tutorial_tools", *args], prepared_env()
    else:
        argv = [sys.executable, "-m", "tutorial_tools", *args]
        env = {k: v for k, v in prepared_env().items() if k not in ("TUTORIAL_CACHE_DIR", "TQDM_DISABLE")}
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)


def test_every_chapter_script_is_a_command_in_reading_order():
    scripts = {p.parent.name.replace("_", "-") for p in (ROOT / "docs").glob("*/script.py")}
    assert set(CHAPTERS) == scripts
    assert list(CHAPTERS)[:3] == ["overview", "why-attention", "scaled-dot-product-attention"]
    assert list(CHAPTERS)[-2:] == ["troubleshooting", "best-practices"]


@pytest.fixture
def in_process(capsys, monkeypatch):
    """Call the command in the test's process, in English, where what is tested is read before any chapter runs
    (a process each takes seconds to import torch): `(status, stdout, stderr)`. The tests above and below run
    it as a program."""
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # argparse wraps to the terminal: a title must stay on one line

    def call(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as stopped:
            main(list(args))
        out, err = capsys.readouterr()
        return stopped.value.code, out, err

    return call


def test_help_lists_every_chapter_with_its_title(in_process):
    status, out, _ = in_process("--help")
    assert status == 0
    for name, chapter in CHAPTERS.items():
        assert name in out and chapter.heading() in out


def test_a_chapter_help_lists_its_options_and_their_defaults(in_process):
    status, out, _ = in_process("training", "--help")
    assert status == 0
    text = " ".join(out.split())  # argparse wraps lines to the terminal's width
    for expected in ("--seed", "(default 0)", "--steps", "(default 500)", "--device", "(default cpu)", "--no-progress"):
        assert expected in text
    assert "--steps" not in in_process("masks", "--help")[1]  # masks trains nothing


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["training", "--steps", "0"], "argument --steps: must be at least 1, got 0"),
        (["training", "--steps", "many"], "argument --steps: expected a whole number, got 'many'"),
        (["training", "--seed", "-1"], "argument --seed: must be 0 or more, got -1"),
        (["training", "--device", "gpu"], "'gpu' is not a device name; use cpu, cuda, cuda:1 or mps"),
        (["masks", "--steps", "5"], "the chapter 'masks' trains no model, so --steps does not apply; it takes --seed"),
        (["why-attention", "--seed", "1"], "it takes no options"),
        (["trainig"], "no chapter 'trainig'; did you mean 'training'?"),
        (["training", "--stpes", "5"], "unrecognized arguments: --stpes"),
    ],
)
def test_bad_options_get_a_message_that_says_what_to_fix(args, message, in_process):
    """The command stops with status 2 and one message, and raises nothing else."""
    status, _, err = in_process(*args)
    assert status == 2
    assert message in err


# Every value outside an option's range, with the words of its refusal (tutorial_tools/arguments.py, cli.py)
OUT_OF_RANGE = {
    "seed": [("-1", "must be 0 or more"), (str(MAX_SEED + 1), "must be at most 4,294,967,295"), ("0.5", "whole")],
    "steps": [("0", "must be at least 1"), (str(MAX_STEPS + 1), "must be at most 1,000,000"), ("1e3", "whole")],
    "device": [("gpu", "is not a device name"), ("meta", "the tutorial runs on cpu, cuda or mps")],
}
VALID = {"seed": "1", "steps": "1", "device": "cpu"}


def option_cases() -> list[tuple[str, str, str, str]]:
    """(chapter, option, value, words of the refusal) for every real chapter and every option: each value out of
    range of an option the chapter takes, and a valid value of an option it does not take."""
    cases = []
    for command, chapter in CHAPTERS.items():
        taken = parameters(chapter)
        for option, (parameter, _, _) in OPTIONS.items():
            if parameter in taken:
                cases += [(command, option, value, f"argument --{option}: ") for value, _ in OUT_OF_RANGE[option]]
                cases += [(command, option, value, words) for value, words in OUT_OF_RANGE[option]]
            else:
                cases.append((command, option, VALID[option], "does not apply"))
        if command not in KEEPERS:
            cases.append((command, "save", "kept", "keeps no model, so --save does not apply"))
    return cases


@pytest.mark.parametrize(("name", "option", "value", "words"), option_cases())
def test_every_chapter_refuses_every_option_out_of_its_range_in_one_line(name, option, value, words, in_process):
    """Read before the chapter runs: status 2, the words, and nothing raised but SystemExit."""
    status, out, err = in_process(name, f"--{option}", value)
    assert status == 2 and out == ""
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize("name", sorted(KEEPERS))
def test_a_keeper_refuses_a_save_folder_it_cannot_write_in_one_line(name, in_process, tmp_path, monkeypatch):
    from pathlib import Path

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    status, _, err = in_process(name, "--save", str(blocker / "runs"))
    assert status == 2 and f"--save {blocker / 'runs'}: cannot write there" in err

    def read_only(self, *args, **kwargs):  # root writes into a read-only folder: the refusal is simulated
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_bytes", read_only)
    status, _, err = in_process(name, "--save", str(tmp_path / "runs"))
    assert status == 2 and "cannot write there (Permission denied)" in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_asking_for_a_gpu_on_a_machine_without_one():
    result = command("training", "--device", "cuda")
    assert result.returncode == 2
    assert "sees no CUDA GPU on this machine; use --device cpu" in result.stderr


# The command runs a chapter script as it is (the copy-paste and notebook tests run every chapter's code):
# one chapter that trains nothing, one that trains and draws, one that times, and the home page's.
@pytest.mark.parametrize("name", ["overview", "why-attention", "masks", "training"])
def test_a_chapter_command_prints_what_its_executed_notebook_shows(site, name):
    result = command(name, "--no-progress")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()
    if name not in TIMED:
        assert result.stdout == notebook_stdout(site, CHAPTERS[name].slug)


def test_seed_and_steps_change_the_training_and_the_bar_counts_the_steps():
    """On the overview, whose one training takes a second (the options' ranges and their effect on a chapter's
    parameters are tested in-process: tests/unit/test_cli_behaviour.py)."""
    result = command("overview", "--steps", "1", "--seed", "3", cache=False)  # the fewest steps allowed
    assert result.returncode == 0, result.stderr[-3000:]
    assert "1 training step took" in result.stdout
    assert "1/1" in result.stderr and "digit model" in result.stderr  # the progress bar, on standard error
    default = command("overview", "--steps", "1", "--no-progress", cache=False)
    assert default.stdout != result.stdout
    assert default.stderr == ""


def test_the_parameters_cell_of_every_training_chapter_names_seed_steps_and_device():
    for chapter in CHAPTERS.values():
        source = script_path(chapter).read_text(encoding="utf-8")
        if "train" in source.split("# --8<-- [end:setup]")[0]:
            assert set(parameters(chapter)) == {"SEED", "STEPS", "DEVICE"}, chapter.slug
    assert parameters(by_slug()["training"])["STEPS"] == 500


def test_ctrl_c_during_a_training_stops_with_one_line_and_status_130():
    import signal

    env = {k: v for k, v in prepared_env().items() if k != "TUTORIAL_CACHE_DIR"}  # a real training, not a cached one
    argv = [sys.executable, "-m", "tutorial_tools", "training", "--steps", "1000000", "--no-progress"]
    # As from a terminal: SIGINT at its default, even when the tests run as a background job, which ignores it
    # (an ignored signal stays ignored in every process started below it).
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        first = process.stdout.readline()  # the chapter has started printing: its code is running
        assert first.strip(), process.stderr.read()[-3000:]
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    assert err.strip().splitlines() == ["transformer-tutorial: interrupted (Ctrl-C)"]
