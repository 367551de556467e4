"""The exercises that end the chapter "Scaled dot-product attention": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import KINDS, Exercise

EXERCISES = [
    Exercise(
        "scaled-dot-product-attention",
        "scaled_dot_product_attention",
        "Implement scaled dot-product attention",
        "Return (output, weights) for queries, keys and values, with an optional boolean or float mask; a query "
        "whose keys are all masked gets zero weights, not NaN. "
        "Raise a ValueError when the query and key widths differ, when keys and values differ in number or when the mask's shape does not fit, and a TypeError for an integer mask or integer inputs.",
        "tutorial_code.attention",
        ("scaled_dot_product_attention",),
        "ATTENTION",
        write=("scaled_dot_product_attention",),
        applies=KINDS,
    ),
    Exercise(
        "attention-too-sharp",
        "scaled_dot_product_attention",
        "Find the bug: attention that is too sharp",
        "This attention runs, and its weights sum to 1, but they are far too peaked.",
        "tutorial_code.attention",
        ("scaled_dot_product_attention",),
        "ATTENTION",
        bug=(
            "scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
            "scores = query @ key.transpose(-2, -1)",
        ),
    ),
    Exercise(
        "attention-wrong-axis",
        "scaled_dot_product_attention",
        "Find the bug: weights that do not sum to 1",
        "This attention returns weights of the right shape whose rows do not sum to 1.",
        "tutorial_code.attention",
        ("scaled_dot_product_attention",),
        "ATTENTION",
        bug=(
            "weights = torch.softmax(scores, dim=-1)",
            "weights = torch.softmax(scores, dim=-2)",
        ),
    ),
    Exercise(
        "self-attention",
        "scaled_dot_product_attention",
        "Implement SelfAttention.forward",
        "Project the token vectors to queries, keys and values and attend: the weights come from the input. Raise a ValueError when the input's width is not d_model.",
        "tutorial_code.attention",
        ("scaled_dot_product_attention", "self_attention"),
        "SELF_ATTENTION",
        write=("SelfAttention.forward",),
        applies=("sizes", "arguments", "gradients", "device", "in place"),
    ),
    Exercise(
        "shared-projection",
        "scaled_dot_product_attention",
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
    ("scaled-dot-product-attention", "/ math.sqrt(d_k)", "/ d_k", "not by d_k"),
    ("scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-2)", "dim=-1"),
    ("scaled-dot-product-attention", 'masked_fill(~mask, float("-inf"))', "masked_fill(~mask, -1e9)", "leaks"),
    ("scaled-dot-product-attention", "no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)", "no_key = torch.zeros_like(scores[..., :1], dtype=torch.bool)", "NaN"),
    ("scaled-dot-product-attention", 'masked_fill(~mask, float("-inf"))', 'masked_fill(mask, float("-inf"))', "~mask"),
    ("self-attention", "self.W_V(x), mask)", "self.W_V(x))", "mask is ignored"),
]  # fmt: skip
