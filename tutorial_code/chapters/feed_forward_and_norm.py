# %% [markdown]
# # 7. Feed-forward, residuals and LayerNorm
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial feed-forward-and-norm` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from torch import nn

from tutorial_code.digit_model import DigitModel
from tutorial_code.feed_forward import FeedForward
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.plots import log_lines
from tutorial_code.residual import gradient_norm_per_layer
from tutorial_code.sum_task import train_sum_model, trained_sum_model

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of every model this chapter trains
DEVICE = "cpu"  # where they train: "cuda" on an NVIDIA GPU; trained models come back to the CPU
# --8<-- [end:parameters]


# %%
# --8<-- [start:ffn_std]
ARTICLE_STD = 0.3548  # what one of the source articles prints for this experiment
stds = []
for d_model, d_ff in ((64, 256), (512, 2048)):  # the article's size, the paper's size
    for seed in range(SEED, SEED + 5):
        torch.manual_seed(seed)
        ffn = FeedForward(d_model, d_ff)  # PyTorch's default initialization
        stds.append(ffn(torch.randn(2, 10, d_model)).std().item())
    print(f"std of the FFN output, d_model {d_model}, d_ff {d_ff}, unit-variance input, seeds {SEED}-{SEED + 4}:")
    print("   ", ", ".join(f"{s:.3f}" for s in stds[-5:]))
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
# --8<-- [start:ffn_needed]
class OneLayer(nn.Module):
    """Digits in, one number per position out: attention with a residual, then (optionally) an FFN."""

    def __init__(self, feed_forward: bool, d_model: int = 32) -> None:
        super().__init__()
        self.embed = nn.Linear(1, d_model)  # a digit -> a token vector, linearly
        self.attention = MultiHeadAttention(d_model, num_heads=4)
        self.feed_forward = FeedForward(d_model, 4 * d_model) if feed_forward else None
        self.head = nn.Linear(d_model, 1)

    def forward(self, digits: torch.Tensor) -> torch.Tensor:
        x = self.embed(digits.unsqueeze(-1))  # (B, T, d_model)
        x = x + self.attention(x)[0]
        if self.feed_forward is not None:
            x = x + self.feed_forward(x)
        return self.head(x).squeeze(-1)  # (B, T)


def distance_batch(batch_size: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """8 digits per sequence; the target at each position is |digit - 4.5|, a V-shaped function of the digit."""
    digits = torch.randint(0, 10, (batch_size, 8), generator=generator).float()
    return digits, (digits - 4.5).abs()


def held_out_mse(feed_forward: bool, seed: int, steps: int = 300) -> float:
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
variance = distance_batch(100_000, torch.Generator().manual_seed(0))[1].var().item()
print(f"target |digit - 4.5|: variance {variance:.3f} (the MSE of always answering the mean)")
print(f"held-out MSE, seeds {seeds}: attention only {', '.join(f'{v:.4f}' for v in without_ffn)}")
print(f"{'':>30}attention + FFN {', '.join(f'{v:.4f}' for v in with_ffn)}")
# --8<-- [end:ffn_needed]


# %%
# --8<-- [start:deep_stack]
print(f"{'residual':>8} {'LayerNorm':>9} {'grad, layer 0':>14} {'grad, layer 31':>15}")
gradients = {}
for residual in (True, False):
    for norm in (True, False):
        gradients[residual, norm] = norms = gradient_norm_per_layer(num_layers=32, residual=residual, norm=norm)
        print(f"{residual!s:>8} {norm!s:>9} {norms[0]:>14.1e} {norms[-1]:>15.1e}")
neither = gradients[False, False]
others = [gradients[True, False], gradients[False, True], gradients[True, True]]
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
layer_norm_gradient = x.grad.norm().item()
print(f"gradient norm of LayerNorm(x).sum(): {layer_norm_gradient:.1e}")
# --8<-- [end:layer_norm_gradient]


# %%
# --8<-- [start:post_vs_pre]
print(f"{'seed':>4} {'post-norm MSE':>14} {'pre-norm MSE':>13}")
post_lower = []
for seed in (SEED, SEED + 1, SEED + 2):
    post = trained_sum_model(seed=seed, steps=STEPS, device=DEVICE)  # trained once per process: the figure reuses it
    pre = trained_sum_model(seed=seed, steps=STEPS, norm_first=True, device=DEVICE)
    print(f"{seed:>4} {post.eval_loss:>14.4f} {pre.eval_loss:>13.4f}")
    post_lower.append(post.eval_loss < pre.eval_loss)
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


# %%
# --8<-- [start:deep_post_norm]
def deep_stack(norm_first: bool, seed: int, layer_norm_eps: float = 1e-5) -> DigitModel:
    """Twelve encoder layers; `layer_norm_eps` is the epsilon of every LayerNorm in them."""
    torch.manual_seed(seed)
    model = DigitModel(num_layers=12, norm_first=norm_first)
    for module in model.modules():
        if isinstance(module, nn.LayerNorm):
            module.eps = layer_norm_eps
    return model


DEEP_STEPS, DEEP_SEEDS = 100, (SEED, SEED + 1)
variants = {  # name: (norm_first, warm-up steps, LayerNorm eps)
    "post-norm": (False, 0, 1e-5),
    "pre-norm": (True, 0, 1e-5),
    "post-norm, 50 warm-up steps": (False, 50, 1e-5),
    "post-norm, LayerNorm eps 1e-3": (False, 0, 1e-3),
}
print(f"12 layers, learning rate 3e-3, {DEEP_STEPS} steps: held-out MSE for seeds {', '.join(map(str, DEEP_SEEDS))}")
deep_mse = {}
for name, (norm_first, warmup_steps, eps) in variants.items():
    deep_mse[name] = [
        train_sum_model(
            DEEP_STEPS, seed, lr=3e-3, warmup_steps=warmup_steps, model=deep_stack(norm_first, seed, eps), device=DEVICE
        ).eval_loss
        for seed in DEEP_SEEDS
    ]
    print(f"{name:>30}: " + ", ".join(f"{v:.4f}" for v in deep_mse[name]))
post_norm, pre_norm = deep_mse["post-norm"], deep_mse["pre-norm"]
larger_eps = deep_mse["post-norm, LayerNorm eps 1e-3"]
warmed_up = deep_mse["post-norm, 50 warm-up steps"]
# --8<-- [end:deep_post_norm]
