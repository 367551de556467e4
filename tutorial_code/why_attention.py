"""Why attention: what a recurrent layer does with a long sequence, measured."""

# --8<-- [start:imports]
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from tutorial_code.validation import check_counts

# --8<-- [end:imports]


# --8<-- [start:timing]
@dataclass
class Timing:
    """Median forward times, in ms, of `nn.RNN` and `nn.MultiheadAttention`."""

    seq_len: int
    recurrent_ms: float
    attention_ms: float


def median_ms(function: Callable[[], object], repeats: int = 5) -> float:
    """Median wall-clock time of `function()` in ms, after one warm-up call."""
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

    `d_model` is the width of the token vectors and of the hidden state.
    """
    check_counts(batch_size=batch_size, d_model=d_model)
    torch.manual_seed(0)
    recurrent = nn.RNN(d_model, d_model, batch_first=True)
    attention = nn.MultiheadAttention(d_model, num_heads=4, batch_first=True)
    rows = []
    with torch.no_grad():
        for seq_len in seq_lens:
            x = torch.randn(batch_size, seq_len, d_model)
            recurrent_ms = median_ms(lambda x=x: recurrent(x))
            attention_ms = median_ms(
                lambda x=x: attention(x, x, x, need_weights=False)
            )
            rows.append(Timing(seq_len, recurrent_ms, attention_ms))
    return rows


# --8<-- [end:timing]


# --8<-- [start:gradient_reach]
def gradient_reach(
    seq_len: int = 64, d_model: int = 32, seed: int = 0
) -> tuple[list[float], list[float]]:
    """How strongly the last output depends on each input: RNN and attention.

    Returns:
        `(recurrent, attention)`: for each input position t, the norm of the
        gradient of the last output with respect to input t, averaged over 16
        sequences, for freshly initialized layers.
    """
    check_counts(seq_len=seq_len, d_model=d_model)
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

    `h_t = tanh(x_t W_ih^T + b_ih + h_(t-1) W_hh^T + b_hh)`, from `h = 0`, for
    `x` (B, T, d_in); the result (B, T, d_hidden) equals `rnn(x)[0]`. `rnn` must
    be one layer, one direction, tanh, with biases and `batch_first=True`.

    Examples:
        >>> rnn = nn.RNN(3, 5, batch_first=True)
        >>> x = torch.randn(2, 4, 3)
        >>> torch.allclose(recurrent_by_hand(rnn, x), rnn(x)[0], atol=1e-6)
        True
    """
    one_plain_layer = rnn.num_layers == 1 and not rnn.bidirectional and rnn.bias
    if not one_plain_layer or not rnn.batch_first or rnn.nonlinearity != "tanh":
        raise ValueError(
            "recurrent_by_hand follows a one-layer, one-direction "
            "tanh nn.RNN with "
            f"biases and batch_first=True, got {rnn}"
        )
    h = x.new_zeros(x.size(0), rnn.hidden_size)  # (B, d_hidden)
    states = []
    # step t cannot start before step t - 1 has finished
    for t in range(x.size(1)):
        # needs step t - 1's h
        from_state = h @ rnn.weight_hh_l0.T + rnn.bias_hh_l0
        h = torch.tanh(
            x[:, t] @ rnn.weight_ih_l0.T + rnn.bias_ih_l0 + from_state
        )
        states.append(h)
    return torch.stack(states, dim=1)  # (B, T, d_hidden)


# --8<-- [end:recurrent_by_hand]
