# %% [markdown]
# # 7. Feed-forward, residuals and LayerNorm
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial feed-forward-and-norm` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from torch import nn

from tutorial_code.feed_forward import FeedForward
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.plots import log_lines
from tutorial_code.residual import gradient_norm_per_layer
from tutorial_code.sum_task import trained_sum_model

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of every model this chapter trains
DEVICE = "cpu"  # where they train: "cuda" on an NVIDIA GPU; trained models come back to the CPU
# --8<-- [end:parameters]


# %%
# --8<-- [start:ffn_std]
stds = []
for seed in range(SEED, SEED + 5):
    torch.manual_seed(seed)
    ffn = FeedForward(d_model=512, d_ff=2048)  # PyTorch's default initialization
    stds.append(ffn(torch.randn(2, 10, 512)).std().item())
print(f"std of the FFN output for unit-variance input, seeds {SEED}-{SEED + 4}:", ", ".join(f"{s:.3f}" for s in stds))
# --8<-- [end:ffn_std]


# %%
# --8<-- [start:parameter_share]
for name, d_model, d_ff, num_heads in (("the paper's layer", 512, 2048, 8), ("this site's model", 32, 64, 4)):
    ffn = sum(p.numel() for p in FeedForward(d_model, d_ff).parameters())
    attention = sum(p.numel() for p in MultiHeadAttention(d_model, num_heads).parameters())
    print(
        f"{name}: feed-forward {ffn:,}, attention {attention:,} parameters ({ffn / (ffn + attention):.0%} in the FFN)"
    )
# --8<-- [end:parameter_share]


# %%
# --8<-- [start:deep_stack]
print(f"{'residual':>8} {'LayerNorm':>9} {'grad, layer 0':>14} {'grad, layer 31':>15}")
gradients = {}
for residual in (True, False):
    for norm in (True, False):
        gradients[residual, norm] = norms = gradient_norm_per_layer(num_layers=32, residual=residual, norm=norm)
        print(f"{residual!s:>8} {norm!s:>9} {norms[0]:>14.1e} {norms[-1]:>15.1e}")
# --8<-- [end:deep_stack]


# %%
# --8<-- [start:residual_gradients]
colors = {(True, True): "#3f51b5", (True, False): "#2e7d32", (False, True): "#ef6c00", (False, False): "#c62828"}
fig = log_lines(
    [
        (f"residual {'on' if residual else 'off'}, LayerNorm {'on' if norm else 'off'}", norms, colors[residual, norm])
        for (residual, norm), norms in gradients.items()
    ],
    xlabel="layer (0 = closest to the input)",
    ylabel="gradient norm (log scale)",
)
# --8<-- [end:residual_gradients]


# %%
# --8<-- [start:layer_norm_gradient]
torch.manual_seed(SEED)
x = torch.randn(2, 10, 64, requires_grad=True)
x.sum().backward()
print(f"gradient norm of x.sum():            {x.grad.norm():.4f}  (sqrt(2*10*64) = {(2 * 10 * 64) ** 0.5:.4f})")
x.grad = None
nn.LayerNorm(64)(x).sum().backward()
print(f"gradient norm of LayerNorm(x).sum(): {x.grad.norm():.1e}")
# --8<-- [end:layer_norm_gradient]


# %%
# --8<-- [start:post_vs_pre]
print(f"{'seed':>4} {'post-norm MSE':>14} {'pre-norm MSE':>13}")
for seed in (SEED, SEED + 1, SEED + 2):
    post = trained_sum_model(seed=seed, steps=STEPS, device=DEVICE)  # trained once per process: the figure reuses it
    pre = trained_sum_model(seed=seed, steps=STEPS, norm_first=True, device=DEVICE)
    print(f"{seed:>4} {post.eval_loss:>14.4f} {pre.eval_loss:>13.4f}")
# --8<-- [end:post_vs_pre]


# %%
# --8<-- [start:loss_curve]
post = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)  # trained above, reused
pre = trained_sum_model(seed=SEED, steps=STEPS, norm_first=True, device=DEVICE)
fig = log_lines(
    [("post-norm (the paper)", post.losses, "#3f51b5"), ("pre-norm", pre.losses, "#ef6c00")],
    xlabel="training step",
    ylabel="MSE loss (log scale)",
)
# --8<-- [end:loss_curve]
