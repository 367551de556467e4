"""The exercises that end the chapter "Multi-head attention and W_O": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import KINDS, Exercise

EXERCISES = [
    Exercise(
        "split-and-combine-heads",
        "multi_head_attention",
        "Implement split_heads and combine_heads",
        "Cut (B, T, d_model) into h heads of (B, h, T, d_k), and join them back.",
        "tutorial_code.multi_head",
        ("split_heads", "combine_heads"),
        "HEADS",
        write=("split_heads", "combine_heads"),
        imports="import torch\n",
        applies=("sizes", "gradients", "device", "in place"),
    ),
    Exercise(
        "heads-without-transpose",
        "multi_head_attention",
        "Find the bug: heads that mix positions",
        "The shapes are right, and yet each head sees a jumble of positions and features.",
        "tutorial_code.multi_head",
        ("split_heads", "combine_heads"),
        "HEADS",
        bug=(
            "x.view(B, T, num_heads, d_k).transpose(1, 2)",
            "x.view(B, num_heads, T, d_k)",
        ),
        imports="import torch\n",
    ),
    Exercise(
        "multi-head-forward",
        "multi_head_attention",
        "Implement MultiHeadAttention.forward",
        "Project queries, keys and values, attend in every head at once, and mix the heads with W_O. Raise a ValueError when the input's width is not d_model.",
        "tutorial_code.multi_head",
        ("multi_head_attention",),
        "MULTI_HEAD",
        write=("MultiHeadAttention.forward",),
        imports="import torch\nfrom torch import nn\n\n"
        "from tutorial_code.attention import scaled_dot_product_attention\n"
        "from tutorial_code.masks import merge_masks\n"
        "from tutorial_code.multi_head import combine_heads, split_heads\n"
        "from tutorial_code.validation import check_counts, check_flags, check_probabilities\n",
        applies=KINDS,
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "x.reshape(B, T, h * d_k)", "cuts the sequence"),
    ("multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return combine_heads(heads), weights", "W_O"),
    ("multi-head-forward", "self.attend(Q, K, V, mask)", "self.attend(Q, K, V, None)", "mask is ignored"),
]  # fmt: skip
