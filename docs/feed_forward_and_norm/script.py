# %% [markdown]
# # 6. Feed-forward, residuals and LayerNorm
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial feed-forward-and-norm` (options: `--help`).


# %%
# --8<-- [start:setup]

import torch
from torch import nn
from tutorial_code.diagrams.blocks import residual_orders
from tutorial_code.diagrams.plots import log_lines
from tutorial_code.feed_forward import FeedForward
from tutorial_code.layer_norm import LayerNorm
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.residual import gradient_norm_per_layer

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
# --8<-- [end:parameters]


# %%
# --8<-- [start:ffn_std]
stds = []
print(
    "std of a fresh FFN's output, unit-variance input, "
    f"seeds {SEED}-{SEED + 4}:"
)
# the article's size, the paper's size
for d_model, d_ff in ((64, 256), (512, 2048)):
    for seed in range(SEED, SEED + 5):
        torch.manual_seed(seed)
        ffn = FeedForward(d_model, d_ff)  # PyTorch's default initialization
        stds.append(ffn(torch.randn(2, 10, d_model)).std().item())
    print(
        f"  d_model {d_model:>3}, d_ff {d_ff:>4}:",
        *(f"{s:.3f}" for s in stds[-5:]),
    )
# --8<-- [end:ffn_std]


# %%
# --8<-- [start:parameter_share]
sizes = (("the paper's layer", 512, 2048, 8), ("this site's model", 32, 64, 4))
for name, d_model, d_ff, num_heads in sizes:
    ffn = sum(p.numel() for p in FeedForward(d_model, d_ff).parameters())
    heads = MultiHeadAttention(d_model, num_heads)
    attention = sum(p.numel() for p in heads.parameters())
    share = ffn / (ffn + attention)
    print(
        f"{name}: feed-forward {ffn:,}, attention {attention:,} parameters",
        end=" ",
    )
    print(f"({share:.0%} in the FFN)")
# --8<-- [end:parameter_share]


# %%
# --8<-- [start:layer_norm_by_hand]
torch.manual_seed(SEED)
# token vectors far from mean 0 and variance 1
x = 5 * torch.randn(2, 10, 64) + 3
reference = nn.LayerNorm(64)
# a scale and shift other than the initial 1 and 0
nn.init.normal_(reference.weight)
nn.init.normal_(reference.bias)
by_hand = LayerNorm(64)
by_hand.load_state_dict(reference.state_dict())  # the same weights, by name
normalized = LayerNorm(64)(x)  # a fresh LayerNorm: scale 1, shift 0
print(f"x: per-token mean {x.mean(-1).mean():.2f}, std {x.std(-1).mean():.2f}")
largest_mean = normalized.mean(-1).abs().max()
print(f"LayerNorm(x): per-token |mean| at most {largest_mean:.1e}", end="")
print(f", std {normalized.std(-1, unbiased=False).mean():.4f}")
layer_norm_difference = (by_hand(x) - reference(x)).abs().max().item()
print(
    "largest difference from nn.LayerNorm's output: "
    f"{layer_norm_difference:.1e}"
)
# --8<-- [end:layer_norm_by_hand]


# %%
# --8<-- [start:norm_orders]
fig = residual_orders()
# --8<-- [end:norm_orders]


# %%
# --8<-- [start:residual_orders]
def post_norm(x, sublayer, norm):  # the paper: add, then normalize
    return norm(x + sublayer(x))


def pre_norm(x, sublayer, norm):  # normalize the sub-layer's input only
    return x + sublayer(norm(x))


# A sub-layer that outputs zeros shows what each order does to the stream x
# itself.
torch.manual_seed(SEED)
# token vectors far from mean 0 and variance 1
x = 5 * torch.randn(1, 3, 64) + 3
norm = LayerNorm(64)
pre = pre_norm(x, torch.zeros_like, norm)
pre_keeps_x = torch.equal(pre, x)
post = post_norm(x, torch.zeros_like, norm)
post_mean = post.mean(-1).abs().max().item()
post_std = post.std(-1, unbiased=False).mean().item()
for name, stream in (("x", x), ("pre-norm", pre), ("post-norm", post)):
    mean = round(stream.mean(-1).mean().item(), 2) + 0.0  # no "-0.00"
    std = stream.std(-1, unbiased=False).mean().item()
    print(f"{name:>9}: each token's mean {mean:5.2f}, std {std:.2f}")
# --8<-- [end:residual_orders]


# %%
# --8<-- [start:one_layer]
class OneLayer(nn.Module):
    """Digits in, one number per position out: attention, then (optionally)
    an FFN."""

    def __init__(self, feed_forward: bool, d_model: int = 32) -> None:
        super().__init__()
        # a digit -> a token vector, linearly
        self.embed = nn.Linear(1, d_model)
        self.attention = MultiHeadAttention(d_model, num_heads=4)
        self.feed_forward = (
            FeedForward(d_model, 4 * d_model) if feed_forward else None
        )
        self.head = nn.Linear(d_model, 1)

    def forward(self, digits: torch.Tensor) -> torch.Tensor:
        x = self.embed(digits.unsqueeze(-1))  # (B, T, d_model)
        x = x + self.attention(x)[0]
        if self.feed_forward is not None:
            x = x + self.feed_forward(x)
        return self.head(x).squeeze(-1)  # (B, T)


def distance_batch(batch_size: int, generator: torch.Generator) -> tuple:
    """8 digits per sequence; the target at each position is |digit - 4.5|."""
    digits = torch.randint(0, 10, (batch_size, 8), generator=generator).float()
    return digits, (digits - 4.5).abs()  # a V-shaped function of the digit


# --8<-- [end:one_layer]


# %%
# --8<-- [start:ffn_needed]
def held_out_mse(feed_forward: bool, seed: int, steps: int = 150) -> float:
    torch.manual_seed(seed)
    model = OneLayer(feed_forward)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    data = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        digits, targets = distance_batch(64, data)
        loss = nn.functional.mse_loss(model(digits), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    digits, targets = distance_batch(1024, torch.Generator().manual_seed(1234))
    with torch.no_grad():
        return nn.functional.mse_loss(model.eval()(digits), targets).item()


seeds = (SEED, SEED + 1, SEED + 2)
without_ffn = [held_out_mse(False, seed) for seed in seeds]
with_ffn = [held_out_mse(True, seed) for seed in seeds]
variance = (
    distance_batch(100_000, torch.Generator().manual_seed(0))[1].var().item()
)
print(
    f"target |digit - 4.5|: variance {variance:.3f} "
    "(the MSE of answering the mean)"
)
print(f"held-out MSE, seeds {seeds}:")
print("  attention only: ", ", ".join(f"{v:.4f}" for v in without_ffn))
print("  attention + FFN:", ", ".join(f"{v:.4f}" for v in with_ffn))
# --8<-- [end:ffn_needed]


# %%
# --8<-- [start:deep_stack]
print(
    f"{'residual':>8} {'LayerNorm':>9} {'grad, layer 0':>14} "
    f"{'grad, layer 31':>15}"
)
gradients = {}
for residual in (True, False):
    for norm in (True, False):
        norms = gradient_norm_per_layer(
            num_layers=32, residual=residual, norm=norm
        )
        gradients[residual, norm] = norms
        print(
            f"{residual!s:>8} {norm!s:>9} {norms[0]:>14.1e} {norms[-1]:>15.1e}"
        )
# --8<-- [end:deep_stack]


# %%
# --8<-- [start:residual_gradients]
colors = {
    (True, True): "#3f51b5",
    (True, False): "#2e7d32",
    (False, True): "#ef6c00",
    (False, False): "#c62828",
}
fig = log_lines(
    [
        (
            f"residual {'on' if residual else 'off'}, "
            f"LayerNorm {'on' if norm else 'off'}",
            norms,
            colors[residual, norm],
        )
        for (residual, norm), norms in gradients.items()
    ],
    xlabel="layer (0 = closest to the input)",
    ylabel="gradient norm (log scale)",
)
# --8<-- [end:residual_gradients]
