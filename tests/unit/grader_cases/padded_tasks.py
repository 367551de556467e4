"""Wrong solutions and correct variants of the exercises of chapter "Classifying and tagging variable-length sequences": tags-on-padding.

The format and the categories: tests/unit/test_grader_mistakes.py.
"""

# ruff: noqa: E501 - the tables read best one solution per line

NO_HINT = None  # rejected, and no failing check claims a known mistake

# (category, exercise, text of the page's solution, the learner's text, words of the failure, or NO_HINT)
WRONG = [

]  # fmt: skip

# (category, exercise, text of the page's solution, a correct solution written differently)
RIGHT = [
    ("written differently", "tags-on-padding", "above = tokens * real.sum(dim=1, keepdim=True) > total", "above = tokens.double() > total.double() / real.sum(dim=1, keepdim=True).clamp(min=1)"),
]  # fmt: skip
