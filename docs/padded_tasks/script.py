# %% [markdown]
# # 8. Classifying and tagging variable-length sequences
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial padded-tasks` (options: `--help`).


# %%
# --8<-- [start:setup]
import functools

import torch
import torch.nn.functional as F
from tutorial_code.encoder import Encoder, EncoderClassifier
from tutorial_code.padded_tasks import (
    IGNORE,
    PAD,
    VOCAB_SIZE,
    EncoderTagger,
    PaddedResult,
    accuracy,
    add_padding,
    held_out,
    padded_batch,
    sequence_labels,
    token_labels,
    train_padded,
)

torch.set_printoptions(linewidth=100)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights and the data
STEPS = 150  # optimizer steps of every model this chapter trains
DEVICE = "cpu"  # "cuda" on an NVIDIA GPU; trained models come back to the CPU
# --8<-- [end:parameters]


# %%
# --8<-- [start:batch]
batch = padded_batch(4, generator=torch.Generator().manual_seed(SEED))
print(f"tokens {tuple(batch.shape)} (B, T); {PAD} = padding")
print(batch)
print("real tokens per sequence:", (batch != PAD).sum(dim=1).tolist())
print("sequence labels (mean above 4.5):", sequence_labels(batch).tolist())
print(f"token labels (digit above its sequence's mean; {IGNORE} = padding):")
print(token_labels(batch))
# --8<-- [end:batch]


# %%
# --8<-- [start:padded_mean_figure]
from tutorial_code.diagrams.padding import padded_mean

fig = padded_mean(batch, PAD)  # the batch above: its cells and masked means
# --8<-- [end:padded_mean_figure]


# %%
# --8<-- [start:train]
SIZES = {
    "d_model": 32,
    "num_heads": 4,
    "d_ff": 64,
    "num_layers": 1,
    "dropout": 0.0,
}


@functools.cache  # each seed and mask is trained once
def trained_classifier(seed: int, masked: bool = True) -> PaddedResult:
    torch.manual_seed(seed)  # the initial weights
    # None: padding is attended to and averaged in
    pad_id = PAD if masked else None
    encoder = Encoder(VOCAB_SIZE, **SIZES, pad_id=pad_id)
    classifier = EncoderClassifier(encoder, num_classes=2)
    return train_padded(classifier, sequence_labels, STEPS, seed, device=DEVICE)


result = trained_classifier(SEED)
classifier = result.model
tail = result.losses[-20:]  # the last 20 steps, or all of a shorter run
first, last = result.losses[0], sum(tail) / len(tail)
print(
    f"training loss: step 0 {first:.3f}, "
    f"mean of the last {len(tail)} steps {last:.3f}"
)
print(f"held-out sequences classified correctly: {result.accuracy:.1%}")
# --8<-- [end:train]


# %%
# --8<-- [start:more_padding]
tokens = held_out()  # 512 sequences that training never drew
print(f"held-out batch: {tuple(tokens.shape)} (B, T)")
masked_accuracy = []  # at 0, 8 and 24 extra padding tokens
for extra in (0, 8, 24):
    padded = add_padding(tokens, extra)  # (B, T + extra)
    masked_accuracy.append(accuracy(classifier, sequence_labels, padded))
    print(f"T = {padded.size(1):>2}: accuracy {masked_accuracy[-1]:.2%}")
with torch.no_grad():
    logits, more = classifier(tokens), classifier(add_padding(tokens, 24))
logit_change = (more - logits).abs().max().item()
print(
    f"largest change of a logit with 24 more padding tokens: {logit_change:.1e}"
)
# --8<-- [end:more_padding]


# %%
# --8<-- [start:attention_heat_map]
import matplotlib.pyplot as plt

# 5 digits, 3 padding tokens
example = add_padding(torch.tensor([[7, 2, 9, 4, 1]]), 3)
with torch.no_grad():
    _, weights = classifier.encoder(example)  # one (B, h, T, T) per layer
names = ["PAD" if t == PAD else str(t) for t in example[0].tolist()]
fig, ax = plt.subplots(figsize=(4.5, 3.8))
# layer 0, sequence 0, head 0
image = ax.imshow(weights[0][0, 0], cmap="Blues", vmin=0)
ax.set_xticks(range(len(names)), names)
ax.set_yticks(range(len(names)), names)
ax.set_xlabel("key")
ax.set_ylabel("query")
fig.colorbar(image, label="attention weight")
on_padding = weights[0][0, :, :, 5:].sum().item()  # every head, every query
print(f"weight on the padding keys, all heads and queries: {on_padding}")
# --8<-- [end:attention_heat_map]


# %%
# --8<-- [start:without_mask]
seeds = (SEED, SEED + 1, SEED + 2)
EXTRA = (0, 8, 16, 24)  # padding tokens appended to every held-out sequence
curves = {True: [], False: []}  # per mask, one list of accuracies per seed
for masked in (True, False):
    for seed in seeds:
        model = trained_classifier(seed, masked).model
        padded = [add_padding(tokens, extra) for extra in EXTRA]
        curve = [accuracy(model, sequence_labels, p) for p in padded]
        curves[masked].append(curve)
        shown = ", ".join(f"{a:.1%}" for a in curve)
        print(f"pad_id={PAD if masked else None!s:>4}, seed {seed}: {shown}")
masked_curves, unmasked_curves = curves[True], curves[False]
# --8<-- [end:without_mask]


# %%
# --8<-- [start:padding_curves]
fig, ax = plt.subplots(figsize=(6, 3.2))
for masked, color in ((True, "#3f51b5"), (False, "#e65100")):
    name = f"pad_id={PAD}" if masked else "pad_id=None"
    for index, curve in enumerate(curves[masked]):
        label = name if index == 0 else None  # one legend entry per mask
        ax.plot(EXTRA, curve, marker="o", color=color, label=label)
ax.set_xlabel("padding tokens appended to every sequence")
ax.set_ylabel("held-out accuracy")
ax.legend()
ax.grid(alpha=0.3)
# --8<-- [end:padding_curves]


# %%
# --8<-- [start:tag_loss]
torch.manual_seed(SEED)  # the initial weights
tagger = EncoderTagger(Encoder(VOCAB_SIZE, **SIZES, pad_id=PAD), num_tags=2)
tag_logits = tagger(batch)  # (B, T, 2): the batch of four above, untrained
targets = token_labels(batch)  # (B, T), IGNORE at padding
loss = F.cross_entropy(
    tag_logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE
)
real = targets != IGNORE  # (B, T): the real tokens
# rows of real tokens only
real_only = F.cross_entropy(tag_logits[real], targets[real])
print(f"{int(real.sum())} real tokens of {real.numel()} positions")
print(f"loss with ignore_index: {loss.item():.6f}")
print(f"loss of the real tokens: {real_only.item():.6f}")
# --8<-- [end:tag_loss]


# %%
# --8<-- [start:tagging]
tagged = train_padded(tagger, token_labels, STEPS, SEED, device=DEVICE)
tag_accuracy = tagged.accuracy  # over the real tokens of the held-out batch
targets = token_labels(tokens)  # (B, T)
ones = (targets[targets != IGNORE] == 1).float().mean().item()
commoner = max(ones, 1 - ones)  # a tagger that always answers the commoner tag
padded_tag_accuracy = accuracy(
    tagged.model, token_labels, add_padding(tokens, 24)
)
print(f"held-out real tokens tagged correctly: {tag_accuracy:.1%}")
print(f"with 24 more padding tokens:           {padded_tag_accuracy:.1%}")
print(f"always the commoner tag:               {commoner:.1%}")
example = tokens[:1, :9]  # (1, 9)
with torch.no_grad():
    predicted = tagged.model(example).argmax(dim=-1)  # (1, 9)
print("digits   ", example[0].tolist())
print("tags     ", token_labels(example)[0].tolist())
print("predicted", predicted[0].tolist())
# --8<-- [end:tagging]
