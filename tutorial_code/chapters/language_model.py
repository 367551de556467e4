# %% [markdown]
# # 11. A language model that writes
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial language-model` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch

from tutorial_code.language_model import (
    CharVocabulary,
    bigram_bpc,
    generate,
    known_word_share,
    python_reference_text,
    split,
    trained_language_model,
    unigram_bpc,
    with_attention_weights,
)
from tutorial_code.plots import heatmaps
from tutorial_code.sum_task import trained_sum_model

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the batches and the samples
STEPS = 350  # optimizer steps of the language model
DEVICE = "cpu"  # where it trains: "cuda" on an NVIDIA GPU; the trained model comes back to the CPU
# --8<-- [end:parameters]


# %%
# --8<-- [start:text]
text = python_reference_text()
vocabulary = CharVocabulary.of(text)
train_ids, held_out_ids = split(vocabulary.encode(text))
print(
    f"{len(text):,} characters, {len(vocabulary.chars)} distinct; "
    f"training {len(train_ids):,}, held out {len(held_out_ids):,} (the last 10 %)"
)
print(repr(text[:160]))
# --8<-- [end:text]


# %%
# --8<-- [start:baselines]
V = len(vocabulary.chars)
unigram, bigram = unigram_bpc(train_ids, held_out_ids, V), bigram_bpc(train_ids, held_out_ids, V)
print(
    f"held-out bits per character: uniform over {V} characters {torch.log2(torch.tensor(V)):.2f}, "
    f"unigram {unigram:.2f}, bigram {bigram:.2f}"
)
# --8<-- [end:baselines]


# %%
# --8<-- [start:train]
result = trained_language_model(steps=STEPS, seed=SEED, device=DEVICE)  # trained once: every cell below reuses it
parameters = sum(p.numel() for p in result.model.parameters())
print(f"{parameters:,} parameters, {STEPS} steps of 32 windows of {result.model.context} characters")
print(f"held-out bits per character: {result.held_out_bpc:.2f} (bigram {bigram:.2f}, unigram {unigram:.2f})")
sum_task = trained_sum_model(seed=SEED, steps=500, device=DEVICE)  # the site's yardstick: one 500-step training
print(
    f"training took {result.seconds:.1f} s, {result.seconds / sum_task.seconds:.1f} times one 500-step "
    f"sum-task training ({sum_task.seconds:.1f} s) in this build"
)
held_out_bpc = result.held_out_bpc
# --8<-- [end:train]


# %%
# --8<-- [start:samples]
prompt = vocabulary.encode("The ")
shares = {}
for temperature, top_k in ((1.0, None), (0.5, 5)):
    generator = torch.Generator().manual_seed(SEED)
    sample = vocabulary.decode(generate(result.model, prompt, 1200, temperature, top_k, generator))
    shares[temperature] = known_word_share(sample[len("The ") :], vocabulary.decode(train_ids))
    known = shares[temperature]
    print(f"--- temperature {temperature}, top-k {top_k}: {known:.0%} of the words occur in the training text")
    print(" ".join(sample.split())[:400])  # runs of spaces and newlines shown as one space
careful_share = shares[0.5]
# --8<-- [end:samples]


# %%
# --8<-- [start:sentence_heads]
sentence = "The return statement leaves the current function call."
tokens = vocabulary.encode(sentence).unsqueeze(0)  # (1, T)
with torch.no_grad():
    _, weights = with_attention_weights(result.model)(tokens)  # a list of (1, h, T, T), one per layer
previous, word_start = [], []
starts = [0] + [i + 1 for i, char in enumerate(sentence[:-1]) if char == " "]  # first character of each word
start_of = [max(s for s in starts if s <= t) for t in range(len(sentence))]
for layer, layer_weights in enumerate(weights):
    for head, w in enumerate(layer_weights[0]):  # w: (T, T)
        on_previous = torch.stack([w[t, t - 1] for t in range(1, len(sentence))]).mean().item()
        on_word_start = torch.stack([w[t, start_of[t]] for t in range(1, len(sentence))]).mean().item()
        previous.append(on_previous)
        word_start.append(on_word_start)
        print(
            f"layer {layer}, head {head}: weight on the previous character {on_previous:.2f}, "
            f"on the first character of the word {on_word_start:.2f}"
        )
uniform = sum(1 / (t + 1) for t in range(1, len(sentence))) / (len(sentence) - 1)  # one key's share, evenly spread
print(f"for comparison, one key's share of evenly spread weights: {uniform:.2f}")
# --8<-- [end:sentence_heads]


# %%
# --8<-- [start:sentence_map]
layer_of_best = max(range(len(word_start)), key=word_start.__getitem__) // len(weights[0][0])
shown = slice(0, 28)  # the first 28 characters, so that each one stays readable
labels = [c if c != " " else "␣" for c in sentence[shown]]
fig = heatmaps(
    [w[shown, shown] for w in weights[layer_of_best][0]],
    [f"layer {layer_of_best}, head {h}" for h in range(len(weights[layer_of_best][0]))],
    labels,
    xlabel="key (character)",
    ylabel="query (character)",
)
# --8<-- [end:sentence_map]
