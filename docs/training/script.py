# %% [markdown]
# # 7. The complete model, trained
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial training` (options: `--help`).


# %%
# --8<-- [start:setup]
import statistics

import torch
from torch import nn
from tutorial_code.diagrams.encoder import encoder_diagram
from tutorial_code.diagrams.plots import heatmaps, log_lines
from tutorial_code.digit_model import DigitModel
from tutorial_code.encoder import Encoder, EncoderClassifier
from tutorial_code.sum_task import (
    TARGET_SCALE,
    deep_stack_mse_per_seed,
    make_batch,
    predict_sum,
    train_sum_model,
    trained_sum_model,
)
from tutorial_code.tasks import (
    accuracy,
    argmax_batch,
    train_argmax,
    train_first_minus_last,
)
from tutorial_code.training_loop import train

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of the sum and argmax models
# where they train ("cuda" on an NVIDIA GPU); models return to the CPU
DEVICE = "cpu"
# --8<-- [end:parameters]


# %%
# --8<-- [start:encoder_steps]
torch.manual_seed(SEED)
encoder = Encoder(
    1000, d_model=64, num_heads=8, d_ff=256, num_layers=2, pad_id=0
)
# dropout off, so the steps below and the module give the same numbers
encoder.eval()
# (B, T): 2 sequences of 8 ids below 1000
token_ids = torch.randint(1, 1000, (2, 8))
token_ids[1, 5:] = 0  # the second has 5 tokens, then 3 padding (pad_id 0)

real = token_ids != encoder.pad_id  # (B, T), True = a real token
# (B, 1, 1, T): every query may attend to the real keys
mask = real[:, None, None, :]
x = encoder.embedding(token_ids)  # (B, T, d_model), no sqrt(d_model) factor
x = encoder.positions(x)  # adds the sinusoidal positions; same shape
for layer in encoder.layers:
    x, weights = layer(x, mask=mask)  # (B, T, d_model), (B, h, T, T)
print(
    "token ids", tuple(token_ids.shape), "->", tuple(x.shape), "(B, T, d_model)"
)
print("attention weights per layer", tuple(weights.shape), "(B, h, T, T)")

encoded, all_weights = encoder(token_ids)  # the module: the same steps
same_as_module = torch.equal(encoded, x)
print("encoder(token_ids) gives the same vectors:", same_as_module)
on_padding = all_weights[-1][1, :, :, 5:].sum().item()
print(
    "weight sequence 1 puts on its padding, last layer, all heads: "
    f"{on_padding}"
)
# --8<-- [end:encoder_steps]


# %%
# --8<-- [start:encoder_diagram]
# the shapes come from one more forward pass
fig = encoder_diagram(encoder, token_ids)
# --8<-- [end:encoder_diagram]


# %%
# --8<-- [start:classifier_run]
classifier = EncoderClassifier(encoder, num_classes=3).eval()  # untrained
logits = classifier(token_ids)
print("class logits", tuple(logits.shape), "(B, num_classes); probabilities:")
print(logits.softmax(dim=-1).detach())
# --8<-- [end:classifier_run]


# %%
# --8<-- [start:task]
numbers, targets = make_batch(3, generator=torch.Generator().manual_seed(SEED))
print("numbers:", numbers)
print("targets (sum / 10):", targets)
# MSE of answering the mean
target_variance = make_batch(100_000)[1].var().item()
print(f"always answering the mean target gives an MSE of {target_variance:.3f}")
# --8<-- [end:task]


# %%
# --8<-- [start:hand_loop]
torch.manual_seed(SEED)
tiny = DigitModel(d_model=16, num_heads=2, d_ff=32, num_layers=1)  # a small one
losses = train(tiny, make_batch, steps=100, lr=1e-2, seed=SEED)
print(f"loss at step 1: {losses[0]:.2f}; at step 100: {losses[-1]:.2f}")
# --8<-- [end:hand_loop]


# %%
# --8<-- [start:sum_task]
torch.manual_seed(SEED)  # the initial weights of the training below
untrained = DigitModel().eval()
numbers, targets = make_batch(100_000)
with torch.no_grad():
    guesses, _ = untrained(numbers)  # (B,)
average_guess, mean_target = guesses.mean().item(), targets.mean().item()
spread, variance = guesses.std().item(), targets.var().item()
# the MSE of always answering g: (E[y] - g)^2 + Var(y)
guess_mse = (mean_target - average_guess) ** 2 + variance
print(
    f"untrained model: predictions {average_guess:.2f} on average, "
    f"std {spread:.2f}"
)
print(f"targets y: E[y] {mean_target:.2f}, Var(y) {variance:.2f}")
print(f"MSE of always answering {average_guess:.2f}: {guess_mse:.2f}")

# reused below
result = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)
losses = result.losses  # the training loss of every step
for step in sorted({*range(0, STEPS, max(1, STEPS // 5)), STEPS - 1}):
    print(f"step {step:>3}: training loss {losses[step]:.4f}")
print(f"highest training loss of the last 50 steps: {max(losses[-50:]):.4f}")
print(f"held-out loss in eval mode: {result.eval_loss:.4f}")
print(f"parameters: {sum(p.numel() for p in result.model.parameters()):,}")
# --8<-- [end:sum_task]


# %%
# --8<-- [start:training_loss]
fig = log_lines(
    [("sum task", result.losses, "#3f51b5")],
    xlabel="training step",
    ylabel="MSE loss (log scale)",
)
# --8<-- [end:training_loss]


# %%
# --8<-- [start:predict]
numbers = [3, 1, 4, 1, 5, 9, 2, 6]
print(
    f"eval mode:  {predict_sum(result.model, numbers):.2f} "
    f"(true sum {sum(numbers)})"
)
result.model.train()  # dropout on: every call drops different features
torch.manual_seed(SEED)
inputs = torch.tensor([numbers], dtype=torch.float32)
with torch.no_grad():
    noisy = [result.model(inputs)[0].item() * TARGET_SCALE for _ in range(5)]
result.model.eval()
print("train mode:", ", ".join(f"{p:.2f}" for p in noisy))
# --8<-- [end:predict]


# %%
# --8<-- [start:sum_model_heads]
numbers = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
with torch.no_grad():
    _, weights = result.model.eval()(torch.tensor([numbers]))
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
# --8<-- [start:sum_explorer_model]
from tutorial_code.browser_export import browser_digit_model

# the trained sum model, for the attention explorer in the page
sum_explorer_model = browser_digit_model(result.model, TARGET_SCALE)
# --8<-- [end:sum_explorer_model]


# %%
# --8<-- [start:two_inputs]
# the sum model trained above
model = result.model.eval()
nines = [9.0] * 8
ramp = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
with torch.no_grad():
    _, weights_nines = model(torch.tensor([nines]))
    _, weights_ramp = model(torch.tensor([ramp]))
# layer 0, sequence 0: (h, T, T)
first_nines, first_ramp = weights_nines[0][0], weights_ramp[0][0]
# the head whose weights change most between the two inputs
head = (first_nines - first_ramp).abs().amax(dim=(-2, -1)).argmax().item()
head_nines, head_ramp = first_nines[head], first_ramp[head]  # (T, T)
print(f"layer 0, head {head}, input 9 9 9 9 9 9 9 9:")
print(head_nines)
print(f"layer 0, head {head}, input 0 1 2 3 4 5 6 7:")
print(head_ramp)
uniform_distance = (head_nines - 1 / 8).abs().max().item()
largest_change = (head_nines - head_ramp).abs().max().item()
print(
    f"largest distance from an even 1/8, input of nines: {uniform_distance:.3f}"
)
print(
    f"largest change of one weight between the two inputs: {largest_change:.2f}"
)
predicted_nines, predicted_ramp = (
    predict_sum(model, nines),
    predict_sum(model, ramp),
)
print(
    f"predictions: {predicted_nines:.1f} (true 72), "
    f"{predicted_ramp:.1f} (true 28)"
)
# --8<-- [end:two_inputs]


# %%
# --8<-- [start:dynamic_weights]
fig = heatmaps(
    [head_nines, head_ramp],
    ["input 9 9 9 9 9 9 9 9", "input 0 1 2 3 4 5 6 7"],
    [str(i) for i in range(8)],
    xlabel="key position",
    ylabel="query position",
)
# --8<-- [end:dynamic_weights]


# %%
# --8<-- [start:every_head]
numbers = [5.0, 0.0, 7.0, 2.0, 9.0, 4.0, 6.0, 3.0]
with torch.no_grad():
    _, weights = model(torch.tensor([numbers]))
first_layer = weights[0][0]  # layer 0, sequence 0: (h, T, T)
# (h,): mean largest weight
sharpness = first_layer.max(dim=-1).values.mean(dim=-1)
# (h,): the key with most weight
favourite = first_layer.mean(dim=1).argmax(dim=-1)
top_digits = [int(numbers[key]) for key in favourite]
for head, digit in enumerate(top_digits):
    largest = sharpness[head]
    print(
        f"head {head}: most weight on a {digit}; largest weight {largest:.2f}"
    )
print(
    f"an even spread over the {len(numbers)} keys gives {1 / len(numbers):.3f}"
)
# --8<-- [end:every_head]


# %%
# --8<-- [start:every_head_map]
digits = [str(int(v)) for v in numbers]
fig = heatmaps(
    list(first_layer),
    [f"head {head}" for head in range(len(first_layer))],
    digits,
    xlabel="key (digit)",
    ylabel="query (digit)",
)
# --8<-- [end:every_head_map]
# %%
# --8<-- [start:concat_only]
with_w_o = result  # the sum model trained above
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
# --8<-- [start:compare]
POSITION_STEPS = 600  # optimizer steps of each model compared here
generator = torch.Generator().manual_seed(SEED)
numbers = torch.randint(0, 10, (100_000, 8), generator=generator).float()
difference_variance = (numbers[:, 0] - numbers[:, -1]).var().item()
print(
    "variance of the target, the MSE of answering its mean: "
    f"{difference_variance:.1f}"
)
print(f"{'positions':>10} {'held-out MSE':>13} {'variance explained':>19}")
mse = {}
for positional in ("none", "sinusoidal", "learned"):
    position_run = train_first_minus_last(
        positional, steps=POSITION_STEPS, seed=SEED, device=DEVICE
    )
    mse[positional] = position_run.eval_loss
    explained = 1 - mse[positional] / difference_variance
    print(f"{positional:>10} {mse[positional]:>13.3f} {explained:>19.1%}")
# --8<-- [end:compare]
# %%
# --8<-- [start:post_vs_pre]
NORM_STEPS = 200  # optimizer steps of each two-layer model compared here
seeds = [SEED, SEED + 1, SEED + 2]
post_mse, pre_mse = [], []
for seed in seeds:  # the held-out MSE of one training per seed and order
    run = {"seed": seed, "steps": NORM_STEPS, "device": DEVICE}
    post_mse.append(trained_sum_model(**run).eval_loss)
    pre_mse.append(trained_sum_model(**run, norm_first=True).eval_loss)
print(f"{'seed':>4} {'post-norm MSE':>14} {'pre-norm MSE':>13}")
for seed, post_value, pre_value in zip(seeds, post_mse, pre_mse, strict=True):
    print(f"{seed:>4} {post_value:>14.4f} {pre_value:>13.4f}")
gap = abs(statistics.mean(post_mse) - statistics.mean(pre_mse))
spread = max(statistics.stdev(post_mse), statistics.stdev(pre_mse))
print(
    f"gap between the means {gap:.4f}; spread between seeds (std) {spread:.4f}"
)
# --8<-- [end:post_vs_pre]


# %%
# --8<-- [start:loss_curve]
# seed 0 of the runs above
post = trained_sum_model(seed=SEED, steps=NORM_STEPS, device=DEVICE)
pre = trained_sum_model(
    seed=SEED, steps=NORM_STEPS, norm_first=True, device=DEVICE
)
fig = log_lines(
    [
        ("post-norm (the paper)", post.losses, "#3f51b5"),
        ("pre-norm", pre.losses, "#ef6c00"),
    ],
    xlabel="training step",
    ylabel="MSE loss (log scale)",
)
# --8<-- [end:loss_curve]


# %%
# --8<-- [start:deep_post_norm]
DEEP_LAYERS, DEEP_LR, DEEP_STEPS, DEEP_SEEDS = 12, 3e-3, 100, [SEED, SEED + 1]
_, targets = make_batch(100_000, generator=torch.Generator().manual_seed(0))
sum_variance = targets.var().item()
print(
    f"variance of the target, the MSE of answering its mean: {sum_variance:.3f}"
)
variants = {  # name: (norm_first, warm-up steps, LayerNorm eps)
    "post-norm": (False, 0, 1e-5),
    "pre-norm": (True, 0, 1e-5),
    "post-norm, 50 warm-up steps": (False, 50, 1e-5),
    "post-norm, LayerNorm eps 1e-3": (False, 0, 1e-3),
}
print(f"{DEEP_LAYERS} layers, learning rate {DEEP_LR:g}, {DEEP_STEPS} steps.")
print(f"held-out MSE, seeds {DEEP_SEEDS}:")
deep_mse = {}
for name, (norm_first, warmup, eps) in variants.items():
    options = {"lr": DEEP_LR, "warmup_steps": warmup, "device": DEVICE}
    runs = (DEEP_STEPS, DEEP_SEEDS, DEEP_LAYERS, norm_first, eps)
    deep_mse[name] = deep_stack_mse_per_seed(*runs, **options)
    print(f"{name:>30}: " + ", ".join(f"{v:.4f}" for v in deep_mse[name]))
# --8<-- [end:deep_post_norm]
# %%
# --8<-- [start:argmax]
numbers, targets = argmax_batch(2, 8, torch.Generator().manual_seed(0))
print(
    "digits:",
    numbers.int().tolist(),
    "-> where the largest is:",
    targets.tolist(),
)

argmax_result = train_argmax(steps=STEPS, seed=SEED, device=DEVICE)  # cached
held_out_accuracy = accuracy(argmax_result.model)
cross_entropy = argmax_result.eval_loss
print(
    f"held-out cross-entropy {cross_entropy:.3f}, "
    f"accuracy {held_out_accuracy:.1%}"
)
numbers, targets = argmax_batch(256, 8, torch.Generator().manual_seed(7))
with torch.no_grad():
    # list of (B, h, T, T), one per layer
    _, weights = argmax_result.model(numbers)
rows = torch.arange(len(targets))
on_largest = []
for layer, layer_weights in enumerate(weights):
    # weight each query gives the key of the largest digit:
    # (B, h, T) -> mean -> (h, T)
    per_query = layer_weights[rows, :, :, targets].mean(dim=0)
    on_largest.append(per_query)
    print(
        f"layer {layer}, weight on the largest digit, per head:",
        per_query.mean(1),
    )
sharpest_head = int(on_largest[0].mean(dim=1).argmax())
# (T,): one value per query position
sharpest_per_query = on_largest[0][sharpest_head]
print(f"layer 0, head {sharpest_head}, per query position:", sharpest_per_query)
# --8<-- [end:argmax]


# %%
# --8<-- [start:argmax_heads]
numbers, _ = argmax_batch(1, 8, torch.Generator().manual_seed(7))
with torch.no_grad():
    _, weights = argmax_result.model(numbers)
first_layer = weights[0][0]  # layer 0, sequence 0: (h, T, T)
labels = [str(int(v)) for v in numbers[0]]
heads = [f"head {h}" for h in range(len(first_layer))]
fig = heatmaps(
    list(first_layer),
    heads,
    labels,
    xlabel="key (digit)",
    ylabel="query (digit)",
)
# --8<-- [end:argmax_heads]
