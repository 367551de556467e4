# %% [markdown]
# # 3. Masks
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial masks` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
import torch.nn.functional as F
from torch import nn

from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.masks import causal_mask, padding_mask, padding_mask_from_tokens, to_torch_multihead_mask
from tutorial_code.multi_head import MultiHeadAttention

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the random weights and inputs
# --8<-- [end:parameters]


# %%
# --8<-- [start:padding]
tokens = torch.tensor([[5, 8, 3, 0, 0], [7, 2, 0, 0, 0]])  # 0 is the padding token
mask = padding_mask_from_tokens(tokens, pad_id=0)  # (B, 1, 1, T)
print("mask shape:", tuple(mask.shape))
print("same as from lengths:", torch.equal(mask, padding_mask(torch.tensor([3, 2]), max_len=5)))
torch.manual_seed(SEED)
x = torch.randn(2, 1, 5, 4)  # (B, h=1, T, d_k)
_, weights = scaled_dot_product_attention(x, x, x, mask=mask)
print("weights of sequence 1 (2 real tokens, 3 padding):")
print(weights[1, 0])
# --8<-- [end:padding]


# %%
# --8<-- [start:causal]
print(causal_mask(5).int())
combined = causal_mask(5) & padding_mask(torch.tensor([3, 2]), max_len=5)  # (B, 1, 5, 5)
print("causal and padding together:", tuple(combined.shape))
# --8<-- [end:causal]


# %%
# --8<-- [start:minus_inf]
scores = torch.tensor([[2.0, 1.0, 0.5], [1.0, 3.0, 0.0]])
blocked = torch.tensor([[False, False, True], [True, True, True]])  # row 1: every key blocked
print("softmax with -inf:", torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1))
print("softmax with -1e4:", torch.softmax(scores.masked_fill(blocked, -1e4), dim=-1))
# --8<-- [end:minus_inf]


# %%
# --8<-- [start:behaviour_table]
torch.manual_seed(SEED)
B, T, d_model, num_heads = 2, 4, 8, 2
x = torch.randn(B, T, d_model)
lengths = torch.tensor([4, 0])  # sequence 1 is all padding: each of its queries has no key left
keep = padding_mask(lengths, max_len=T)  # (B, 1, 1, T), True = may attend
blocked = to_torch_multihead_mask(keep[:, 0, 0])  # (B, T), True = blocked
theirs = nn.MultiheadAttention(d_model, num_heads, bias=False, batch_first=True)
ours = MultiHeadAttention(d_model, num_heads, bias=False)  # no bias: a zero stays zero after W_O


def describe(output: torch.Tensor) -> str:
    if torch.isnan(output).any():
        return "NaN"
    return "zeros" if output.abs().max() == 0 else "finite, not zero"


heads = x.view(B, T, num_heads, d_model // num_heads).transpose(1, 2)  # (B, h, T, d_k)
results = {
    "tutorial_code (ours)": ("True = may attend", ours(x, mask=keep)[0][1]),
    "F.scaled_dot_product_attention": (
        "True = may attend",
        F.scaled_dot_product_attention(heads, heads, heads, attn_mask=keep)[1],
    ),
    "nn.MultiheadAttention, train()": ("True = blocked", theirs.train()(x, x, x, key_padding_mask=blocked)[0][1]),
}
with torch.inference_mode():  # eval() without autograd takes PyTorch's "fast path"
    fast = theirs.eval()(x, x, x, key_padding_mask=blocked, need_weights=False)[0]
results["nn.MultiheadAttention, eval() fast path"] = ("True = blocked", fast[1])
print("| implementation | a boolean True means | output for the all-padding sequence |")
print("|---|---|---|")
for name, (convention, output) in results.items():
    print(f"| {name} | {convention} | {describe(output)} |")
# --8<-- [end:behaviour_table]
