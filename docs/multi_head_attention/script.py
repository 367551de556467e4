# %% [markdown]
# # 4. Multi-head attention and W_O
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial multi-head-attention` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from torch import nn
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.masks import padding_mask
from tutorial_code.multi_head import (
    EfficientMultiHeadAttention,
    MultiHeadAttention,
    combine_heads,
    split_heads,
)

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
# --8<-- [end:parameters]


# %%
# --8<-- [start:lesson_module]
class MultiHeadSelfAttention(nn.Module):
    """The computing lines of `MultiHeadAttention`, for self-attention only."""

    def __init__(self, d_model: int, num_heads: int) -> None:
        super().__init__()
        self.num_heads = num_heads
        # the queries of all heads at once
        self.W_Q = nn.Linear(d_model, d_model)
        self.W_K = nn.Linear(d_model, d_model)
        self.W_V = nn.Linear(d_model, d_model)
        self.W_O = nn.Linear(d_model, d_model)  # mixes the heads' results

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        Q = split_heads(self.W_Q(x), self.num_heads)  # (B, h, T, d_k)
        K = split_heads(self.W_K(x), self.num_heads)  # (B, h, T, d_k)
        V = split_heads(self.W_V(x), self.num_heads)  # (B, h, T, d_k)
        heads, weights = scaled_dot_product_attention(Q, K, V)  # (B, h, T, d_k)
        return self.W_O(combine_heads(heads)), weights  # (B, T, d_model)


torch.manual_seed(SEED)
lesson = MultiHeadSelfAttention(d_model=16, num_heads=4)
x = torch.randn(2, 5, 16)  # (B, T, d_model)
output, weights = lesson(x)
print("output: ", tuple(output.shape), "(B, T, d_model)")
print("weights:", tuple(weights.shape), "(B, h, T, T): one map per head")
# --8<-- [end:lesson_module]


# %%
# --8<-- [start:lesson_module_check]
complete = MultiHeadAttention(d_model=16, num_heads=4)
complete.load_state_dict(lesson.state_dict())  # the same four matrices
lesson_difference = (output - complete(x)[0]).abs().max().item()
print(f"largest difference from MultiHeadAttention: {lesson_difference:.1e}")
# --8<-- [end:lesson_module_check]


# %%
# --8<-- [start:shapes]
torch.manual_seed(SEED)
B, T, d_model, num_heads = 2, 5, 16, 4
attention = MultiHeadAttention(d_model, num_heads)
x = torch.randn(B, T, d_model)
print("x                ", tuple(x.shape), "  (B, T, d_model)")
Q = split_heads(attention.W_Q(x), num_heads)
K = split_heads(attention.W_K(x), num_heads)
V = split_heads(attention.W_V(x), num_heads)
print("Q, K, V per head ", tuple(Q.shape), "(B, h, T, d_k)")
heads, weights = scaled_dot_product_attention(Q, K, V)
print("weights          ", tuple(weights.shape), "(B, h, T, T)")
print("heads            ", tuple(heads.shape), "(B, h, T, d_k)")
concat = combine_heads(heads)
print("concatenated     ", tuple(concat.shape), "  (B, T, h * d_k)")
output = attention.W_O(concat)
print("after W_O        ", tuple(output.shape), "  (B, T, d_model)")
print("same as the module:", torch.allclose(output, attention(x)[0]))
# --8<-- [end:shapes]


# %%
# --8<-- [start:heads_loop]
from tutorial_code.multi_head import attend_head_by_head

with torch.no_grad():
    # (B, T, d_model)
    projected = (attention.W_Q(x), attention.W_K(x), attention.W_V(x))
    looped = attend_head_by_head(*projected, num_heads)
loop_difference = (looped - concat).abs().max().item()
print(f"largest difference, loop against batched heads: {loop_difference:.1e}")
# --8<-- [end:heads_loop]


# %%
# --8<-- [start:head_split]
from tutorial_code.diagrams.heads import head_split_figure

with torch.no_grad():  # the first sequence of the batch above
    fig = head_split_figure(
        attention.W_Q(x)[0], Q[0], concat[0], attention.W_O.weight, output[0]
    )
# --8<-- [end:head_split]


# %%
# --8<-- [start:efficient]
torch.manual_seed(SEED)
naive = MultiHeadAttention(d_model=64, num_heads=8).eval()
efficient = EfficientMultiHeadAttention(d_model=64, num_heads=8).eval()
efficient.load_state_dict(naive.state_dict())  # same W_Q, W_K, W_V, W_O
x = torch.randn(4, 32, 64)
mask = padding_mask(torch.tensor([32, 20, 7, 1]), max_len=32)
difference = (naive(x, mask=mask)[0] - efficient(x, mask=mask)[0]).abs().max()
print(f"largest difference between the two: {difference:.1e}")
# --8<-- [end:efficient]
