# %% [markdown]
# # 2. Scaled dot-product attention
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial scaled-dot-product-attention` (options: `--help`).


# %%
# --8<-- [start:setup]
import math
import warnings

import torch
import torch.nn.functional as F

from tutorial_code.attention import SelfAttention, scaled_dot_product_attention
from tutorial_code.masks import causal_mask
from tutorial_code.plots import bars, flow_diagram

torch.set_printoptions(precision=3, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the random weights and inputs
# --8<-- [end:parameters]


# %%
# --8<-- [start:tiny_example]
# Three tokens, each a 4-number vector. Token 0 and token 2 point the same way.
x = torch.tensor(
    [
        [1.0, 0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0, 1.0],
        [1.0, 0.0, 0.9, 0.1],
    ]
).unsqueeze(0)  # (B=1, T=3, d_k=4)

output, weights = scaled_dot_product_attention(query=x, key=x, value=x)
print("weights (row t: how much query t takes from each token):")
print(weights[0])
print("each row sums to", weights[0].sum(dim=-1))
print("output row 0 = weighted sum of value rows:")
print(output[0, 0], "==", weights[0, 0] @ x[0])
# --8<-- [end:tiny_example]


# %%
# --8<-- [start:qkv]
torch.manual_seed(SEED)
attention = SelfAttention(d_model=4, d_k=4)  # W_Q, W_K, W_V: three learned 4x4 matrices
output, weights = attention(x)
print("weights with learned projections (before any training):")
print(weights[0].detach())
farthest_from_uniform = (weights[0] - 1 / 3).abs().max().item()
# --8<-- [end:qkv]


# %%
# --8<-- [start:spread]
torch.manual_seed(SEED)
print(f"{'d_k':>5} {'std of q.k':>11} {'sqrt(d_k)':>10} {'std of q.k/sqrt(d_k)':>21}")
scaled_spreads = []
for d_k in (16, 64, 256):
    q = torch.randn(10_000, d_k)  # 10,000 query-key pairs with unit-variance entries
    k = torch.randn(10_000, d_k)
    scores = (q * k).sum(dim=-1)  # one dot product per pair
    scaled_spreads.append((scores / math.sqrt(d_k)).std().item())
    print(f"{d_k:>5} {scores.std():>11.2f} {math.sqrt(d_k):>10.2f} {scaled_spreads[-1]:>21.2f}")
# --8<-- [end:spread]


# %%
# --8<-- [start:peak]
torch.manual_seed(SEED)
d_k, num_keys = 64, 16
q = torch.randn(1_000, 1, d_k)  # 1,000 queries, each against its own 16 keys
k = torch.randn(1_000, num_keys, d_k)
raw_scores = (q @ k.transpose(-2, -1)).squeeze(1)  # (1000, 16)
top, gradient = {}, {}
for name, scores in (("unscaled", raw_scores), ("scaled", raw_scores / math.sqrt(d_k))):
    p = torch.softmax(scores, dim=-1)
    # Jacobian of softmax: diag(p) - p p^T. It vanishes when p is one-hot.
    jacobian = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
    top_weight = p.max(dim=-1).values.mean()
    gradient_size = jacobian.norm(dim=(-2, -1)).mean()
    print(f"{name:>8}: top weight {top_weight:.2f} (uniform: {1 / num_keys:.3f}), softmax gradient {gradient_size:.3f}")
    top[name], gradient[name] = top_weight.item(), gradient_size.item()
# --8<-- [end:peak]


# %%
# --8<-- [start:softmax_scaling]
torch.manual_seed(1)
query, keys = torch.randn(d_k), torch.randn(num_keys, d_k)  # one query, 16 keys
scores = keys @ query  # (num_keys,)
fig = bars(
    [
        ("unscaled: softmax(q.k)", torch.softmax(scores, dim=0)),
        (f"scaled: softmax(q.k / sqrt({d_k}))", torch.softmax(scores / math.sqrt(d_k), dim=0)),
    ],
    xlabel="key",
    ylabel="attention weight",
    reference=1 / num_keys,
)
# --8<-- [end:softmax_scaling]


# %%
# --8<-- [start:single_score]
torch.manual_seed(SEED)
q = torch.randn(1, 1, 64)
k = torch.randn(1, 1, 64)
score = q @ k.transpose(-2, -1)  # shape (1, 1, 1): a single number
print("one score:", score.flatten())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    spread = score.std()  # std of a single number: 0 / 0
print("its std:", spread)
print("PyTorch warns:", str(caught[0].message).split(".")[0])
# --8<-- [end:single_score]


# %%
# --8<-- [start:causal]
output, weights = scaled_dot_product_attention(x, x, x, mask=causal_mask(3))
print(weights[0])
# --8<-- [end:causal]


# %%
# --8<-- [start:six_steps]
torch.manual_seed(SEED)
attention = SelfAttention(d_model=8, d_k=4)
x = torch.randn(2, 5, 8)  # (B=2, T=5, d_model=8)
Q, K, V = attention.W_Q(x), attention.W_K(x), attention.W_V(x)  # step 1
scores = Q @ K.transpose(-2, -1)  # step 2
scaled = scores / math.sqrt(Q.size(-1))  # step 3
masked = scaled.masked_fill(~causal_mask(5), float("-inf"))  # step 4 (optional)
weights = torch.softmax(masked, dim=-1)  # step 5
output = weights @ V  # step 6


def shape(t: torch.Tensor) -> str:
    return "shape (" + ", ".join(map(str, t.shape)) + ")"


fig = flow_diagram(
    [
        ("project X to Q, K and V", f"each {shape(Q)}"),
        ("score: Q K^T", shape(scores)),
        ("scale: divide by sqrt(d_k)", shape(scaled)),
        ("mask: blocked scores to -inf", shape(masked)),
        ("softmax over the keys", f"{shape(weights)}, rows sum to 1"),
        ("weighted sum: weights V", shape(output)),
    ]
)
same = torch.allclose(output, scaled_dot_product_attention(Q, K, V, mask=causal_mask(5))[0], atol=1e-6)
# --8<-- [end:six_steps]


# %%
# --8<-- [start:check_torch]
torch.manual_seed(SEED)
query, key, value = torch.randn(3, 2, 8, 10, 16)  # (B=2, h=8, T=10, d_k=16) each
largest_difference = {}
for name, kwargs in (
    ("no mask", {}),
    ("boolean causal mask", {"mask": causal_mask(10)}),
    ("float mask", {"mask": torch.randn(10, 10)}),
):
    ours, _ = scaled_dot_product_attention(query, key, value, **kwargs)
    theirs = F.scaled_dot_product_attention(query, key, value, attn_mask=kwargs.get("mask"))
    largest_difference[name] = (ours - theirs).abs().max().item()
    print(f"{name:>20}: largest difference {largest_difference[name]:.1e}")
# --8<-- [end:check_torch]
