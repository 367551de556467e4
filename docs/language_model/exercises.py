"""The exercises that end the chapter "A language model that writes": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "unigram-bpc",
        "language_model",
        "Implement the unigram baseline",
        "Return the bits per character of a model that predicts each character from its training frequency.",
        "tutorial_code.language_model",
        ("baselines",),
        "UNIGRAM",
        write=("unigram_bpc", "bigram_bpc"),
        imports="import torch\n",
        applies=("sizes", "in place"),
    ),
    Exercise(
        "bigram-bpc",
        "language_model",
        "Implement the bigram baseline",
        "Return the bits per character of a model that predicts each character from the one before it.",
        "tutorial_code.language_model",
        ("baselines",),
        "BIGRAM",
        write=("unigram_bpc", "bigram_bpc"),
        imports="import torch\n",
        applies=("sizes", "in place"),
    ),
    Exercise(
        "top-p-filter",
        "language_model",
        "Implement the top-p filter",
        "Keep the smallest set of tokens whose probabilities reach top_p, and set every other logit to -inf.",
        "tutorial_code.language_model",
        ("top_p",),
        "TOP_P",
        write=("top_p_filter",),
        imports="import torch\n",
        applies=("sizes", "device", "in place"),
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("unigram-bpc", "log_p = torch.log2(counts / counts.sum())", "log_p = torch.log(counts / counts.sum())", "nats"),
    ("unigram-bpc", "counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1", "counts = torch.bincount(train_ids, minlength=vocab_size).double()", "add one"),
    ("bigram-bpc", "counts.sum(dim=1, keepdim=True)", "counts.sum(dim=0, keepdim=True)", "each row"),
    ("top-p-filter", "ahead = probabilities.cumsum(dim=-1) - probabilities", "ahead = probabilities.cumsum(dim=-1)", "not including it"),
    ("top-p-filter", "outside = outside.scatter(-1, order, outside)", "outside = outside", "own order"),
    ("top-p-filter", 'return logits.masked_fill(outside, float("-inf"))', "return logits.masked_fill(outside, 0.0)", "-inf"),
]  # fmt: skip
