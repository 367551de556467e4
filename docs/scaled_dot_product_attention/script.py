# %% [markdown]
# # 2. Scaled dot-product attention
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial scaled-dot-product-attention` (options: `--help`).


# %%
# --8<-- [start:weighted_sum_figure]
import torch
from tutorial_code.diagrams.attention import weighted_sum

# four tokens of width 2, the same as in the first example below
vectors = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [3.0, -1.0]])
fixed_row = torch.full((4,), 1 / 4)  # the mean of the four tokens
scores_of_2 = vectors @ vectors[2] / 2**0.5  # token 2 scores every token
computed_row = torch.softmax(scores_of_2, dim=0)
fig = weighted_sum(
    [fixed_row, computed_row],
    ["fixed weights: the mean", "weights computed from the tokens"],
    query=2,
)
# --8<-- [end:weighted_sum_figure]


# %%
# --8<-- [start:setup]
import math

import torch
from torch import nn

torch.set_printoptions(precision=3, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the random weights and inputs
# --8<-- [end:parameters]


# %%
# --8<-- [start:average]
# four tokens of width 2
tokens = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [3.0, -1.0]])
n = len(tokens)
# each token becomes the mean of itself and the tokens before it: a loop
means = torch.stack([tokens[: t + 1].mean(dim=0) for t in range(n)])
# the same means as one matrix product, with fixed weights
past = torch.ones(n, n, dtype=torch.bool).tril()  # row t: True for tokens 0..t
fixed = past / past.sum(dim=1, keepdim=True)  # row t: 1/(t+1) on tokens 0..t
print("fixed weights (row t: token t's average):")
print(fixed)
# and as a softmax of equal scores, the later tokens set to -inf
equal = torch.zeros(n, n).masked_fill(~past, float("-inf"))
from_softmax = torch.softmax(equal, dim=-1)
same_means = torch.allclose(fixed @ tokens, means)
same_weights = torch.equal(from_softmax, fixed)
print("weights @ tokens gives the loop's means:", same_means)
print("the softmax of equal scores gives these weights:", same_weights)
# --8<-- [end:average]


# %%
# --8<-- [start:six_steps]
torch.manual_seed(SEED)
B, T, d_model, d_k = 2, 5, 8, 4
x = torch.randn(B, T, d_model)  # two sequences of five token vectors
# learned projections (still random here)
W_Q = nn.Linear(d_model, d_k, bias=False)
W_K = nn.Linear(d_model, d_k, bias=False)
W_V = nn.Linear(d_model, d_k, bias=False)

Q, K, V = W_Q(x), W_K(x), W_V(x)  # 1. project: (B, T, d_k) each
# 2. score every query against every key: (B, T, T)
scores = Q @ K.transpose(-2, -1)
# 3. scale: keeps the spread of the scores near 1
scaled = scores / math.sqrt(d_k)
allowed = torch.ones(
    T, T, dtype=torch.bool
).tril()  # True = may attend (key s <= t)
# 4. mask (optional): weight 0
masked = scaled.masked_fill(~allowed, float("-inf"))
weights = torch.softmax(masked, dim=-1)  # 5. softmax over the keys: (B, T, T)
output = weights @ V  # 6. weighted sum of the values: (B, T, d_k)

print("weights of sequence 0 (row t: query t; column s: key s):")
print(weights[0].detach())
print("each row sums to", weights[0].sum(dim=-1).detach())
print("output:", tuple(output.shape))
# --8<-- [end:six_steps]


# %%
# --8<-- [start:six_steps_figure]
from tutorial_code.diagrams.plots import flow_diagram


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
# --8<-- [end:six_steps_figure]


# %%
# --8<-- [start:same_as_function]
from tutorial_code.attention import scaled_dot_product_attention

ours, _ = scaled_dot_product_attention(Q, K, V, mask=allowed)
difference = (ours - output).abs().max().item()
print(f"largest difference from the six steps: {difference:.1e}")
# --8<-- [end:same_as_function]


# %%
# --8<-- [start:tiny_example]
# Three tokens, each a 4-number vector. Token 0 and token 2 point the same way.
x = torch.tensor(
    [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.9, 0.1]]
).unsqueeze(0)  # (B=1, T=3, d_k=4)

output, weights = scaled_dot_product_attention(query=x, key=x, value=x)
print("weights (row t: how much query t takes from each token):")
print(weights[0])
print("each row sums to", weights[0].sum(dim=-1))
print("output row 0 = weighted sum of value rows:")
print(output[0, 0], "==", weights[0, 0] @ x[0])
# --8<-- [end:tiny_example]


# %%
# --8<-- [start:one_query_figure]
from tutorial_code.diagrams.attention import one_query

scaled_scores = x[0] @ x[0].T / math.sqrt(x.size(-1))  # (T, T)
fig = one_query(
    x[0, 0], x[0], scaled_scores[0], weights[0, 0], x[0], output[0, 0]
)
# --8<-- [end:one_query_figure]


# %%
# --8<-- [start:qkv]
torch.manual_seed(SEED)
# W_Q, W_K, W_V: three learned 4x4 matrices, each an nn.Linear without bias
W_Q = nn.Linear(4, 4, bias=False)
W_K = nn.Linear(4, 4, bias=False)
W_V = nn.Linear(4, 4, bias=False)
Q, K, V = W_Q(x), W_K(x), W_V(x)  # (B, T, d_k) each
output, weights = scaled_dot_product_attention(Q, K, V)
print("weights with learned projections (before any training):")
print(weights[0].detach())
# --8<-- [end:qkv]


# %%
# --8<-- [start:projections_figure]
from tutorial_code.diagrams.attention import projections

with torch.no_grad():  # W as the equations write it: the transpose of .weight
    fig = projections(
        x[0],
        [
            (name, W.weight.T, P[0])
            for name, W, P in (("Q", W_Q, Q), ("K", W_K, K), ("V", W_V, V))
        ],
    )
# --8<-- [end:projections_figure]


# %%
# --8<-- [start:spread]
torch.manual_seed(SEED)
print(
    f"{'d_k':>5} {'std of q.k':>11} {'sqrt(d_k)':>10} "
    f"{'std of q.k/sqrt(d_k)':>21}"
)
scaled_spreads = []
for d_k in (16, 64, 256):
    # 10,000 query-key pairs with unit-variance entries
    q = torch.randn(10_000, d_k)
    k = torch.randn(10_000, d_k)
    scores = (q * k).sum(dim=-1)  # one dot product per pair
    scaled_spreads.append((scores / math.sqrt(d_k)).std().item())
    print(f"{d_k:>5} {scores.std():>11.2f} {math.sqrt(d_k):>10.2f}", end=" ")
    print(f"{scaled_spreads[-1]:>21.2f}")
# --8<-- [end:spread]


# %%
# --8<-- [start:soft_lookup]
keys = torch.eye(3)  # three keys, one-hot
values = torch.tensor([10.0, 20.0, 50.0])  # the value stored under each key
query = torch.tensor([0.2, 1.0, 0.4])  # closest to key 1
lookups = []  # the weights, for each factor
for sharpness in (1.0, 4.0, 16.0):  # how far apart the scores are
    soft = torch.softmax(sharpness * (keys @ query), dim=0)  # a weight per key
    lookups.append([round(w, 3) for w in soft.tolist()])
    print(f"scores x {sharpness:>4}: weights {lookups[-1]}", end=" ")
    print(f"-> value {(soft @ values).item():.2f}")
# --8<-- [end:soft_lookup]


# %%
# --8<-- [start:peak]
torch.manual_seed(SEED)
num_keys = 16
top, jacobian, median_gradient, mean_gradient = {}, {}, {}, {}
for d_k in (64, 256):
    # 1,000 queries, each against its own 16 keys and values
    q = torch.randn(1_000, 1, d_k, requires_grad=True)
    k, v = torch.randn(2, 1_000, num_keys, d_k)
    # the gradient arriving at each output: a random direction of length 1
    upstream = torch.nn.functional.normalize(torch.randn(1_000, 1, d_k), dim=-1)
    for name, scale in (("unscaled", 1.0), ("scaled", math.sqrt(d_k))):
        p = torch.softmax(q @ k.transpose(-2, -1) / scale, dim=-1)
        # Jacobian of softmax: diag(p) - p p^T. It vanishes when p is one-hot.
        J = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
        (grad_q,) = torch.autograd.grad(p @ v, q, upstream)  # what reaches q
        run = f"d_k {d_k:>3}, {name:>8}"
        top[run] = p.max(dim=-1).values.mean().item()
        jacobian[run] = J.norm(dim=(-2, -1)).mean().item()
        median_gradient[run] = grad_q.norm(dim=-1).median().item()
        mean_gradient[run] = grad_q.norm(dim=-1).mean().item()
        print(
            f"{run}: top weight {top[run]:.2f}, Jacobian {jacobian[run]:.3f}, "
            f"gradient at q: median {median_gradient[run]:.3f}, "
            f"mean {mean_gradient[run]:.3f}"
        )
# --8<-- [end:peak]


# %%
# --8<-- [start:softmax_scaling]
from tutorial_code.diagrams.plots import bars

torch.manual_seed(1)
d_k = 64
query, keys = torch.randn(d_k), torch.randn(num_keys, d_k)  # one query, 16 keys
scores = keys @ query  # (num_keys,)
fig = bars(
    [
        ("unscaled: softmax(q.k)", torch.softmax(scores, dim=0)),
        (
            f"scaled: softmax(q.k / sqrt({d_k}))",
            torch.softmax(scores / math.sqrt(d_k), dim=0),
        ),
    ],
    xlabel="key",
    ylabel="attention weight",
    reference=1 / num_keys,
)
# --8<-- [end:softmax_scaling]


# %%
# --8<-- [start:causal]
causal = torch.ones(3, 3, dtype=torch.bool).tril()  # row t: True for keys 0..t
print(causal)
output, weights = scaled_dot_product_attention(x, x, x, mask=causal)
print(weights[0])
# --8<-- [end:causal]


# %%
# --8<-- [start:check_torch]
import torch.nn.functional as F

torch.manual_seed(SEED)
# (B=2, h=8, T=10, d_k=16) each
query, key, value = torch.randn(3, 2, 8, 10, 16)
largest_difference = {}
for name, kwargs in (
    ("no mask", {}),
    (
        "boolean causal mask",
        {"mask": torch.ones(10, 10, dtype=torch.bool).tril()},
    ),
    ("float mask", {"mask": torch.randn(10, 10)}),
):
    ours, _ = scaled_dot_product_attention(query, key, value, **kwargs)
    mask = kwargs.get("mask")
    theirs = F.scaled_dot_product_attention(query, key, value, attn_mask=mask)
    largest_difference[name] = (ours - theirs).abs().max().item()
    print(f"{name:>20}: largest difference {largest_difference[name]:.1e}")
# --8<-- [end:check_torch]
