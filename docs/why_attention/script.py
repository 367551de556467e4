# %% [markdown]
# # 1. Why attention
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial why-attention` (options: `--help`).


# %%
# --8<-- [start:connection_paths_figure]
from tutorial_code.diagrams.attention import connection_paths

fig = connection_paths(seq_len=8)
# --8<-- [end:connection_paths_figure]


# %%
# --8<-- [start:setup]
import os

import torch
from tutorial_code.why_attention import gradient_reach, time_layers

# --8<-- [end:setup]


# %%
# --8<-- [start:gradient_reach]
recurrent, attention = gradient_reach(seq_len=64, d_model=32)
print(f"{'input position':>15} {'RNN gradient':>13} {'attention gradient':>19}")
for t in (0, 16, 32, 48, 56, 62, 63):
    print(f"{t:>15} {recurrent[t]:>13.1e} {attention[t]:>19.1e}")
# --8<-- [end:gradient_reach]


# %%
# --8<-- [start:gradient_reach_figure]
from tutorial_code.diagrams.plots import log_lines

fig = log_lines(
    [
        ("RNN (nn.RNN, tanh)", recurrent, "#c62828"),
        ("self-attention", attention, "#3f51b5"),
    ],
    xlabel="input position t (the output read is at position 63)",
    ylabel="gradient norm (log scale)",
)
# --8<-- [end:gradient_reach_figure]


# %%
# --8<-- [start:timing]
threads, cores = torch.get_num_threads(), os.cpu_count()
print(f"CPU threads used by PyTorch: {threads} (of {cores} cores)")
print(
    f"{'T':>5} {'RNN (ms)':>9} {'attention (ms)':>15} {'attention / RNN':>16}"
)
rows = time_layers(seq_lens=(64, 128, 256, 512, 1024), d_model=64, batch_size=8)
for row in rows:
    ratio = row.attention_ms / row.recurrent_ms
    times = f"{row.recurrent_ms:>9.1f} {row.attention_ms:>15.1f}"
    print(f"{row.seq_len:>5} {times} {ratio:>16.1f}")
# --8<-- [end:timing]


# %%
# --8<-- [start:work]
# Floating-point operations of one forward pass (B = 8, width d = 64), counted:
# a multiply-add is 2 operations, and (T, d) @ (d, d) takes T * d * d of them.
def rnn_flops(T: int, B: int = 8, d: int = 64) -> int:
    return 2 * B * T * (2 * d * d)  # x_t W_ih and h W_hh at each of the T steps


def attention_flops(T: int, B: int = 8, d: int = 64) -> int:
    # W_Q, W_K, W_V and the output projection
    projections = 2 * B * T * (4 * d * d)
    scores_and_sum = 2 * B * (2 * T * T * d)  # Q K^T, then weights @ V
    return projections + scores_and_sum


print(
    f"{'T':>5} {'RNN work':>9} {'attention work':>15}   "
    "(each x the work at T / 2)"
)
growth = []
for T in (128, 256, 512, 1024):
    rnn_growth = rnn_flops(T) / rnn_flops(T // 2)
    growth.append(attention_flops(T) / attention_flops(T // 2))
    print(f"{T:>5} {rnn_growth:>8.1f}x {growth[-1]:>14.1f}x")
# --8<-- [end:work]
