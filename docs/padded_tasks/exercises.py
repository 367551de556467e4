"""The exercise that ends the chapter "Classifying and tagging variable-length sequences": what the learner
repairs (graded by `graders.py` beside this file), with the words of the hint the grader must give
(tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the task reads best on one line

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "tags-on-padding",
        "padded_tasks",
        "Find the bug: tags on the padding",
        "These tags are right on every real digit, and yet the tagger's loss and accuracy count the padded positions as tokens.",
        "tutorial_code.padded_tasks",
        ("data",),
        "TOKEN_LABELS",
        bug=(
            "return above.long().masked_fill(~real, IGNORE)",
            "return above.long().masked_fill(~real, 0)",
        ),
        imports="import torch\n\nfrom tutorial_code.validation import check_count, check_token_ids\n",
        applies=("sizes", "device", "in place"),
    )
]

PLANTED = []  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
