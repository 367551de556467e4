"""The exercises that end the chapter "Positional encoding": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "sinusoidal-table",
        "positional_encoding",
        "Implement the sinusoidal table",
        "Return the (max_len, d_model) table of sines (even features) and cosines (odd features). Raise a ValueError for an odd d_model, and for a max_len or d_model of 0.",
        "tutorial_code.positional",
        ("sinusoidal_table",),
        "SINUSOIDAL_TABLE",
        write=("sinusoidal_table",),
        imports="import math\n"
        "\n"
        "import torch\n"
        "from tutorial_code.validation import check_counts\n",
        applies=("sizes",),
    ),
    Exercise(
        "shift-rotation",
        "positional_encoding",
        "Implement the shift rotation R_k",
        "Return the matrix that moves every sinusoidal position vector k positions on. Raise a ValueError for an odd d_model or one of 0.",
        "tutorial_code.positional",
        ("shift_rotation",),
        "SHIFT_ROTATION",
        write=("shift_rotation",),
        imports="import math\n"
        "\n"
        "import torch\n"
        "from tutorial_code.validation import check_counts\n",
        applies=("sizes",),
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("sinusoidal-table", "torch.sin(position * frequency)\n    table[:, 1::2] = torch.cos", "torch.cos(position * frequency)\n    table[:, 1::2] = torch.sin", "swapped"),
    ("shift-rotation", "torch.sin(k * frequency)", "torch.sin(-k * frequency)", "back"),
]  # fmt: skip
