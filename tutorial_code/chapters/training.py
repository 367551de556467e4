# %% [markdown]
# # 8. The complete model, trained
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial training` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch

from tutorial_code.encoder import Encoder, EncoderClassifier
from tutorial_code.plots import heatmaps, log_lines
from tutorial_code.sum_task import make_batch, predict_sum, trained_sum_model
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
# --8<-- [start:encoder_run]
torch.manual_seed(SEED)
encoder = Encoder(vocab_size=1000, d_model=64, num_heads=8, d_ff=256, num_layers=2, pad_id=0).eval()
token_ids = torch.randint(1, 1000, (2, 8))  # a batch of 2 sequences of 8 token ids
token_ids[1, 5:] = 0  # the second has 5 tokens, then 3 padding
encoded, weights = encoder(token_ids)
print("token ids", tuple(token_ids.shape), "-> encoded", tuple(encoded.shape), "(B, T, d_model)")
print("weights per layer", tuple(weights[0].shape), "(B, h, T, T)")
on_padding = weights[-1][1, :, :, 5:].sum().item()
print(f"weight that sequence 1 puts on its padding, last layer, all heads: {on_padding}")
classifier = EncoderClassifier(encoder, num_classes=3).eval()  # untrained: the probabilities mean nothing yet
logits = classifier(token_ids)
print("class logits", tuple(logits.shape), "(B, num_classes); probabilities:")
print(logits.softmax(dim=-1).detach())
# --8<-- [end:encoder_run]


# %%
# --8<-- [start:sum_task]
result = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)  # trained once per process, reused below
for step in sorted({*range(0, STEPS, max(1, STEPS // 5)), STEPS - 1}):
    print(f"step {step:>3}: training loss {result.losses[step]:.4f}")
print(f"held-out loss in eval mode: {result.eval_loss:.4f}  (training took {result.seconds:.1f} s)")
print(f"parameters: {sum(p.numel() for p in result.model.parameters()):,}")
_, targets = make_batch(100_000)
mean_square = targets.pow(2).mean().item()  # the MSE of a model that always answers 0
print(f"targets: mean {targets.mean():.2f}, variance {targets.var():.2f}, mean square {mean_square:.2f}")
first_loss, final_loss = result.losses[0], sum(result.losses[-50:]) / 50
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
on_largest = []
for layer, layer_weights in enumerate(weights):
    # weight that each query gives to the key holding the largest digit, averaged over queries and sequences
    on_largest.append(layer_weights[rows, :, :, targets].mean(dim=(0, 2)))  # (h,)
    print(f"layer {layer}, weight on the largest digit per head:", on_largest[layer])
sharpest_first_layer_head = on_largest[0].max().item()
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
