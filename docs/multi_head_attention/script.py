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
STEPS = 500  # optimizer steps of every model this chapter trains
# where they train ("cuda": an NVIDIA GPU); models come back to the CPU
DEVICE = "cpu"
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
# --8<-- [start:task]
from tutorial_code.sum_task import make_batch

numbers, targets = make_batch(3, generator=torch.Generator().manual_seed(SEED))
print("numbers:", numbers)
print("targets (sum / 10):", targets)
# MSE of answering the mean
target_variance = make_batch(100_000)[1].var().item()
print(f"always answering the mean target gives an MSE of {target_variance:.3f}")
# --8<-- [end:task]


# %%
# --8<-- [start:hand_loop]
from tutorial_code.digit_model import DigitModel
from tutorial_code.training_loop import train

torch.manual_seed(SEED)
tiny = DigitModel(d_model=16, num_heads=2, d_ff=32, num_layers=1)  # a small one
losses = train(tiny, make_batch, steps=100, lr=1e-2, seed=SEED)
print(f"loss at step 1: {losses[0]:.2f}; at step 100: {losses[-1]:.2f}")
# --8<-- [end:hand_loop]


# %%
# --8<-- [start:concat_only]
from tutorial_code.sum_task import train_sum_model, trained_sum_model

# trained once
with_w_o = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)
torch.manual_seed(SEED)
model = DigitModel()
for layer in model.layers:
    layer.attention.W_O = nn.Identity()  # heads only concatenated: no mixing
without_w_o = train_sum_model(
    steps=STEPS, seed=SEED, model=model, device=DEVICE
)
held_out_mse = {}
for name, trained in (
    ("with W_O", with_w_o),
    ("heads only concatenated", without_w_o),
):
    parameters = sum(p.numel() for p in trained.model.parameters())
    held_out_mse[name] = mse = trained.eval_loss
    print(f"{name:>24}: {parameters:,} parameters, held-out MSE {mse:.4f}")
# --8<-- [end:concat_only]


# %%
# --8<-- [start:w_o_blocks]
def head_shares(W_O: torch.Tensor, num_heads: int) -> torch.Tensor:
    """How strongly output feature i reads head j: W_O's block (i, j), as a
    share."""
    d_model = W_O.size(0)
    d_k = d_model // num_heads
    blocks = W_O.detach().view(d_model, num_heads, d_k)  # (d_model, h, d_k)
    reads = blocks.norm(dim=-1)  # (d_model, h): the size of each block
    return reads / reads.sum(dim=-1, keepdim=True)


torch.manual_seed(SEED)
untrained = DigitModel()  # the weights that training started from
h = untrained.layers[0].attention.num_heads
shares = {
    "before training": head_shares(untrained.layers[0].attention.W_O.weight, h),
    "after training": head_shares(
        with_w_o.model.layers[0].attention.W_O.weight, h
    ),
}
print(
    "share of each head in output features 0-5 of the first layer, "
    "after training:"
)
print(shares["after training"][:6])
for name, share in shares.items():
    # features that read every head
    every_head = int((share > 0.10).all(dim=-1).sum())
    distance = (share - 1 / h).abs().mean().item()  # how far from even
    print(
        f"{name:>15}: {every_head} of {share.size(0)} output features "
        "read every "
        f"head with at least 10 %; mean distance from an even {1 / h:.0%}: "
        f"{distance:.3f}"
    )
# --8<-- [end:w_o_blocks]


# %%
# --8<-- [start:sum_model_heads]
from tutorial_code.diagrams.plots import heatmaps

numbers = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
with torch.no_grad():
    # the model with W_O
    _, weights = with_w_o.model.eval()(torch.tensor([numbers]))
first_layer = weights[0][0]  # layer 0, sequence 0: (h, T, T)
labels = [str(int(v)) for v in numbers]
heads = [f"head {h}" for h in range(len(first_layer))]
fig = heatmaps(
    list(first_layer),
    heads,
    labels,
    xlabel="key (digit)",
    ylabel="query (digit)",
)
# (h, T): the key each query weighs most, per head
top_key = first_layer.argmax(dim=-1)
# (h,): mean largest weight
sharpness = first_layer.max(dim=-1).values.mean(dim=-1)
pairs = [(i, j) for i in range(len(heads)) for j in range(i + 1, len(heads))]
same_top = {f"{i}-{j}": int((top_key[i] == top_key[j]).sum()) for i, j in pairs}
num_queries = len(labels)
correlation = {
    f"{i}-{j}": torch.corrcoef(
        torch.stack([first_layer[i].flatten(), first_layer[j].flatten()])
    )[0, 1].item()
    for i, j in pairs
}
print(
    "| heads | queries whose largest weight falls on the same key | "
    "correlation of the two maps |"
)
print("|---|---|---|")
for pair in same_top:
    print(
        f"| {pair.replace('-', ' and ')} | {same_top[pair]} of {num_queries} | "
        f"{correlation[pair]:.2f} |"
    )
print()
print(
    "Mean largest weight of a query, per head: "
    + ", ".join(f"head {i} {s:.2f}" for i, s in enumerate(sharpness.tolist()))
    + f" (an even spread gives {1 / len(labels):.3f})."
)
# --8<-- [end:sum_model_heads]


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
