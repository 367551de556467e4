"""Chapter "Why attention": the recurrent layer, step by step."""

from __future__ import annotations

import copy
from types import ModuleType

import torch
from torch import nn
from tutorial_tools.exercises.checks import expect_error
from tutorial_tools.exercises.common import (
    Grader,
    call_on_copies,
    expect_same,
    expect_same_gradients,
    expect_same_on_meta,
    generator,
    perturbed,
    shape,
)

# (B, T, d_in, d_hidden): a batch of three, and a batch of one with an odd length and other widths
SIZES = [(3, 7, 4, 6), (1, 5, 3, 5)]


def _mistakes(rnn: nn.RNN, x: torch.Tensor, expected: torch.Tensor) -> list:
    """What the usual slips give: each computed with the layer's own weights."""
    w_ih, b_ih, w_hh, b_hh = (
        rnn.weight_ih_l0,
        rnn.bias_ih_l0,
        rnn.weight_hh_l0,
        rnn.bias_hh_l0,
    )

    def loop(step) -> torch.Tensor:
        h, states = x.new_zeros(x.size(0), rnn.hidden_size), []
        for t in range(x.size(1)):
            h = step(x[:, t], h)
            states.append(h)
        return torch.stack(states, dim=1)

    mistakes = [
        (loop(lambda x_t, h: torch.tanh(x_t @ w_ih.T + b_ih + b_hh)),
         "every step starts again from zero: feed each step the hidden state h the step before left"),
        (loop(lambda x_t, h: x_t @ w_ih.T + b_ih + h @ w_hh.T + b_hh), "apply tanh at every step, in the recurrence"),
        (loop(lambda x_t, h: torch.tanh(x_t @ w_ih.T + b_ih + h @ w_hh + b_hh)),
         "nn.RNN stores weight_hh_l0 as (out, in): multiply h by its transpose, h @ weight_hh_l0.T"),
        (loop(lambda x_t, h: torch.tanh(x_t @ w_ih.T + h @ w_hh.T + b_hh)), "add both biases: bias_ih_l0 is missing"),
        (loop(lambda x_t, h: torch.tanh(x_t @ w_ih.T + b_ih + h @ w_hh.T)), "add both biases: bias_hh_l0 is missing"),
    ]  # fmt: skip
    if x.size(0) != x.size(
        1
    ):  # with B == T the two orders cannot be told apart
        mistakes.insert(0, (expected.transpose(0, 1),
                            "your states are (T, B, d_hidden): stack them along dim=1, batch first"))  # fmt: skip
    return mistakes


def _check_recurrent(learner: ModuleType) -> None:
    for seed, (batch, length, d_in, d_hidden) in enumerate(SIZES):
        torch.manual_seed(seed)
        rnn = nn.RNN(d_in, d_hidden, batch_first=True)
        x = torch.randn(batch, length, d_in, generator=generator(seed))
        with torch.no_grad():
            expected = rnn(x)[0]
            mistakes = _mistakes(rnn, x, expected)
            got = call_on_copies(learner.recurrent_by_hand, rnn, x)
        what = f"the hidden states for x of shape {shape(x)} and d_hidden = {d_hidden}, against nn.RNN's"
        expect_same(got, expected, what, mistakes)


def _check_recurrent_errors(learner: ModuleType) -> None:
    x = torch.randn(2, 3, 4, generator=generator())
    for what, rnn in [
        ("a two-layer nn.RNN", nn.RNN(4, 6, num_layers=2, batch_first=True)),
        (
            "a bidirectional nn.RNN",
            nn.RNN(4, 6, bidirectional=True, batch_first=True),
        ),
        ("an nn.RNN with batch_first=False", nn.RNN(4, 6)),
        (
            "an nn.RNN with nonlinearity='relu'",
            nn.RNN(4, 6, nonlinearity="relu", batch_first=True),
        ),
        (
            "an nn.RNN with bias=False",
            nn.RNN(4, 6, bias=False, batch_first=True),
        ),
    ]:
        expect_error(
            lambda rnn=rnn: learner.recurrent_by_hand(rnn, x.clone()),
            (ValueError,),
            what,
        )


class _Layer(nn.Module):
    """`rnn`'s hidden states, computed by `run(rnn, x)`: the layer as a module, so that the gradient and device
    checks reach its weights."""

    def __init__(self, run, rnn: nn.RNN) -> None:
        super().__init__()
        self.run, self.rnn = run, rnn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.run(self.rnn, x)


def _pytorch_states(rnn: nn.RNN, x: torch.Tensor) -> torch.Tensor:
    return rnn(x)[0]


def _layers(learner: ModuleType, seed: int) -> tuple[nn.Module, nn.Module]:
    """nn.RNN as the reference, and the learner's function on a copy of its weights."""
    torch.manual_seed(seed)
    rnn = perturbed(nn.RNN(4, 6, batch_first=True), seed)
    ours = _Layer(
        lambda rnn, x: call_on_copies(learner.recurrent_by_hand, rnn, x),
        copy.deepcopy(rnn),
    )
    return _Layer(_pytorch_states, rnn), ours


def _check_recurrent_gradients(learner: ModuleType) -> None:
    reference, ours = _layers(learner, 3)
    x = torch.randn(2, 5, 4, generator=generator(3))
    expect_same_gradients(
        reference, ours, (x,), f"recurrent_by_hand for x of shape {shape(x)}"
    )


def _check_recurrent_device(learner: ModuleType) -> None:
    reference, ours = _layers(learner, 4)
    x = torch.randn(2, 5, 4, generator=generator(4))
    expect_same_on_meta(
        reference,
        ours,
        (x,),
        "the hidden states for an nn.RNN and x on another device",
    )


RECURRENT: Grader = [
    ("the hidden states, step by step", _check_recurrent),
    ("on the inputs' device", _check_recurrent_device),
    (
        "gradients reach every input and weight, as the reference's",
        _check_recurrent_gradients,
    ),
    ("a clear error for an RNN it does not follow", _check_recurrent_errors),
]
