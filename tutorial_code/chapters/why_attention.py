# %% [markdown]
# # 1. Why attention
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial why-attention` (options: `--help`).


# %%
# --8<-- [start:setup]
import os

import torch

from tutorial_code.efficiency import attention_flops, recurrent_flops
from tutorial_code.plots import log_lines
from tutorial_code.why_attention import gradient_reach, time_layers

# --8<-- [end:setup]


# %%
# --8<-- [start:timing]
print(f"CPU threads used by PyTorch: {torch.get_num_threads()} (of {os.cpu_count()} cores)")
print(f"{'T':>5} {'RNN (ms)':>9} {'attention (ms)':>15} {'attention / RNN':>16}")
rows = time_layers(seq_lens=(64, 128, 256, 512, 1024), d_model=64, batch_size=8)
for row in rows:
    ratio = row.attention_ms / row.recurrent_ms
    print(f"{row.seq_len:>5} {row.recurrent_ms:>9.1f} {row.attention_ms:>15.1f} {ratio:>16.1f}")
# The arithmetic behind the times, counted: how much more work T = 1024 takes than T = 512.
recurrent_work = recurrent_flops(8, 1024, 64) / recurrent_flops(8, 512, 64)
attention_work = attention_flops(8, 1024, 64) / attention_flops(8, 512, 64)
print(f"work from T = 512 to 1024: RNN x{recurrent_work:.1f}, attention x{attention_work:.1f}")
# --8<-- [end:timing]


# %%
# --8<-- [start:gradient_reach]
recurrent, attention = gradient_reach(seq_len=64, d_model=32)
print(f"{'input position':>15} {'RNN gradient':>13} {'attention gradient':>19}")
for t in (0, 16, 32, 48, 56, 62, 63):
    print(f"{t:>15} {recurrent[t]:>13.1e} {attention[t]:>19.1e}")
earlier = attention[:63]  # every position but the last, whose input is also the query
# --8<-- [end:gradient_reach]


# %%
# --8<-- [start:gradient_reach_figure]
fig = log_lines(
    [("RNN (nn.RNN, tanh)", recurrent, "#c62828"), ("self-attention", attention, "#3f51b5")],
    xlabel="input position t (the output read is at position 63)",
    ylabel="gradient norm (log scale)",
)
# --8<-- [end:gradient_reach_figure]
