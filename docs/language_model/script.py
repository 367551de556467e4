# %% [markdown]
# # 11. A language model that writes
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial language-model` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from tutorial_code.diagrams.decoder import distribution_bars, nucleus_bars
from tutorial_code.diagrams.plots import heatmaps
from tutorial_code.language_model import (
    CharTransformer,
    CharVocabulary,
    bigram_bpc,
    generate,
    known_word_share,
    python_reference_text,
    random_windows,
    split,
    top_p_filter,
    trained_language_model,
    unigram_bpc,
    with_attention_weights,
)
from tutorial_code.masks import causal_mask

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the batches and the samples
STEPS = 1000  # optimizer steps of the language model
DEVICE = (
    "cpu"  # "cuda" on an NVIDIA GPU; the trained model comes back to the CPU
)
# --8<-- [end:parameters]


# %%
# --8<-- [start:text]
text = python_reference_text()
vocabulary = CharVocabulary.of(text)
train_ids, held_out_ids = split(vocabulary.encode(text))
print(f"{len(text):,} characters, {len(vocabulary.chars)} distinct")
print(
    f"training {len(train_ids):,}, held out {len(held_out_ids):,} "
    "(the last 10 %)"
)
print(repr(text[:160]))
# --8<-- [end:text]


# %%
# --8<-- [start:baselines]
vocab_size = len(vocabulary.chars)
unigram = unigram_bpc(train_ids, held_out_ids, vocab_size)
bigram = bigram_bpc(train_ids, held_out_ids, vocab_size)
uniform_bpc = torch.log2(torch.tensor(vocab_size)).item()
print(
    f"held-out bits per character: uniform over {vocab_size} characters "
    f"{uniform_bpc:.2f}"
)
print(f"unigram {unigram:.2f}, bigram {bigram:.2f}")
# --8<-- [end:baselines]


# %%
# --8<-- [start:model_by_hand]
torch.manual_seed(SEED)
model = CharTransformer(
    vocab_size=vocab_size
).eval()  # untrained: only the shapes matter here
windows = torch.Generator().manual_seed(SEED)
# (B, T) each
inputs, targets = random_windows(train_ids, 2, model.context, windows)
print("input ", repr(vocabulary.decode(inputs[0, :40])))
print(
    "target", repr(vocabulary.decode(targets[0, :40])), "(the next characters)"
)
with torch.no_grad():
    x = model.positions(model.embedding(inputs))  # (B, T, d_model)
    # (T, T): position t reads positions 0..t
    mask = causal_mask(inputs.size(1))
    for (
        layer
    ) in model.layers:  # causal self-attention and feed-forward, pre-norm
        x, _ = layer(x, mask=mask)
    # (B, T, vocab_size): one guess per position
    logits = model.output(model.final_norm(x))
    same_as_model = torch.equal(logits, model(inputs)[0])
print("logits", tuple(logits.shape), "(B, T, vocab_size)")
print("the same as model(inputs):", same_as_model)
# --8<-- [end:model_by_hand]


# %%
# --8<-- [start:train]
# trained once
result = trained_language_model(steps=STEPS, seed=SEED, device=DEVICE)
parameters = sum(p.numel() for p in result.model.parameters())
print(
    f"{parameters:,} parameters, {STEPS} steps of 32 windows of 64 characters"
)
print(f"training took {result.seconds:.1f} s on this machine")
more = 5 * STEPS  # the time grows in proportion to the steps
print(f"--steps {more} would take about {5 * result.seconds:.0f} s here")
held_out_bpc = result.held_out_bpc
print(f"held-out bits per character: {held_out_bpc:.2f} (bigram {bigram:.2f})")
# --8<-- [end:train]


# %%
# --8<-- [start:shift_and_generate_figure]
from tutorial_code.diagrams.decoder import shift_and_generate

# a training window of the forward pass above, and its target shifted by one
window = vocabulary.decode(inputs[0, :14]) + vocabulary.decode(
    targets[0, 13:14]
)
writing, so_far = [], "The "  # five characters drawn after "The "
draws = torch.Generator().manual_seed(SEED)
with torch.no_grad():
    for _ in range(5):
        logits = result.model(vocabulary.encode(so_far).unsqueeze(0))[0][0, -1]
        probabilities = torch.softmax(logits, dim=-1)  # (vocab_size,)
        drawn = torch.multinomial(probabilities, 1, generator=draws).item()
        char = vocabulary.chars[drawn]
        writing.append((so_far, char, probabilities[drawn].item()))
        so_far += char
fig = shift_and_generate(window, writing)
# --8<-- [end:shift_and_generate_figure]


# %%
# --8<-- [start:weight_tying]
import math

from torch import nn

first_bits, spreads = {}, {}  # untrained: bpc and logits std on one batch
torch.manual_seed(SEED)
# output.weight = embedding
tied = CharTransformer(vocab_size=vocab_size, tie_weights=True)
# the shared matrix once
tied_parameters = sum(p.numel() for p in tied.parameters())
print(f"parameters: {parameters:,} untied, {tied_parameters:,} tied")
print(
    "output weight is the embedding: "
    f"{tied.output.weight is tied.embedding.weight}"
)
embedding_std = tied.embedding.weight.std().item()  # nn.Embedding starts at 1
# nn.Linear at about 1/sqrt(3 d_model)
linear_std = model.output.weight.std().item()
print(
    f"weight std: embedding {embedding_std:.2f}, untied output {linear_std:.2f}"
)
# both untrained, on the windows of the forward pass above
with torch.no_grad():
    for name, fresh in (("untied", model), ("tied", tied)):
        fresh_logits = fresh(inputs)[0]  # (B, T, vocab_size)
        flat = fresh_logits.flatten(0, 1), targets.flatten()
        first_bits[name] = nn.functional.cross_entropy(*flat).item() / math.log(
            2
        )
        spreads[name] = fresh_logits.std().item()
        shown = f"logits std {spreads[name]:.1f}, {first_bits[name]:.1f} bpc"
        print(f"{name:>6}, untrained: {shown}")
# --8<-- [end:weight_tying]


# %%
# --8<-- [start:weight_tying_seeds]
from tutorial_code.language_model import held_out_bpc_per_seed

COMPARISON_STEPS = 350  # steps of each training in the multi-seed comparisons
seeds = [SEED, SEED + 1, SEED + 2]
bpc = {}  # per setting: held-out bits per character, one per seed
for tie_weights in (False, True):
    options = {"tie_weights": tie_weights, "device": DEVICE}
    bpc[tie_weights] = held_out_bpc_per_seed(COMPARISON_STEPS, seeds, **options)
    shown = ", ".join(f"{b:.3f}" for b in bpc[tie_weights])
    print(f"tie_weights={tie_weights}: held-out bpc, seeds {seeds}: {shown}")
# --8<-- [end:weight_tying_seeds]


# %%
# --8<-- [start:weight_tying_small_start]
torch.manual_seed(SEED)
small_start = CharTransformer(
    vocab_size=vocab_size, tie_weights=True, embedding_std=0.02
)
with torch.no_grad():  # untrained, on the windows of the forward pass above
    small_logits = small_start(inputs)[0]  # (B, T, vocab_size)
    flat = small_logits.flatten(0, 1), targets.flatten()
    small_bits = nn.functional.cross_entropy(*flat).item() / math.log(2)
    small_spread = small_logits.std().item()
print(
    f"tied, std 0.02, untrained: logits std {small_spread:.1f}, "
    f"{small_bits:.1f} bpc"
)
options = {"tie_weights": True, "embedding_std": 0.02, "device": DEVICE}
# GPT-2's start
small_start_bpc = held_out_bpc_per_seed(COMPARISON_STEPS, seeds, **options)
shown = ", ".join(f"{b:.3f}" for b in small_start_bpc)
print(f"tied, std 0.02: held-out bpc, seeds {seeds}: {shown}")
# --8<-- [end:weight_tying_small_start]


# %%
# --8<-- [start:next_character]
prompt = vocabulary.encode("The value of the ")
with torch.no_grad():
    # (vocab_size,): the next character
    logits = result.model(prompt.unsqueeze(0))[0][0, -1]
distributions = {}
for temperature, top_k in ((1.0, None), (0.5, None), (2.0, None), (1.0, 5)):
    scaled = logits / temperature  # below 1: sharper; above 1: flatter
    if top_k is not None:  # keep only the k most likely characters
        kth_largest = scaled.topk(top_k).values[-1]
        scaled = scaled.masked_fill(scaled < kth_largest, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)  # (vocab_size,)
    distributions[temperature, top_k] = probabilities
    best = probabilities.argmax().item()
    print(
        f"temperature {temperature}, top-k {top_k}: "
        f"most likely {vocabulary.chars[best]!r} {probabilities[best]:.2f}, "
        f"characters possible {(probabilities > 0).sum()}"
    )
next_id = torch.multinomial(
    distributions[1.0, 5], 1, generator=torch.Generator()
)
print(f"one character drawn at top-5: {vocabulary.chars[next_id.item()]!r}")
# --8<-- [end:next_character]


# %%
# --8<-- [start:temperature_top_k]
# the 12 likeliest characters
candidates = distributions[1.0, None].topk(12).indices
fig = distribution_bars(
    [
        repr(vocabulary.chars[i])[1:-1].replace(" ", "␣")
        for i in candidates.tolist()
    ],
    [
        (f"T={t}" + (f", top-{k}" if k else ""), p[candidates])
        for (t, k), p in distributions.items()
    ],
)
# --8<-- [end:temperature_top_k]


# %%
# --8<-- [start:samples]
start = vocabulary.encode("The ")
reference = vocabulary.decode(train_ids)
shares = {}
for temperature, top_k in ((1.0, None), (0.5, 5)):
    generator = torch.Generator().manual_seed(SEED)
    ids = generate(result.model, start, 1200, temperature, top_k, generator)
    sample = vocabulary.decode(ids[len(start) :])
    shares[temperature] = known_word_share(sample, reference)
    print(
        f"--- temperature {temperature}, top-k {top_k}: "
        f"{shares[temperature]:.0%} of the words occur in the training text"
    )
    # runs of spaces and newlines as one space
    print(" ".join(sample.split())[:400])
# --8<-- [end:samples]


# %%
# --8<-- [start:top_p_step]
# after "The value of the ", temperature 1
probabilities = distributions[1.0, None]
# (vocab_size,): True inside the nucleus
kept = top_p_filter(logits, 0.9) > float("-inf")
nucleus_size = int(kept.sum())
nucleus_mass = probabilities[kept].sum().item()
print(
    f"top-p 0.9 keeps {nucleus_size} characters, probability {nucleus_mass:.3f}"
)
sorted_p, order = probabilities.sort(descending=True)  # likeliest first
for i, p in zip(
    order[: nucleus_size + 2].tolist(), sorted_p.tolist(), strict=False
):
    inside = "kept" if kept[i] else "cut"
    print(f"  {vocabulary.chars[i]!r} {p:.3f} {inside}")
# --8<-- [end:top_p_step]


# %%
# --8<-- [start:nucleus_cut]
shown = nucleus_size + 6  # the nucleus and the six likeliest characters it cuts
fig = nucleus_bars(
    [
        repr(vocabulary.chars[i])[1:-1].replace(" ", "␣")
        for i in order[:shown].tolist()
    ],
    sorted_p[:shown],
    kept=nucleus_size,
    top_p=0.9,
)
# --8<-- [end:nucleus_cut]


# %%
# --8<-- [start:top_p_sizes]
windows = held_out_ids[: 32 * 64].view(32, 64)  # 2,048 held-out positions
with torch.no_grad():
    held_out_logits = result.model(windows)[0]  # (32, 64, vocab_size)
in_nucleus = top_p_filter(held_out_logits, 0.9) > float("-inf")
sizes = in_nucleus.sum(
    dim=-1
).flatten()  # characters kept, one count per position
print(
    f"characters kept by top-p 0.9 over {sizes.numel():,} held-out positions:"
)
print(
    f"mean {sizes.float().mean():.1f}, fewest {sizes.min()}, most {sizes.max()}"
)
single = (sizes == 1).float().mean().item()
over_ten = (sizes > 10).float().mean().item()
print(
    f"one character: {single:.0%} of the positions; more than ten: "
    f"{over_ten:.0%}"
)
# --8<-- [end:top_p_sizes]


# %%
# --8<-- [start:top_p_sample]
generator = torch.Generator().manual_seed(SEED)
ids = generate(result.model, start, 1200, 1.0, None, generator, top_p=0.9)
sample = vocabulary.decode(ids[len(start) :])
top_p_share = known_word_share(sample, reference)
known = f"{top_p_share:.0%} of the words occur in the training text"
print(f"--- temperature 1.0, top-p 0.9: {known}")
print(" ".join(sample.split())[:400])
# five samples of 1,200 characters each, with and without top-p
sample_seeds = [SEED + i for i in range(5)]
word_shares = {}
for name, top_p in (("temperature 1", None), ("and top-p 0.9", 0.9)):
    word_shares[name] = []
    for seed in sample_seeds:
        generator = torch.Generator().manual_seed(seed)
        ids = generate(
            result.model, start, 1200, 1.0, None, generator, top_p=top_p
        )
        sample = vocabulary.decode(ids[len(start) :])
        word_shares[name].append(known_word_share(sample, reference))
    shown = ", ".join(f"{share:.0%}" for share in word_shares[name])
    mean = sum(word_shares[name]) / len(sample_seeds)
    print(f"{name:>13}: known words {shown}; mean {mean:.0%}")
# --8<-- [end:top_p_sample]


# %%
# --8<-- [start:sentence_heads]
sentence = "The return statement leaves the current function call."
tokens = vocabulary.encode(sentence).unsqueeze(0)  # (1, T)
# the model on the hand-written attention, which returns weights
with torch.no_grad():
    # per layer: (1, h, T, T)
    _, weights = with_attention_weights(result.model)(tokens)
num_heads = weights[0].size(1)
previous, word_start = [], []
starts = [0] + [i + 1 for i, char in enumerate(sentence[:-1]) if char == " "]
start_of = [max(s for s in starts if s <= t) for t in range(len(sentence))]
rows = range(1, len(sentence))  # every character that has one before it
# from the third character of a word on, where its first one is not the
# previous one
inside = [t for t in rows if start_of[t] < t - 1]
for layer, layer_weights in enumerate(weights):
    for head, w in enumerate(layer_weights[0]):  # w: (T, T)
        previous.append(torch.stack([w[t, t - 1] for t in rows]).mean().item())
        # inside words only
        on_start = torch.stack([w[t, start_of[t]] for t in inside])
        word_start.append(on_start.mean().item())
        print(
            f"layer {layer}, head {head}: "
            f"on the previous character {previous[-1]:.2f}, "
            "on the first character of the word (inside words) "
            f"{word_start[-1]:.2f}"
        )
# one key's share if the weights were spread evenly, over the same rows
even = sum(1 / (t + 1) for t in rows) / len(rows)
even_inside = sum(1 / (t + 1) for t in inside) / len(inside)
print(
    f"for comparison, evenly spread: {even:.2f}, inside words {even_inside:.2f}"
)
# --8<-- [end:sentence_heads]


# %%
# --8<-- [start:sentence_map]
layer_of_best = (
    max(range(len(word_start)), key=word_start.__getitem__) // num_heads
)
# "The return state": 16 characters, each with a readable label
shown = slice(0, 16)
labels = [c if c != " " else "␣" for c in sentence[shown]]
fig = heatmaps(
    [w[shown, shown] for w in weights[layer_of_best][0]],
    [f"layer {layer_of_best}, head {h}" for h in range(num_heads)],
    labels,
    xlabel="key (character)",
    ylabel="query (character)",
)
# --8<-- [end:sentence_map]


# %%
# --8<-- [start:explorer_model]
from tutorial_code.browser_export import browser_model

# this chapter's model, for the attention explorer in the page
explorer_model = browser_model(result.model, vocabulary.chars)
# --8<-- [end:explorer_model]
