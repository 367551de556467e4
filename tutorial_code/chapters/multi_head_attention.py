# %% [markdown]
# # 4. Multi-head attention and W_O
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial multi-head-attention` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from torch import nn

from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.digit_model import DigitModel
from tutorial_code.masks import padding_mask
from tutorial_code.multi_head import EfficientMultiHeadAttention, MultiHeadAttention, combine_heads, split_heads
from tutorial_code.plots import heatmaps
from tutorial_code.sum_task import make_batch, train_sum_model, trained_sum_model

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of every model this chapter trains
DEVICE = "cpu"  # where they train: "cuda" on an NVIDIA GPU; trained models come back to the CPU
# --8<-- [end:parameters]


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
# --8<-- [start:w_o_blocks]
def head_shares(W_O: torch.Tensor, num_heads: int) -> torch.Tensor:
    """How strongly output feature i reads head j: the size of W_O's block (i, head j's d_k columns), as a share."""
    d_model = W_O.size(0)
    reads = W_O.detach().view(d_model, num_heads, d_model // num_heads).norm(dim=-1)  # (d_model, h)
    return reads / reads.sum(dim=-1, keepdim=True)


result = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)  # the sum-task model, trained once
torch.manual_seed(SEED)
untrained = DigitModel()  # the weights that training started from
h = untrained.layers[0].attention.num_heads
shares = {
    "before training": head_shares(untrained.layers[0].attention.W_O.weight, h),
    "after training": head_shares(result.model.layers[0].attention.W_O.weight, h),
}
print("share of each head in output features 0-5 of the first layer, after training:")
print(shares["after training"][:6])
for name, share in shares.items():
    every_head = int((share > 0.10).all(dim=-1).sum())
    print(
        f"{name:>15}: {every_head} of {share.size(0)} output features read every head with at least 10 %; "
        f"mean distance from an even {1 / h:.0%}: {(share - 1 / h).abs().mean():.3f}"
    )
untrained_every_head = int((shares["before training"] > 0.10).all(dim=-1).sum())
output_features = shares["before training"].size(0)
distance_before, distance_after = ((share - 1 / h).abs().mean().item() for share in shares.values())
# --8<-- [end:w_o_blocks]


# %%
# --8<-- [start:concat_only]
with_w_o = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)
torch.manual_seed(SEED)
model = DigitModel()
for layer in model.layers:
    layer.attention.W_O = nn.Identity()  # heads only concatenated: no mixing, no parameters
without_w_o = train_sum_model(steps=STEPS, seed=SEED, model=model, device=DEVICE)
for name, trained in (("with W_O", with_w_o), ("heads only concatenated", without_w_o)):
    parameters = sum(p.numel() for p in trained.model.parameters())
    print(f"{name:>24}: {parameters:,} parameters, held-out MSE {trained.eval_loss:.4f}")
target_variance = make_batch(100_000)[1].var().item()  # the MSE of always answering the mean
print(f"for scale: always answering the mean target gives an MSE of {target_variance:.3f}")
without_w_o_mse = without_w_o.eval_loss
# --8<-- [end:concat_only]


# %%
# --8<-- [start:sum_model_heads]
numbers = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
with torch.no_grad():
    _, weights = with_w_o.model.eval()(torch.tensor([numbers]))  # the model with W_O, trained above
first_layer = weights[0][0]  # layer 0, sequence 0: (h, T, T)
labels = [str(int(v)) for v in numbers]
heads = [f"head {h}" for h in range(len(first_layer))]
fig = heatmaps(list(first_layer), heads, labels, xlabel="key (digit)", ylabel="query (digit)")
closest_pair = min(
    (first_layer[i] - first_layer[j]).abs().max().item() for i in range(h) for j in range(i + 1, h)
)  # the two most similar heads: their largest difference in any weight
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
