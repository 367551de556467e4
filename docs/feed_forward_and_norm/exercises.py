"""The exercises that end the chapter "Feed-forward, residuals and LayerNorm": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import KINDS, Exercise

EXERCISES = [
    Exercise(
        "feed-forward",
        "feed_forward_and_norm",
        "Implement FeedForward.forward",
        "Two linear layers with a ReLU between them, applied to each position on its own.",
        "tutorial_code.feed_forward",
        ("feed_forward",),
        "FEED_FORWARD",
        write=("FeedForward.forward",),
        applies=("sizes", "modes", "gradients", "device", "in place"),
    ),
    Exercise(
        "encoder-layer",
        "feed_forward_and_norm",
        "Implement EncoderLayer.forward, post-norm and pre-norm",
        "Self-attention and the feed-forward network, each in a residual connection with LayerNorm, in the "
        "order `norm_first` asks for (write both).",
        "tutorial_code.encoder",
        ("encoder_layer",),
        "ENCODER_LAYER",
        write=("EncoderLayer.forward",),
        imports="import torch\n"
        "from torch import nn\n"
        "\n"
        "from tutorial_code.feed_forward import FeedForward\n"
        "from tutorial_code.masks import merge_masks\n"
        "from tutorial_code.multi_head import MultiHeadAttention\n"
        "from tutorial_code.validation import check_counts, check_flags, check_probabilities\n",
        applies=KINDS,
    ),
    Exercise(
        "dropout-on-the-residual",
        "feed_forward_and_norm",
        "Find the bug: dropout in the wrong place",
        "This layer equals the reference at inference, and yet it trains worse: look at what dropout touches.",
        "tutorial_code.encoder",
        ("encoder_layer",),
        "ENCODER_LAYER",
        bug=(
            "x = x + self.dropout1(attended)\n            x = x + self.dropout2(",
            "x = self.dropout1(x) + attended\n            x = x + self.dropout2(",
        ),
        imports="import torch\n"
        "from torch import nn\n"
        "\n"
        "from tutorial_code.feed_forward import FeedForward\n"
        "from tutorial_code.masks import merge_masks\n"
        "from tutorial_code.multi_head import MultiHeadAttention\n"
        "from tutorial_code.validation import check_counts, check_flags, check_probabilities\n",
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("feed-forward", "self.dropout(torch.relu(self.linear1(x)))", "self.dropout(self.linear1(x))", "no activation"),
    ("encoder-layer", "self.attention(self.norm1(x), mask=mask)", "self.attention(self.norm1(x))", "mask is ignored"),
    ("encoder-layer", "if self.norm_first:", "if not self.norm_first:", "other order"),
]  # fmt: skip
