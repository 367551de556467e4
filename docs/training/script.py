# %% [markdown]
# # 8. The complete model, trained
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial training` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from tutorial_code.diagrams.encoder import encoder_diagram
from tutorial_code.diagrams.plots import heatmaps, log_lines
from tutorial_code.digit_model import DigitModel
from tutorial_code.encoder import Encoder, EncoderClassifier
from tutorial_code.sum_task import (
    TARGET_SCALE,
    make_batch,
    predict_sum,
    trained_sum_model,
)
from tutorial_code.tasks import accuracy, argmax_batch, train_argmax

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of every model this chapter trains
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
# --8<-- [start:sum_task]
torch.manual_seed(SEED)  # the initial weights of the training below
untrained = DigitModel().eval()
numbers, targets = make_batch(100_000)
with torch.no_grad():
    guesses, _ = untrained(numbers)  # (B,)
mean_square = targets.pow(2).mean().item()
average_guess, mean_target = guesses.mean().item(), targets.mean().item()
spread, variance = guesses.std().item(), targets.var().item()
print(
    f"untrained model: predictions {average_guess:.2f} on average, "
    f"std {spread:.2f}"
)
print(f"targets y: E[y] {mean_target:.2f}, Var(y) {variance:.2f}")
print(f"E[y^2] {mean_square:.2f}: the MSE of a model that always answers 0")

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
