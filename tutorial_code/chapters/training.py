# %% [markdown]
# # 8. The complete model, trained
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial training` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch

from tutorial_code.plots import heatmaps, log_lines
from tutorial_code.sum_task import predict_sum, trained_sum_model
from tutorial_code.tasks import accuracy, argmax_batch, train_argmax

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of every model this chapter trains
DEVICE = "cpu"  # where they train: "cuda" on an NVIDIA GPU; trained models come back to the CPU
# --8<-- [end:parameters]


# %%
# --8<-- [start:sum_task]
result = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)  # trained once per process, reused below
for step in sorted({*range(0, STEPS, max(1, STEPS // 5)), STEPS - 1}):
    print(f"step {step:>3}: training loss {result.losses[step]:.4f}")
print(f"held-out loss in eval mode: {result.eval_loss:.4f}  (training took {result.seconds:.1f} s)")
print(f"parameters: {sum(p.numel() for p in result.model.parameters()):,}")
# --8<-- [end:sum_task]


# %%
# --8<-- [start:training_loss]
fig = log_lines([("sum task", result.losses, "#3f51b5")], xlabel="training step", ylabel="MSE loss (log scale)")
# --8<-- [end:training_loss]


# %%
# --8<-- [start:predict]
numbers = [3, 1, 4, 1, 5, 9, 2, 6]
print(f"eval mode:  {predict_sum(result.model, numbers):.2f} (true sum {sum(numbers)})")
result.model.train()  # dropout on: every call drops different features
torch.manual_seed(SEED)
with torch.no_grad():
    noisy = [result.model(torch.tensor([numbers], dtype=torch.float32))[0].item() * 10 for _ in range(5)]
result.model.eval()
print("train mode:", ", ".join(f"{p:.2f}" for p in noisy))
# --8<-- [end:predict]


# %%
# --8<-- [start:argmax]
argmax_result = train_argmax(steps=STEPS, seed=SEED, device=DEVICE)  # cached: the figure below reuses it
print(f"held-out cross-entropy {argmax_result.eval_loss:.3f}, accuracy {accuracy(argmax_result.model):.1%}")
numbers, targets = argmax_batch(256, 8, torch.Generator().manual_seed(7))
with torch.no_grad():
    _, weights = argmax_result.model(numbers)  # list of (B, h, T, T), one per layer
rows = torch.arange(len(targets))
for layer, layer_weights in enumerate(weights):
    # weight that each query gives to the key holding the largest digit, averaged over queries and sequences
    on_largest = layer_weights[rows, :, :, targets].mean(dim=(0, 2))  # (h,)
    print(f"layer {layer}, weight on the largest digit per head:", on_largest)
# --8<-- [end:argmax]


# %%
# --8<-- [start:argmax_heads]
numbers, _ = argmax_batch(1, 8, torch.Generator().manual_seed(7))
with torch.no_grad():
    _, weights = argmax_result.model(numbers)
first_layer = weights[0][0]  # layer 0, sequence 0: (h, T, T)
labels = [str(int(v)) for v in numbers[0]]
heads = [f"head {h}" for h in range(len(first_layer))]
fig = heatmaps(list(first_layer), heads, labels, xlabel="key (digit)", ylabel="query (digit)")
# --8<-- [end:argmax_heads]
