"""The exercises that end the chapter "Checking against PyTorch": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "copy-attention-weights",
        "checking_against_pytorch",
        "Copy nn.MultiheadAttention's weights",
        "Fill W_Q, W_K, W_V and W_O of the site's module with copies of a PyTorch module's weights, so both give the same output. Leave the PyTorch module unchanged, sharing no memory with the copy.",
        "tutorial_code.from_torch",
        ("multi_head_attention_from_torch",),
        "COPY_WEIGHTS",
        write=("copy_multi_head_attention_weights",),
        imports="import torch\n"
        "from torch import nn\n"
        "\n"
        "from tutorial_code.multi_head import MultiHeadAttention\n"
        "from tutorial_code.validation import check_torch_attention\n",
        applies=("sizes", "in place"),
    ),
    Exercise(
        "mask-for-pytorch",
        "checking_against_pytorch",
        "Convert a mask for nn.MultiheadAttention",
        "Turn a mask of this site's convention (True = may attend) into the one nn.MultiheadAttention reads. Raise a TypeError for a mask that is not boolean.",
        "tutorial_code.masks",
        ("to_torch_multihead_mask",),
        "TO_TORCH_MASK",
        write=("to_torch_multihead_mask",),
        imports="import torch\n",
        applies=("sizes", "device", "in place"),
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("mask-for-pytorch", "return ~mask", "return mask", "'blocked'"),
    ("copy-attention-weights", "target.W_Q.weight.copy_(W_Q)", "target.W_Q.weight.copy_(W_Q.T)", ".T"),
    ("copy-attention-weights", "target.W_Q.weight.copy_(W_Q)", "target.W_Q.weight.copy_(W_K)", "in that order"),
]  # fmt: skip
