"""The graded exercises: every reference passes its checks, every starter fails cleanly, planted mistakes
get their hint, and the learner's code runs in a separate process with a time limit."""

import os
import subprocess
import sys

import pytest
from conftest import ROOT

from tutorial_tools.exercises import EXERCISES
from tutorial_tools.exercises.catalogue import PLANTED
from tutorial_tools.exercises.checks import NOT_IMPLEMENTED
from tutorial_tools.exercises.grading import grade, grade_in_subprocess, load
from tutorial_tools.exercises.starter import fix_diff, layout_free, occurrences, reference_code, starter_code

# The hint each find-the-bug starter must get, untouched.
BUG_HINTS = {
    "recurrent-time-axis": "dim=1",
    "shared-projection": "W_K",
    "attention-too-sharp": "sqrt(d_k)",
    "attention-wrong-axis": "dim=-1",
    "flipped-mask": "'may attend'",
    "heads-without-transpose": "cuts the sequence",
    "dropout-on-the-residual": "residual stream",
    "decoder-sees-the-future": "causal mask",
    "cache-offset": "cache.length",
    "tags-on-padding": "IGNORE (-100)",
}


def graded(text: str, name: str, tmp_path):
    path = tmp_path / EXERCISES[name].file_name
    path.write_text(text, encoding="utf-8")
    return grade(EXERCISES[name], load(path), str(path))


def test_at_least_20_exercises_on_at_least_ten_chapters():
    assert len(EXERCISES) >= 20
    assert len({exercise.chapter for exercise in EXERCISES.values()}) >= 10
    assert {name for name, exercise in EXERCISES.items() if exercise.bug} == set(BUG_HINTS)


@pytest.mark.parametrize("name", EXERCISES)
def test_the_untouched_starter_fails_cleanly(name, tmp_path):
    exercise = EXERCISES[name]
    results = graded(starter_code(exercise), name, tmp_path)
    failed = [result for result in results if not result.passed]
    assert failed
    if exercise.bug:  # the starter runs, and the planted mistake gets its hint
        assert any(BUG_HINTS[name] in result.hint for result in failed), failed
    else:  # every check says "not implemented yet", nothing else
        assert all(result.message == NOT_IMPLEMENTED and not result.hint for result in results), results
    assert untranslated(failed) == []


@pytest.mark.parametrize(("name", "correct", "planted", "hint"), PLANTED, ids=[f"{p[0]}:{p[3]}" for p in PLANTED])
def test_a_planted_mistake_gets_its_hint(name, correct, planted, hint, tmp_path):
    code = reference_code(EXERCISES[name])
    assert occurrences(code, correct) >= 1, f"the reference of {name} no longer contains {correct!r}"
    results = graded(layout_free(correct).sub(lambda _: planted, code, count=1), name, tmp_path)
    hints = [result.hint for result in results if not result.passed]
    assert any(hint in text for text in hints), hints
    assert untranslated([result for result in results if not result.passed]) == []  # --lang zh says it all


def untranslated(results) -> list[str]:
    """The lines of these results that `--lang zh` would leave in English (two English words, no Chinese)."""
    import re

    from tutorial_tools.language import say

    lines = [line for result in results for line in (result.name, *result.message.splitlines(), result.hint) if line]

    def words(line: str) -> int:  # English words, not names of code (padding_mask, x.shape)
        return sum(bool(re.fullmatch(r"[A-Za-z]{3,}[,.:;]?", word)) for word in line.split())

    return [line for line in lines if words(line) >= 2 and say(line, "zh") == line]


def test_each_chapter_folder_lists_only_its_own_exercises_and_mistakes():
    from tutorial_tools.exercises.exercise import chapter_module

    for chapter in {exercise.chapter for exercise in EXERCISES.values()}:
        module = chapter_module(chapter, "exercises")
        assert {exercise.chapter for exercise in module.EXERCISES} == {chapter}, f"docs/{chapter}/exercises.py"
        assert {EXERCISES[name].chapter for name, *_ in module.PLANTED} <= {chapter}, f"docs/{chapter}/exercises.py"
        assert chapter_module(chapter, "graders") is not None, f"docs/{chapter}/ has exercises but no graders.py"


def test_every_exercise_with_a_planted_mistake_is_covered():
    covered = {name for name, *_ in PLANTED} | set(BUG_HINTS)
    assert covered == set(EXERCISES)


def run_cli(*args, cwd):
    """The command of this checkout (not of the one the environment was installed from), run in `cwd`."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "tutorial_tools", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env=environment,
    )


@pytest.mark.integration
def test_exercise_writes_a_starter_once_and_check_grades_it(tmp_path):
    written = run_cli("exercise", "causal-mask", cwd=tmp_path)
    assert written.returncode == 0 and (tmp_path / "causal_mask.py").is_file()
    again = run_cli("exercise", "causal-mask", cwd=tmp_path)
    assert again.returncode == 2 and "--force" in again.stderr
    starter = run_cli("check", "causal-mask", cwd=tmp_path)
    assert starter.returncode == 1 and "not implemented yet" in starter.stdout
    assert "Traceback" not in starter.stdout + starter.stderr
    (tmp_path / "causal_mask.py").write_text(reference_code(EXERCISES["causal-mask"]))
    (tmp_path / "shift_right.py").write_text("import torch\n\n\ndef shift_right(target):\n    return target\n")
    solved = run_cli("check", "causal-mask", cwd=tmp_path)
    assert solved.returncode == 0 and "all checks pass" in solved.stdout
    listed = run_cli("exercise", "--list", cwd=tmp_path).stdout.splitlines()
    state = {line.split()[0]: line for line in listed}
    assert set(state) == set(EXERCISES)
    assert state["causal-mask"].endswith("passes") and state["shift-right"].endswith("does not pass yet")
    assert state["kv-cache"].endswith("not started yet") and "kv_cache" in state["kv-cache"]
    forced = run_cli("exercise", "causal-mask", "--force", cwd=tmp_path)
    assert forced.returncode == 0 and "NotImplementedError" in (tmp_path / "causal_mask.py").read_text()


@pytest.mark.integration
def test_an_unknown_exercise_gets_a_suggestion(tmp_path):
    result = run_cli("check", "causal-masks", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean 'causal-mask'" in result.stderr


@pytest.mark.integration
def test_a_syntax_error_is_reported_with_its_line(tmp_path):
    (tmp_path / "causal_mask.py").write_text("import torch\n\ndef causal_mask(seq_len)\n    return None\n")
    result = run_cli("check", "causal-mask", cwd=tmp_path)
    assert result.returncode == 1 and "syntax error on line 3" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_a_missing_module_is_named(tmp_path):
    path = tmp_path / "causal_mask.py"
    path.write_text("import torhc\n")
    with pytest.raises(Exception, match="imports 'torhc', which is not installed"):
        load(path)


@pytest.mark.integration
def test_an_endless_loop_is_stopped_and_reported(tmp_path):
    path = tmp_path / "causal_mask.py"
    path.write_text("import itertools\n\nfor step in itertools.count():\n    pass\n")
    status, text = grade_in_subprocess("causal-mask", path, time_limit=3)
    assert status == 1
    assert "did not finish within 3 s while loading the file: look for a loop that never ends" in text


def test_the_site_build_never_imports_the_grader():
    """Pages show the solutions as included text and the repairs as diffs (the plugin reads the catalogue and
    the starter's sections for them); no chapter, plugin or build module grades or runs a learner's file."""
    paths = [*(ROOT / "sitebuild").rglob("*.py")]
    paths += [*(ROOT / "docs").glob("*/script.py"), *(ROOT / "docs").glob("*/checks.py")]
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for grader in ("exercises.grading", "exercises.checks", "graders", "grade_in_subprocess"):
            assert grader not in text, (path, grader)


def test_a_find_the_bug_solution_is_the_diff_of_its_repair():
    for name, exercise in EXERCISES.items():
        if exercise.bug:
            diff = fix_diff(exercise)
            removed = [line[1:] for line in diff.splitlines() if line.startswith("-")]
            added = [line[1:] for line in diff.splitlines() if line.startswith("+")]
            assert removed and added, name
            starter, reference = starter_code(exercise), reference_code(exercise)
            assert all(line in starter and line not in reference for line in removed), name
            assert all(line in reference and line not in starter for line in added), name
            assert len(diff.splitlines()) <= 12, f"{name}: a diff of {len(diff.splitlines())} lines"


def test_every_exercise_ends_its_chapter_page_with_the_commands_and_a_folded_solution():
    for name, exercise in EXERCISES.items():
        page = (ROOT / "docs" / exercise.chapter / "index.md").read_text(encoding="utf-8")
        exercises = page.split("\n## Exercises\n", 1)
        assert len(exercises) == 2, f"docs/{exercise.chapter}/index.md has no Exercises section"
        entry = exercises[1].split(f"### {exercise.title}\n", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
        assert f"`transformer-tutorial exercise {name}`" in entry and f"`transformer-tutorial check {name}`" in entry
        source = f"tutorial_code/{exercise.module.split('.')[-1]}.py"
        solution = entry.split('??? success "Solution', 1)[1]
        included = [line.strip() for line in solution.splitlines() if "--8<--" in line]
        if exercise.bug:  # one line that says what the bug was, then the repair as a diff, not the function again
            assert included == [], name
            assert f'```diff fix="{name}"' in solution, name
            assert "**The bug:** " in solution.split("```", 1)[0], name
        else:  # the sections the page prints already, in a folded box of the lesson or in the solution of an
            # exercise above, are not printed again: the solution links to where the page shows them
            above = exercises[0] + exercises[1].split(f"### {exercise.title}\n", 1)[0]
            lines = [line.strip() for line in above.splitlines()]
            shown = [section for section in exercise.sections if f'--8<-- "{source}:{section}"' in lines]
            rest = [section for section in exercise.sections if section not in shown]
            expected = [f'--8<-- "{source}:{section}"' for section in ("imports", *rest)] if rest else []
            assert included == expected, name
            if shown:
                assert "](#" in solution, f"{name}: a solution that leaves out {shown[0]} links to where it is shown"


ASKS_FOR_ERRORS = ("raise", "error", "refuse")


@pytest.mark.parametrize("name", [n for n, e in EXERCISES.items() if not e.bug])
def test_an_exercise_that_grades_errors_asks_for_them(name):
    """A grader grades what the task asks: a check of the errors is announced in the task's words."""
    exercise = EXERCISES[name]
    grades_errors = [step for step, _ in exercise.checks if "error" in step]
    if grades_errors:
        assert any(word in exercise.task.lower() for word in ASKS_FOR_ERRORS), (
            f"{name}: its grader checks {grades_errors[0]!r}, but the task never asks for it: say in the task "
            f"(docs/{exercise.chapter}/exercises.py) which inputs raise an error"
        )


@pytest.mark.integration
def test_a_file_named_after_a_module_beside_the_solution_neither_breaks_nor_fakes_the_grade(tmp_path):
    """An honest learner keeps notes in json.py, or a copy of the package in tutorial_tools/: grading is unchanged."""
    (tmp_path / "json.py").write_text("raise RuntimeError('the learner json.py was imported')\n", encoding="utf-8")
    fake = tmp_path / "tutorial_tools"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise RuntimeError('the learner tutorial_tools was imported')\n", "utf-8")
    (tmp_path / "causal_mask.py").write_text(reference_code(EXERCISES["causal-mask"]), encoding="utf-8")
    # the command as the installed `transformer-tutorial` script runs it: the folder is not on its own path
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = "import sys; del sys.path[0]; from tutorial_tools.cli import main; sys.exit(main())"
    command = [sys.executable, "-c", script, "check", "causal-mask"]
    solved = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120, env=environment)
    assert solved.returncode == 0 and "all checks pass" in solved.stdout, solved.stdout + solved.stderr
