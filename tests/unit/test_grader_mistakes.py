"""Wrong solutions the graders must reject, and correct solutions written differently that they must accept.

The cases are in each chapter's folder, `docs/<chapter>/grader_cases.py`. Each entry is the page's solution with
one change, in the style a learner writes:
- WRONG: `(category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)`.
  A wrong solution must fail a check, and the failing check must say what is wrong: the words listed are in its
  hint or its message. A hint names a mistake only when the output is what that mistake gives, so a change that is
  no known mistake gets no hint at all (NO_HINT).
- RIGHT: `(category, exercise, text of the page's solution, a correct solution written differently)`; it must pass
  every check.

The categories are the kinds of mistakes a grader must catch (KINDS: sizes above the usual ones, every argument
and setting, train and eval mode, gradients, the device, inputs left unchanged) and a few more: "boundaries"
(counted as sizes), "key and value" and "pad_id" (arguments), "dropout" (dropout in training: modes), "dtype",
"errors" (the documented errors), "hints", "LayerNorm and biases", "written differently".
`test_every_grader_has_both_sides_of_every_kind_that_applies` holds each grader to a wrong solution that fails and
a correct variant that passes, for each kind that applies to it (APPLIES).

Grading runs in this process (`grading.grade`), as `test_exercises.py` does, on one thread; a grade takes a few
hundredths of a second.
"""

import importlib.util
from collections import Counter

import pytest
import torch
from conftest import REPORT, ROOT

from tutorial_tools.exercises import EXERCISES
from tutorial_tools.exercises.exercise import KINDS
from tutorial_tools.exercises.grading import grade, load
from tutorial_tools.exercises.starter import plant, reference_code

CHAPTERS = ROOT / "docs"  # each chapter's cases: docs/<chapter>/grader_cases.py
KIND_OF = {"boundaries": "sizes", "key and value": "arguments", "pad_id": "arguments", "dropout": "modes"}
OTHER_CATEGORIES = {"dtype", "errors", "hints", "LayerNorm and biases", "written differently"}


def _cases() -> tuple[list[tuple], list[tuple]]:
    wrong, right = [], []
    for path in sorted(CHAPTERS.glob("*/grader_cases.py")):
        spec = importlib.util.spec_from_file_location(f"grader_cases_of_{path.parent.name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        wrong += module.WRONG
        right += module.RIGHT
    return wrong, right


WRONG, RIGHT = _cases()

#: The kinds that apply to each grader, named by the exercise it was written for (find-the-bug exercises share
#: their chapter's grader): `applies` on the exercise, in its chapter's exercises.py, which says what is left out.
APPLIES = {name: exercise.applies for name, exercise in EXERCISES.items() if exercise.applies}


def kind(category: str) -> str:
    return KIND_OF.get(category, category)


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The graders' tensors are tiny: one thread computes them fastest, and on a busy machine by far."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def graded(name: str, correct: str, changed: str, tmp_path):
    """Grade the page's solution of `name` with `correct` replaced by `changed` (which must occur exactly once)."""
    code = reference_code(EXERCISES[name])
    path = tmp_path / EXERCISES[name].file_name
    path.write_text(plant(code, correct, changed, what=f"the solution of {name}"), encoding="utf-8")
    return grade(EXERCISES[name], load(path), str(path))


@pytest.mark.parametrize(
    ("category", "name", "correct", "wrong", "words"), WRONG, ids=[f"{w[0]}:{w[1]}:{w[3][:40]}" for w in WRONG]
)
def test_a_wrong_solution_is_rejected_with_what_is_wrong(category, name, correct, wrong, words, tmp_path):
    failed = [result for result in graded(name, correct, wrong, tmp_path) if not result.passed]
    assert failed, f"{category}: the wrong solution passes every check"
    said = [f"{result.message}\n{result.hint}" for result in failed]
    if words is None:  # NO_HINT
        assert not any(result.hint for result in failed), [result.hint for result in failed]
    else:
        assert any(words in text for text in said), said


@pytest.mark.parametrize(
    ("category", "name", "correct", "right"), RIGHT, ids=[f"{r[0]}:{r[1]}:{r[3][:40]}" for r in RIGHT]
)
def test_a_correct_solution_written_differently_passes(category, name, correct, right, tmp_path):
    results = graded(name, correct, right, tmp_path)
    assert all(result.passed for result in results), [result for result in results if not result.passed]


def grader_of(name: str) -> str:
    """The exercise of APPLIES whose grader grades `name`."""
    return next(other for other in APPLIES if EXERCISES[other].checks is EXERCISES[name].checks)


def test_every_grader_is_in_the_table_once():
    graders = {id(exercise.checks) for exercise in EXERCISES.values()}
    assert len(APPLIES) == len(graders) and all(name in EXERCISES for name in APPLIES)
    assert all(set(kinds) <= set(KINDS) for kinds in APPLIES.values())


def test_every_category_is_a_kind_or_named():
    categories = {category for category, *_ in WRONG + RIGHT}
    assert {kind(category) for category in categories} <= set(KINDS) | OTHER_CATEGORIES, categories


def test_every_grader_has_both_sides_of_every_kind_that_applies():
    """For each grader and each kind that applies to it: a wrong solution that fails and a correct variant that
    passes (the two tests above run them)."""
    wrong = {(grader_of(name), kind(category)) for category, name, *_ in WRONG}
    right = {(grader_of(name), kind(category)) for category, name, *_ in RIGHT}
    sides = (("wrong solution", wrong), ("correct variant", right))
    cells = [(name, kind_) for name, kinds in APPLIES.items() for kind_ in kinds]
    missing = [
        f"{name}: {kind_}, no {' and no '.join(side for side, found in sides if (name, kind_) not in found)}"
        for name, kind_ in cells
        if (name, kind_) not in wrong or (name, kind_) not in right
    ]
    assert not missing, f"{len(missing)} of {len(cells)} cells lack a side:\n" + "\n".join(missing)
    counts = {
        side: Counter(kind(category) for category, *_ in cases) for side, cases in (("wrong", WRONG), ("right", RIGHT))
    }
    REPORT["graders' cases (docs/<chapter>/grader_cases.py): wrong solutions rejected + correct variants accepted"] = (
        f"{len(cells)} cells (grader x kind) over {len(APPLIES)} graders, each with both; by category: "
        + ", ".join(f"{c} {counts['wrong'][c]}+{counts['right'][c]}" for c in sorted(counts["wrong"] | counts["right"]))
        + f"; total {len(WRONG)}+{len(RIGHT)}"
    )
