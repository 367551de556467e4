"""Wrong solutions and correct variants of the exercises of chapter "Positional encoding": sinusoidal-table, shift-rotation.

The format and the categories: tests/unit/test_grader_mistakes.py; the kinds each grader must catch: `applies`
on the exercise, in exercises.py beside this file.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [
    ("sizes", "sinusoidal-table", "exponent = torch.arange(0, d_model, 2) / d_model", "exponent = torch.arange(0, d_model, 2) / 16", "sinusoidal_table(7, 6)"),
    ("sizes", "shift-rotation", "exponent = torch.arange(0, d_model, 2) / d_model", "exponent = torch.arange(0, d_model, 2) / 8", "shift_rotation(5, 6)"),
    ("dtype", "sinusoidal-table", "table = torch.zeros(max_len, d_model)", "table = torch.zeros(max_len, d_model, dtype=torch.float64)", "float64"),
    ("dtype", "sinusoidal-table", "    return table\n", "    return table.double()\n", "float64"),
    ("dtype", "shift-rotation", "rotation = torch.zeros(d_model, d_model)", "rotation = torch.zeros(d_model, d_model, dtype=torch.float64)", "float64"),
    ("errors", "sinusoidal-table", "    check_counts(max_len=max_len, d_model=d_model)\n", "", "d_model = 0"),
    ("errors", "shift-rotation", "    check_counts(d_model=d_model)\n", "", "d_model = 0"),
    ("sizes", "sinusoidal-table", "table = torch.zeros(max_len, d_model)", "table = torch.zeros(50, 16)[:max_len, :d_model]", "Target sizes: [50, 8]"),
    ("sizes", "sinusoidal-table", "position = torch.arange(max_len, dtype=torch.float32)[:, None]", "position = torch.arange(50, dtype=torch.float32)[:max_len, None]", "Tensor sizes: [50, 12]"),
    ("sizes", "shift-rotation", "rotation = torch.zeros(d_model, d_model)", "rotation = torch.zeros(16, 16)[:d_model, :d_model]", "Target sizes: [8, 8]"),
]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "sinusoidal-table", "frequency = torch.exp(-math.log(10000.0) * exponent)", "frequency = 1.0 / 10000.0**exponent"),
    ("written differently", "sinusoidal-table", "table[:, 0::2] = torch.sin(position * frequency)", "table[:, 0::2] = torch.sin(position.double() * frequency.double()).float()"),
    ("sizes", "shift-rotation", "rotation[0::2, 0::2] = torch.diag(cos)\n    rotation[0::2, 1::2] = torch.diag(sin)\n    rotation[1::2, 0::2] = torch.diag(-sin)\n    rotation[1::2, 1::2] = torch.diag(cos)", "for i in range(d_model // 2):\n        rotation[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = torch.stack([torch.stack([cos[i], sin[i]]), torch.stack([-sin[i], cos[i]])])"),
    ("sizes", "sinusoidal-table", "exponent = torch.arange(0, d_model, 2) / d_model", "exponent = torch.arange(d_model // 2) * 2 / d_model"),
    ("sizes", "sinusoidal-table", "table = torch.zeros(max_len, d_model)\n    table[:, 0::2] = torch.sin(position * frequency)\n    table[:, 1::2] = torch.cos(position * frequency)\n    return table", "angle = position * frequency\n    return torch.stack([torch.sin(angle), torch.cos(angle)], dim=-1).reshape(len(position), -1)"),
    ("sizes", "shift-rotation", "rotation = torch.zeros(d_model, d_model)", "rotation = torch.zeros(len(frequency) * 2, len(frequency) * 2)"),
]  # fmt: skip
