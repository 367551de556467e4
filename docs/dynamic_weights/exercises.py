"""The exercises that end the chapter "Dynamic weights": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "self-attention",
        "dynamic_weights",
        "Implement SelfAttention.forward",
        "Project the token vectors to queries, keys and values and attend: the weights come from the input. Raise a ValueError when the input's width is not d_model.",
        "tutorial_code.attention",
        ("scaled_dot_product_attention", "self_attention"),
        "SELF_ATTENTION",
        write=("SelfAttention.forward",),
    ),
    Exercise(
        "shared-projection",
        "dynamic_weights",
        "Find the bug: scores that are always symmetric",
        "This self-attention runs, and its weights depend on the input, but the score of token t for token s "
        "always equals the score of s for t.",
        "tutorial_code.attention",
        ("scaled_dot_product_attention", "self_attention"),
        "SELF_ATTENTION",
        bug=(
            "self.W_K(x), self.W_V(x), mask",
            "self.W_Q(x), self.W_V(x), mask",
        ),
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("self-attention", "self.W_V(x), mask)", "self.W_V(x))", "mask is ignored"),
]  # fmt: skip
