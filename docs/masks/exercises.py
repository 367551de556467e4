"""The exercises that end the chapter "Masks": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "causal-mask",
        "masks",
        "Implement the causal mask",
        "Return the (T, T) boolean mask that lets position t attend to positions 0..t. Raise a ValueError for a length below 1.",
        "tutorial_code.masks",
        ("causal_mask",),
        "CAUSAL_MASK",
        write=("causal_mask",),
        imports="import torch\n",
        applies=("sizes", "arguments", "device"),
    ),
    Exercise(
        "padding-mask",
        "masks",
        "Implement the padding mask",
        "Return the (B, 1, 1, T) mask that hides the padding after each sequence's real tokens. Raise a TypeError for lengths that are not integers, and a ValueError for lengths not of shape (B,), a negative length or one above max_len.",
        "tutorial_code.masks",
        ("padding_mask",),
        "PADDING_MASK",
        write=("padding_mask",),
        applies=("sizes", "arguments", "device", "in place"),
    ),
    Exercise(
        "flipped-mask",
        "masks",
        "Find the bug: a mask read backwards",
        "This attention applies the mask, and yet each query attends to exactly the keys it should not see.",
        "tutorial_code.attention",
        ("scaled_dot_product_attention",),
        "ATTENTION",
        bug=(
            'scores.masked_fill(~mask, float("-inf"))',
            'scores.masked_fill(mask, float("-inf"))',
        ),
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("causal-mask", ".tril()", ".tril(1)", "t + 1"),
    ("causal-mask", ".tril()", ".tril(-1)", "diagonal is missing"),
    ("causal-mask", ".tril()", ".triu()", "upper triangle"),
    ("padding-mask", "return keep[:, None, None, :]", "return keep", "(B, 1, 1, T)"),
    ("padding-mask", "positions[None, :] < lengths", "positions[None, :] <= lengths", "<="),
    ("padding-mask", "return keep[:, None, None, :]", "return ~keep[:, None, None, :]", "flipped"),
]  # fmt: skip
