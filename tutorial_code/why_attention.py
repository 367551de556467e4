"""Why attention: what a recurrent layer does with a long sequence, measured.

Two measurements behind the first rows of Table 1 of "Attention Is All You Need":
how the time of one forward pass grows with the sequence length n, and how much
of the gradient of the last output reaches each earlier input (the path length).

Shape letters: B = batch size, T = sequence length (n in the paper), d_model =
width of a token vector.
"""

# --8<-- [start:imports]
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

# --8<-- [end:imports]


# --8<-- [start:timing]
@dataclass
class Timing:
    """Forward time of one layer for one sequence length.

    Attributes:
        seq_len: Sequence length T.
        recurrent_ms: Median time of `nn.RNN` over the sequence, in milliseconds.
        attention_ms: Median time of `nn.MultiheadAttention` as self-attention, in
            milliseconds.
    """

    seq_len: int
    recurrent_ms: float
    attention_ms: float


def median_ms(function: Callable[[], object], repeats: int = 5) -> float:
    """Median wall-clock time of `function()` in milliseconds, after one warm-up call.

    Args:
        function: A callable with no arguments.
        repeats: Number of timed calls. Defaults to 5.

    Returns:
        The median time in milliseconds.
    """
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)[len(times) // 2]


def time_layers(
    seq_lens: tuple[int, ...] = (64, 128, 256, 512, 1024),
    d_model: int = 64,
    batch_size: int = 8,
) -> list[Timing]:
    """Time PyTorch's recurrent layer and its self-attention layer on the CPU.

    Args:
        seq_lens: Sequence lengths to try. Defaults to 64 up to 1024.
        d_model: Width of the token vectors and of the hidden state. Defaults to 64.
        batch_size: Sequences per forward pass. Defaults to 8.

    Returns:
        One [`Timing`][tutorial_code.why_attention.Timing] per length.
    """
    torch.manual_seed(0)
    recurrent = nn.RNN(d_model, d_model, batch_first=True)
    attention = nn.MultiheadAttention(d_model, num_heads=4, batch_first=True)
    rows = []
    with torch.no_grad():
        for seq_len in seq_lens:
            x = torch.randn(batch_size, seq_len, d_model)
            recurrent_ms = median_ms(lambda x=x: recurrent(x))
            attention_ms = median_ms(lambda x=x: attention(x, x, x, need_weights=False))
            rows.append(Timing(seq_len, recurrent_ms, attention_ms))
    return rows


# --8<-- [end:timing]


# --8<-- [start:gradient_reach]
def gradient_reach(
    seq_len: int = 64,
    d_model: int = 32,
    seed: int = 0,
) -> tuple[list[float], list[float]]:
    """How strongly the last output depends on each input, for an RNN and for attention.

    Both layers are PyTorch's (`nn.RNN`, and `nn.MultiheadAttention` with queries, keys
    and values all from the input), freshly initialized, as at the start of training.
    The size of the gradient of the last position's output with respect to input t says
    how much a training signal at the end can change what happens at position t.

    Args:
        seq_len: Sequence length T. Defaults to 64.
        d_model: Width of the layers. Defaults to 32.
        seed: Seed of the weights and the input. Defaults to 0.

    Returns:
        `(recurrent, attention)`: for each input position t, the norm of the gradient
        of the last output with respect to input t, averaged over 16 sequences.
    """
    torch.manual_seed(seed)
    recurrent = nn.RNN(d_model, d_model, batch_first=True)
    attention = nn.MultiheadAttention(d_model, num_heads=4, batch_first=True)
    reach = []
    for layer in (lambda x: recurrent(x)[0], lambda x: attention(x, x, x)[0]):
        x = torch.randn(16, seq_len, d_model, requires_grad=True)
        layer(x)[:, -1].sum().backward()  # the last position's output
        reach.append(x.grad.norm(dim=-1).mean(dim=0).tolist())  # (T,)
    return reach[0], reach[1]


# --8<-- [end:gradient_reach]


# --8<-- [start:recurrent_by_hand]
def recurrent_by_hand(rnn: nn.RNN, x: torch.Tensor) -> torch.Tensor:
    """Run a one-layer `nn.RNN` step by step, the way its equation reads.

    `h_t = tanh(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh)`, starting from `h = 0`.
    Each step needs the state the step before it left: T steps one after the other,
    however many cores there are.

    Args:
        rnn: A one-layer, one-direction `nn.RNN` with `batch_first=True`, tanh and
            biases (its defaults, apart from `batch_first`).
        x: Inputs, shape (B, T, d_in).

    Returns:
        Every hidden state, shape (B, T, d_hidden): the same as `rnn(x)[0]`.

    Raises:
        ValueError: If `rnn` is not such a layer.

    Examples:
        >>> rnn = nn.RNN(3, 5, batch_first=True)
        >>> x = torch.randn(2, 4, 3)
        >>> torch.allclose(recurrent_by_hand(rnn, x), rnn(x)[0], atol=1e-6)
        True
    """
    one_plain_layer = rnn.num_layers == 1 and not rnn.bidirectional and rnn.bias
    if not one_plain_layer or not rnn.batch_first or rnn.nonlinearity != "tanh":
        raise ValueError(
            "recurrent_by_hand follows a one-layer, one-direction tanh nn.RNN with "
            f"biases and batch_first=True, got {rnn}"
        )
    h = x.new_zeros(x.size(0), rnn.hidden_size)  # (B, d_hidden)
    states = []
    for t in range(x.size(1)):  # step t cannot start before step t - 1 has finished
        from_state = h @ rnn.weight_hh_l0.T + rnn.bias_hh_l0  # needs step t - 1's h
        h = torch.tanh(x[:, t] @ rnn.weight_ih_l0.T + rnn.bias_ih_l0 + from_state)
        states.append(h)
    return torch.stack(states, dim=1)  # (B, T, d_hidden)


# --8<-- [end:recurrent_by_hand]
