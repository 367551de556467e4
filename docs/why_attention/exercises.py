"""The exercises that end the chapter "Why attention": what the learner writes or repairs (graded by
`graders.py` beside this file), and mistakes planted in each reference, with the words of the hint the
grader must give (tests/unit/test_exercises.py)."""

# ruff: noqa: E501 - the planted mistakes read best one per line

from tutorial_tools.exercises.exercise import Exercise

EXERCISES = [
    Exercise(
        "recurrent-by-hand",
        "why_attention",
        "Implement a recurrent layer step by step",
        "Compute every hidden state of a one-layer nn.RNN with a loop over the positions, as its equation "
        "reads, and see why the steps cannot run in parallel. "
        "Raise a ValueError for an nn.RNN it does not follow: more than one layer, bidirectional, batch_first=False, a nonlinearity other than tanh, or no biases.",
        "tutorial_code.why_attention",
        ("recurrent_by_hand",),
        "RECURRENT",
        write=("recurrent_by_hand",),
        imports="import torch\nfrom torch import nn\n",
        applies=("sizes", "gradients", "device", "in place"),
    ),
    Exercise(
        "recurrent-time-axis",
        "why_attention",
        "Find the bug: states stacked on the wrong axis",
        "This recurrent layer computes the right numbers and returns them in a shape nn.RNN(batch_first=True) "
        "would not.",
        "tutorial_code.why_attention",
        ("recurrent_by_hand",),
        "RECURRENT",
        bug=("return torch.stack(states, dim=1)", "return torch.stack(states)"),
        imports="import torch\nfrom torch import nn\n",
    ),
]

PLANTED = [  # (exercise, text of the reference solution, planted mistake, words of the hint it must get)
    ("recurrent-by-hand", "h = torch.tanh(x[:, t] @ rnn.weight_ih_l0.T", "h = (x[:, t] @ rnn.weight_ih_l0.T", "tanh"),
    ("recurrent-by-hand", "h @ rnn.weight_hh_l0.T", "0 * h @ rnn.weight_hh_l0.T", "starts again from zero"),
]  # fmt: skip
