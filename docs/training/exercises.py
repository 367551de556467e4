"""The exercises that end the chapter "The complete model, trained": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "learning-rate-schedule",
        "training",
        "Implement the learning-rate schedules",
        "Return the factor of the base learning rate at step `step` (from 0). During the first `warmup_steps` "
        "steps it rises linearly, (step + 1) / warmup_steps; after them, 'constant' stays at 1, 'inverse_sqrt' is "
        "sqrt(warmup_steps / (step + 1)) (with 1 for warmup_steps when there is no warm-up), and 'cosine' is "
        "0.5 (1 + cos(pi p)), p going from 0 right after the warm-up to 1 at the last step, steps - 1. "
        "Raise a ValueError for an unknown schedule.",
        "tutorial_code.digit_model",
        ("schedule",),
        "SCHEDULE",
        write=("learning_rate_factor",),
        imports="import math\n"
        "from tutorial_code.validation import check_count\n",
        applies=("sizes", "arguments"),
    ),
    Exercise(
        "classifier-pooling",
        "training",
        "Implement EncoderClassifier.forward",
        "Encode the tokens, average each sequence's vectors over its real tokens only, and map the mean to logits. "
        "A sequence of padding only has no real token: its mean is a vector of zeros, not NaN.",
        "tutorial_code.encoder",
        ("classifier",),
        "CLASSIFIER",
        write=("EncoderClassifier.forward",),
        imports="import torch\n"
        "from torch import nn\n"
        "\n"
        "from tutorial_code.encoder import Encoder\n"
        "from tutorial_code.validation import check_count\n",
        applies=("sizes", "arguments", "gradients", "device", "in place"),
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("learning-rate-schedule", "return (step + 1) / warmup_steps", "return step / warmup_steps", "step 0"),
    ("classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = encoded.mean(dim=1)", "padding"),
]  # fmt: skip
