"""The grading harness: a pass means every check ran and passed, whatever the learner's file does to the process.

A `sys.exit(0)`, an `os._exit(0)`, a replaced `torch.allclose` or grader function, or a printed
"PASS" must never turn into a pass; messages say where an output differs and by how much, name a
dtype that is not the reference's, and report the learner's own errors as theirs. The tests that
need a real grading process use `grade_in_subprocess` (about a second each); the rest call the
harness's functions directly.
"""

import argparse
import math
from pathlib import Path

import pytest
import torch

from tutorial_tools.exercises import EXERCISES
from tutorial_tools.exercises.checks import (
    NOT_IMPLEMENTED,
    Check,
    ToolGuard,
    Wrong,
    expect_close,
    expect_error,
    is_placeholder,
    run_check,
)
from tutorial_tools.exercises.commands import check_main, list_exercises, positive_seconds
from tutorial_tools.exercises.grading import (
    RECORD_VARIABLE,
    LoadError,
    grade,
    grade_file,
    grade_in_subprocess,
    judge,
    load,
    printed_block,
)
from tutorial_tools.exercises.starter import reference_code

# A plausible wrong solution of each exercise the harness tests use: (correct text, planted text).
MISTAKE = {
    "causal-mask": (".tril()", ".tril(1)"),
    "scaled-dot-product-attention": ("/ math.sqrt(d_k)", "/ d_k"),
}
FUNCTION = {"causal-mask": "causal_mask", "scaled-dot-product-attention": "scaled_dot_product_attention"}


def reference(name: str) -> str:
    return reference_code(EXERCISES[name])


def wrong(name: str) -> str:
    correct, planted = MISTAKE[name]
    return reference(name).replace(correct, planted, 1)


def calling(name: str, body: str) -> str:
    """The reference, with the graded function replaced by one whose body is `body` (indented)."""
    function = FUNCTION[name]
    return f"{reference(name)}\n\nimport os\nimport sys\n\n\ndef {function}(*args, **kwargs):\n    {body}\n"


def written(tmp_path: Path, name: str, code: str) -> Path:
    path = tmp_path / EXERCISES[name].file_name
    path.write_text(code, encoding="utf-8")
    return path


def verdict_lines(text: str) -> list[str]:
    """The report's own lines: everything after the block of what the learner's file printed."""
    return [line for line in text.splitlines() if line and not line.startswith("  | ") and line != "your file printed:"]


# ---------------------------------------------------------------- the grading process


@pytest.mark.parametrize(
    ("name", "code", "says"),
    [
        ("causal-mask", "import sys\nsys.exit(0)\n", "called sys.exit(0) on line 2 while loading"),
        (
            "scaled-dot-product-attention",
            "import os\nos._exit(0)\n",
            "ended the grading process while it was being loaded",
        ),
        ("scaled-dot-product-attention", "sys.exit(0)", "your code called sys.exit(0)"),
        ("causal-mask", "os._exit(0)", "ended the grading process during the check"),
    ],
    ids=["sys.exit-at-import", "os._exit-at-import", "sys.exit-in-the-function", "os._exit-in-the-function"],
)
@pytest.mark.integration
def test_a_file_that_ends_the_process_early_does_not_pass(name, code, says, tmp_path):
    source = code if code.startswith("import") else calling(name, code)
    status, text = grade_in_subprocess(name, written(tmp_path, name, source))
    assert status == 1, text
    assert says in text
    assert "all checks pass" not in text


@pytest.mark.integration
def test_a_replaced_torch_allclose_does_not_pass_and_is_named(tmp_path):
    name = "scaled-dot-product-attention"
    code = "import torch\n\ntorch.allclose = lambda *args, **kwargs: True\n\n" + wrong(name)
    status, text = grade_in_subprocess(name, written(tmp_path, name, code))
    assert status == 1, text
    assert "your file replaced torch.allclose while loading" in text
    assert "differ from the reference" in text or "hint:" in text  # the checks ran, with the original put back
    assert "all checks pass" not in text


@pytest.mark.integration
def test_printed_pass_lines_stay_under_their_own_label_and_never_count(tmp_path):
    name = "causal-mask"
    fake = 'print("PASS  causal_mask for several lengths")\nprint("causal-mask: all checks pass.")\n'
    status, text = grade_in_subprocess(name, written(tmp_path, name, wrong(name) + "\n" + fake))
    assert status == 1, text
    assert text.startswith("your file printed:\n  | PASS  causal_mask for several lengths\n")
    assert "  | causal-mask: all checks pass." in text
    verdict = verdict_lines(text)
    assert "PASS  causal_mask for several lengths" not in verdict and "causal-mask: all checks pass." not in verdict
    assert any(line.startswith("FAIL  ") for line in verdict), text
    assert verdict[-1].startswith("causal-mask: ") and verdict[-1].endswith(" checks pass."), text


@pytest.mark.integration
@pytest.mark.parametrize("name", ["causal-mask", "scaled-dot-product-attention"])
def test_the_pages_solution_passes_through_the_grading_process(name, tmp_path):
    code = reference(name) + f'\nimport os\n\nprint("record:", os.environ.get("{RECORD_VARIABLE}"))\n'
    status, text = grade_in_subprocess(name, written(tmp_path, name, code))
    assert status == 0, text
    assert text.endswith(f"{name}: all checks pass.")
    assert "  | record: None" in text  # the record's path left the environment before the file was loaded


@pytest.mark.parametrize("name", EXERCISES)
def test_every_pages_solution_passes_with_the_guard_on(name, tmp_path, capsys):
    """The solution each page shows passes every check of its grader, with the guard on, as `check` grades it:
    the grader accepts the reference, and the guard raises no false alarm."""
    status = grade_file(name, written(tmp_path, name, reference(name)))
    assert status == 0, capsys.readouterr().out


@pytest.mark.integration
def test_exercise_list_shows_a_file_that_exits_early_as_not_passing(tmp_path, capsys):
    (tmp_path / "causal_mask.py").write_text("import os\nos._exit(0)\n", encoding="utf-8")
    list_exercises(tmp_path)
    state = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert state["causal-mask"].endswith("does not pass yet")


# ---------------------------------------------------------------- replaced tools, in this process


def test_replaced_grader_functions_are_put_back_and_named(tmp_path, capsys):
    import tutorial_tools.exercises.checks as checks

    original = checks.expect_close
    code = (
        "import tutorial_tools.exercises.checks as checks\n"
        "checks.expect_close = lambda *args, **kwargs: None\n"
        "checks.run_check = lambda name, *args: checks.Check(name, True)\n\n" + wrong("causal-mask")
    )
    status = grade_file("causal-mask", written(tmp_path, "causal-mask", code))
    printed = capsys.readouterr().out
    assert status == 1
    assert "tutorial_tools.exercises.checks.expect_close" in printed and "cannot pass" in printed
    assert "tutorial_tools.exercises.checks.run_check" in printed
    assert checks.expect_close is original


def test_a_tool_replaced_while_a_check_runs_fails_that_check(tmp_path, capsys):
    body = (
        "import torch\n    torch.allclose = lambda *a, **k: True\n"
        "    return torch.ones(args[0], args[0], dtype=torch.bool).tril()"
    )
    status = grade_file("causal-mask", written(tmp_path, "causal-mask", calling("causal-mask", body)))
    printed = capsys.readouterr().out
    assert status == 1
    assert "your code replaced torch.allclose while this check ran" in printed
    assert torch.allclose(torch.zeros(1), torch.ones(1)) is False  # put back


def test_the_guard_puts_back_a_method_added_to_torch_tensor():
    guard = ToolGuard()
    torch.Tensor.__sub__ = lambda self, other: self  # shadows the C method
    assert guard.restore() == ["torch.Tensor.__sub__"]
    assert torch.equal(torch.ones(2) - torch.ones(2), torch.zeros(2))
    assert guard.restore() == []


# ---------------------------------------------------------------- the record and the verdict


def test_only_a_complete_record_passes():
    exercise = EXERCISES["causal-mask"]
    result = {"name": "a check", "passed": True, "message": "", "hint": ""}
    complete = {"exercise": "causal-mask", "total": 2, "state": "done", "results": [result, result]}
    assert judge(exercise, complete, 0, 60)[0] is True
    stopped = {**complete, "state": "checking", "running": "the second", "results": [result]}
    passed, lines = judge(exercise, stopped, 0, 60)
    assert not passed and "during the check 'the second' (exit status 0)" in lines[-2]
    assert lines[-1] == "causal-mask: 1 of 2 checks pass."
    assert judge(exercise, {**complete, "results": [result]}, 0, 60)[0] is False
    assert judge(exercise, None, 0, 60)[0] is False
    load_error = {
        **complete,
        "load_error": "f.py has a syntax error on line 3\n    def f()\n           ^",
        "results": [],
    }
    assert judge(exercise, load_error, 1, 60) == (
        False,
        ["FAIL  " + load_error["load_error"], "causal-mask: no check could run."],
    )
    overrun = judge(exercise, stopped, None, 3)[1][-2]
    assert "did not finish within 3 s during the check 'the second'" in overrun


def test_printed_text_cannot_move_the_cursor_or_pose_as_a_verdict():
    block = printed_block("PASS  x\n\x1b[2K\rcausal-mask: all checks pass.\n")
    assert block == "your file printed:\n  | PASS  x\n  | \\x1b[2K\\x0dcausal-mask: all checks pass."
    assert printed_block("\n \n") == ""


# ---------------------------------------------------------------- messages that say what happened


def test_a_difference_is_located_and_measured():
    expected = torch.full((2, 3, 4), 0.27)
    got = expected.clone()
    got[0, 2, 1], got[1, 0, 3] = 0.31, 0.9
    with pytest.raises(Wrong) as caught:
        expect_close(got, expected, "the weights", [(expected * 2, "doubled"), (lambda got: 1, "a guess")])
    message = caught.value.message.splitlines()
    assert message[0] == "the weights: 2 of 24 values differ from the reference, by up to 0.63"
    assert message[1] == "first differs at [0, 2, 1]: got 0.31, expected 0.27"
    assert message[2] == "largest difference at [1, 0, 3]: got 0.9, expected 0.27"
    assert message[3] == "row [0, 2, :]: got      [0.27, 0.31, 0.27, 0.27]"
    assert message[4] == "row [0, 2, :]: expected [0.27, 0.27, 0.27, 0.27]"
    assert caught.value.hint == ""  # no mistake matched, so no hint claims one


def test_a_pytorch_message_inside_a_message_stays_as_pytorch_wrote_it_in_chinese():
    """PyTorch's error inside a check's message stays as PyTorch wrote it: a catalogue text that was all places but
    one word ("{0}expected {1}", the second line of a row of values) once turned its "expected" into Chinese."""
    from tutorial_tools.language import say

    error = "Tensor on device cpu is not on the expected device meta!"
    said = say(f"the output for x of shape (2, 5): your code raised RuntimeError: {error}", "zh")
    assert said.endswith(error) and said != f"the output for x of shape (2, 5): your code raised RuntimeError: {error}"


def test_a_hint_comes_only_from_a_matching_mistake():
    expected = torch.ones(3)
    never = [(lambda got: torch.ones(3), "a test that returns a tensor of three"), (lambda got: 1 / 0, "raises")]
    with pytest.raises(Wrong) as caught:
        expect_close(torch.zeros(3), expected, "x", [*never, (torch.zeros(3), "all zeros")])
    assert caught.value.hint == "all zeros"
    with pytest.raises(Wrong) as caught:
        expect_close(torch.full((3,), 2.0), expected, "x", never)
    assert caught.value.hint == "" and "first differs at [0]: got 2, expected 1" in caught.value.message


def test_a_nan_is_named_with_its_place():
    got = torch.tensor([[1.0, float("nan")], [0.0, 0.0]])
    with pytest.raises(Wrong, match=r"contains NaN \(1 of 4 values\)[\s\S]*first differs at \[0, 1\]: got nan"):
        expect_close(got, torch.tensor([[1.0, 0.5], [0.0, 0.0]]), "x")


@pytest.mark.parametrize(
    ("got", "expected", "says", "hint"),
    [
        (torch.zeros(2, 3, dtype=torch.float64), torch.zeros(2, 3), "dtype torch.float64, expected torch.float32",
         "the inputs' dtype"),
        (torch.tensor([[10.0, 7.0]]), torch.tensor([[10, 7]]), "dtype torch.float32, expected torch.int64",
         "whole numbers"),
        (torch.ones(2, 2, dtype=torch.int64), torch.ones(2, 2, dtype=torch.bool), "expected a boolean tensor",
         "dtype=torch.bool"),
    ],
    ids=["float64-table", "float-ids", "int-mask"],
)  # fmt: skip
def test_a_dtype_that_is_not_the_references_is_named(got, expected, says, hint):
    with pytest.raises(Wrong) as caught:
        expect_close(got, expected, "x")
    assert says in caught.value.message and hint in caught.value.hint


def test_a_device_that_is_not_the_references_is_named():
    with pytest.raises(Wrong) as caught:
        expect_close(torch.zeros(2, 3), torch.zeros(2, 3, device="meta"), "x")
    assert "on the device cpu, expected meta" in caught.value.message and "device=x.device" in caught.value.hint
    expect_close(torch.zeros(2, 3, device="meta"), torch.ones(2, 3, device="meta"), "x")  # no values to compare


def test_a_number_wrapped_in_a_0d_tensor_is_compared_by_value():
    expect_close(torch.tensor(2.5, dtype=torch.float64), torch.tensor(2.5), "bits per character")
    expect_close(torch.zeros(2, dtype=torch.float64), torch.zeros(2), "x", check_dtype=False)


def test_a_float64_table_and_float_ids_fail_their_graders(tmp_path):
    table = reference("sinusoidal-table").replace(
        "torch.zeros(max_len, d_model)", "torch.zeros(max_len, d_model, dtype=torch.float64)"
    )
    ids = reference("shift-right").replace(
        "torch.full_like(target[:, :1], BOS)", "torch.full_like(target[:, :1], 10.0, dtype=torch.float)"
    )
    for name, code, says in [
        ("sinusoidal-table", table, "dtype torch.float64, expected torch.float32"),
        ("shift-right", ids, "expected torch.int64"),
    ]:
        path = written(tmp_path, name, code)
        messages = [result.message for result in grade(EXERCISES[name], load(path), str(path))]
        assert any(says in message for message in messages), messages


def test_the_learners_own_errors_are_reported_as_theirs(tmp_path):
    name = "causal-mask"
    cases = {
        'raise NotImplementedError("only seq_len 1 for now")': "your code raised NotImplementedError: only seq_len 1",
        'raise ValueError("no odd lengths")': "your code raised ValueError: no odd lengths",
    }
    for body, says in cases.items():
        path = written(tmp_path, name, calling(name, body))
        results = grade(EXERCISES[name], load(path), str(path))
        line = len(calling(name, body).splitlines())
        assert any(says in result.message and f"(line {line} of your file: {body})" in result.message
                   for result in results), results  # fmt: skip
        assert all(result.message != NOT_IMPLEMENTED for result in results)


def test_only_the_starters_placeholder_is_not_implemented_yet():
    def raising(error):
        def check(learner):
            raise error

        return check

    assert run_check("c", raising(NotImplementedError()), None, "").message == NOT_IMPLEMENTED
    assert run_check("c", raising(NotImplementedError("write causal_mask")), None, "").message == NOT_IMPLEMENTED
    own = run_check("c", raising(NotImplementedError("odd d_model not supported")), None, "")
    assert own.message == "your code raised NotImplementedError: odd d_model not supported"
    assert is_placeholder(NotImplementedError("write Encoder.forward"))
    assert not is_placeholder(ValueError("write causal_mask"))
    ended = run_check("c", raising(SystemExit(3)), None, "")
    assert ended == Check("c", False, ended.message) and ended.message.startswith("your code called sys.exit(3)")


def test_expect_error_reports_a_not_implemented_error_with_a_message_as_the_learners():
    def refuse():
        raise NotImplementedError("odd d_model not supported")

    with pytest.raises(Wrong, match=r"raised NotImplementedError \(odd d_model not supported\), expected ValueError"):
        expect_error(refuse, (ValueError,), "an odd d_model")

    def placeholder():
        raise NotImplementedError("write sinusoidal_table")

    with pytest.raises(NotImplementedError):
        expect_error(placeholder, (ValueError,), "an odd d_model")


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize("text", ["0", "-5", "nan", "inf", "soon"])
def test_a_time_limit_must_be_a_positive_number_of_seconds(text, capsys):
    with pytest.raises(argparse.ArgumentTypeError, match="give a positive number of seconds"):
        positive_seconds(text)
    with pytest.raises(SystemExit) as stopped:
        check_main(["causal-mask", "--time-limit", text])
    assert stopped.value.code == 2 and "give a positive number of seconds" in capsys.readouterr().err
    with pytest.raises(ValueError, match="positive number of seconds"):
        grade_in_subprocess("causal-mask", Path("causal_mask.py"), float(text) if text != "soon" else math.nan)
    assert positive_seconds("2.5") == 2.5


def test_a_file_that_is_not_python_gets_a_message(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("def causal_mask(seq_len):\n    pass\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        check_main(["causal-mask", str(notes)])
    assert stopped.value.code == 2 and "notes.txt is not a Python file: give the .py file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        check_main(["causal-mask", str(tmp_path)])
    assert "is a folder: give your .py file" in capsys.readouterr().err
    with pytest.raises(LoadError, match="notes.txt is not a Python file"):
        load(notes)


@pytest.mark.integration
def test_the_record_is_out_of_reach_of_the_environment_atexit_and_forks(tmp_path):
    """The learner's file finds the record's path in no environment variable; its atexit handler never runs; a
    process it forks is killed with the grading process's group."""
    import time

    name = "causal-mask"
    marker_exit, marker_fork = tmp_path / "atexit-ran", tmp_path / "fork-ran"
    spy = (
        "import atexit, os, time\n"
        "_environ = open('/proc/self/environ', 'rb').read() if os.path.exists('/proc/self/environ') else b''\n"
        "print('record path in the environment:', b'grading-' in _environ or b'record.json' in _environ)\n"
        f"atexit.register(lambda: open({str(marker_exit)!r}, 'w').write('ran'))\n"
        "if hasattr(os, 'fork') and os.fork() == 0:\n"
        "    time.sleep(2)\n"
        f"    open({str(marker_fork)!r}, 'w').write('ran')\n"
        "    os._exit(0)\n"
    )
    status, text = grade_in_subprocess(name, written(tmp_path, name, reference(name) + "\n" + spy))
    assert status == 0, text  # the reference passes, spying or not
    assert "record path in the environment: False" in text
    time.sleep(3)  # longer than the fork would have waited
    assert not marker_exit.exists() and not marker_fork.exists()


# ---------------------------------------------------------------- shortcuts a file may take


@pytest.mark.parametrize(
    ("code", "says"),
    [
        ("from tutorial_code.masks import causal_mask\n", "takes causal_mask from the tutorial's package"),
        ("import tutorial_code.masks as m\n\ncausal_mask = m.causal_mask\n", "takes causal_mask from"),
        (
            "import sys\n\n\ndef causal_mask(seq_len, device=None):\n"
            "    return sys._getframe(1).f_locals['expected']\n",
            "uses _getframe, which reads the grader's own variables",
        ),
        (
            "import inspect\n\n\ndef causal_mask(seq_len, device=None):\n"
            "    return inspect.currentframe().f_back.f_locals['expected']\n",
            "uses currentframe",
        ),
    ],
    ids=["from-import", "module-alias", "getframe", "currentframe"],
)
def test_a_file_that_borrows_the_answer_is_refused_before_any_check(code, says, tmp_path, capsys):
    status = grade_file("causal-mask", written(tmp_path, "causal-mask", code))
    printed = capsys.readouterr().out
    assert status == 1 and says in printed and "PASS" not in printed


@pytest.mark.parametrize(
    ("patch", "named"),
    [
        ("torch.nn.Linear.forward = lambda self, x: x\n", "torch.nn.Linear.forward"),
        (
            "import tutorial_tools.exercises.checks as checks\n"
            "checks.Check.__init__ = lambda self, name, *a, **k: object.__setattr__(self, 'name', name)\n",
            "tutorial_tools.exercises.checks.Check",
        ),
    ],
    ids=["nn-linear-forward", "check-init"],
)
def test_a_patched_layer_or_grader_class_is_put_back_and_named(patch, named, tmp_path, capsys):
    linear_forward = torch.nn.Linear.forward
    code = "import torch\n" + patch + "\n" + wrong("causal-mask")
    status = grade_file("causal-mask", written(tmp_path, "causal-mask", code))
    printed = capsys.readouterr().out
    assert status == 1 and named in printed and "cannot pass" in printed
    assert torch.nn.Linear.forward is linear_forward


def test_a_tensor_subclass_is_not_compared():
    class AlwaysClose(torch.Tensor):
        def __eq__(self, other):
            return True

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return True if func is torch.allclose else super().__torch_function__(func, types, args, kwargs or {})

    got = torch.zeros(3).as_subclass(AlwaysClose)
    with pytest.raises(Wrong) as raised:
        expect_close(got, torch.ones(3), "f(x)")
    assert "subclass of torch.Tensor" in raised.value.message and "plain torch.Tensor" in raised.value.hint
    expect_close(torch.nn.Parameter(torch.ones(3)), torch.ones(3), "a parameter")  # a parameter is compared


def test_a_hint_names_one_mistake_only_when_no_other_gives_the_same_output():
    from tutorial_tools.exercises.checks import SEVERAL_MISTAKES

    expected, got = torch.ones(3), torch.zeros(3)
    with pytest.raises(Wrong) as one:
        expect_close(got, expected, "f(x)", [(torch.zeros(3), "zeros"), (torch.full((3,), 2.0), "twos")])
    assert one.value.hint == "zeros"
    with pytest.raises(Wrong) as both:
        expect_close(got, expected, "f(x)", [(torch.zeros(3), "zeros"), (lambda t: bool((t == 0).all()), "nothing")])
    assert both.value.hint.splitlines() == [SEVERAL_MISTAKES, "zeros", "nothing"]
