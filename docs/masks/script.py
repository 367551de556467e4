# %% [markdown]
# # 3. Masks
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial masks` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
import torch.nn.functional as F
from torch import nn
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.masks import (
    causal_mask,
    padding_mask,
    padding_mask_from_tokens,
)

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the random weights and inputs
# --8<-- [end:parameters]


# %%
# --8<-- [start:padding_by_hand]
# real tokens in each of 2 sequences, padded to T = 5
lengths = torch.tensor([3, 2])
positions = torch.arange(5)  # (T,)
# one sequence at a time: position s is a real token when s < its length
keep = torch.stack([positions < length for length in lengths])  # (B, T)
print(keep)
# --8<-- [end:padding_by_hand]


# %%
# --8<-- [start:padding]
# 0 is the padding token
tokens = torch.tensor([[5, 8, 3, 0, 0], [7, 2, 0, 0, 0]])
mask = padding_mask_from_tokens(tokens, pad_id=0)  # (B, 1, 1, T)
print("mask shape:", tuple(mask.shape))
# the same mask, from the lengths
from_lengths = padding_mask(lengths, max_len=5)
print("same as from lengths:", torch.equal(mask, from_lengths))
torch.manual_seed(SEED)
x = torch.randn(2, 1, 5, 4)  # (B, h=1, T, d_k)
_, weights = scaled_dot_product_attention(x, x, x, mask=mask)
print("weights of sequence 1 (2 real tokens, 3 padding):")
print(weights[1, 0])
# --8<-- [end:padding]


# %%
# --8<-- [start:causal]
print(causal_mask(5).int())
# (5, 5) & (B, 1, 1, 5) -> (B, 1, 5, 5)
combined = causal_mask(5) & from_lengths
print("causal and padding together:", tuple(combined.shape))
# --8<-- [end:causal]


# %%
# --8<-- [start:mask_maps_figure]
from tutorial_code.diagrams.attention import mask_maps

# 2 padding tokens, then 3 real
left_padded = torch.tensor([False, False, True, True, True])
fig = mask_maps(
    [
        from_lengths[1, 0].expand(5, 5),
        causal_mask(5),
        combined[1, 0],
        causal_mask(5) & left_padded,
    ],
    [
        "padding: 2 real tokens",
        "causal",
        "causal & padding",
        "causal & left padding",
    ],
)
# --8<-- [end:mask_maps_figure]


# %%
# --8<-- [start:merge_masks]
from tutorial_code.masks import merge_masks

x = torch.zeros(2, 5, 4)  # (B, T, d_model): merge_masks reads only the sizes
is_real = from_lengths[:, 0, 0]  # (B, T_k): True = a real token
merged = merge_masks(causal_mask(5), is_real, query=x, key=x)
print("merged:", tuple(merged.shape))
print("same as causal & padding:", torch.equal(merged, combined))
try:
    # the padding mask passed as `mask`
    merge_masks(is_real, None, query=x, key=x)
except ValueError as error:
    refused = str(error)
print("ValueError:", refused)
# --8<-- [end:merge_masks]


# %%
# --8<-- [start:minus_inf]
scores = torch.tensor([[2.0, 1.0, 0.5], [1.0, 3.0, 0.0]])
# row 1: all blocked
blocked = torch.tensor([[False, False, True], [True, True, True]])
with_inf = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
with_large = torch.softmax(scores.masked_fill(blocked, -1e4), dim=-1)
print("softmax with -inf:", with_inf)
print("softmax with -1e4:", with_large)
# --8<-- [end:minus_inf]


# %%
# --8<-- [start:behaviour_table]
torch.manual_seed(SEED)
B, T, d = 2, 4, 8
x = torch.randn(B, 1, T, d)  # (B, h=1, T, d_k): one head
# sequence 1 is all padding
keep = padding_mask(torch.tensor([4, 0]), max_len=T)
ours, _ = scaled_dot_product_attention(x, x, x, mask=keep)
theirs = F.scaled_dot_product_attention(x, x, x, attn_mask=keep)
outputs = {"scaled_dot_product_attention (this site)": ours}
outputs["F.scaled_dot_product_attention"] = theirs
# PyTorch's layer takes (B, T, d) and a (B, T) mask, True = blocked. Its biases
# start at 0, so a zero attention output stays zero.
layer = nn.MultiheadAttention(d, num_heads=2, batch_first=True)
# (B, T, d), (B, T)
seq, blocked = (x[:, 0], ~keep[:, 0, 0])
for need in (True, False):  # need_weights=True is the default
    output, _ = layer(
        seq, seq, seq, key_padding_mask=blocked, need_weights=need
    )
    outputs[f"nn.MultiheadAttention, need_weights={need}"] = output
with torch.inference_mode():  # eval() without autograd: PyTorch's "fast path"
    fast, _ = layer.eval()(
        seq, seq, seq, key_padding_mask=blocked, need_weights=False
    )
outputs["nn.MultiheadAttention, eval() fast path"] = fast


def describe(output: torch.Tensor) -> str:
    if torch.isnan(output).any():
        return "NaN"
    return "zeros" if output.abs().max() == 0 else "finite, not zero"


results = {name: describe(output[1]) for name, output in outputs.items()}
print("| implementation | output for the all-padding sequence |")
print("|---|---|")
for name, result in results.items():
    print(f"| {name} | {result} |")
# --8<-- [end:behaviour_table]
