# %% [markdown]
# # 12. Generating fast, with a KV cache
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial kv-cache` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from tutorial_code.benchmark_results import benchmark_results
from tutorial_code.diagrams.decoder import kv_cache_growth
from tutorial_code.diagrams.plots import log_log_panels
from tutorial_code.language_model import (
    CharTransformer,
    CharVocabulary,
    KVCache,
    forward_with_cache,
    generate,
    python_reference_text,
    trained_language_model,
)
from tutorial_code.masks import causal_mask
from tutorial_code.multi_head import combine_heads, split_heads

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the language model (chapter 11) and of the samples
STEPS = 1000  # optimizer steps of the language model (chapter 11's)
DEVICE = (
    "cpu"  # "cuda" on an NVIDIA GPU; the trained model comes back to the CPU
)
# --8<-- [end:parameters]


# %%
# --8<-- [start:cache_by_hand]
# chapter 11
result = trained_language_model(steps=STEPS, seed=SEED, device=DEVICE)
model: CharTransformer = result.model
vocabulary = CharVocabulary.of(python_reference_text())
tokens = vocabulary.encode("The return").unsqueeze(0)  # (1, T), T = 10
attention, heads = (
    model.layers[0].attention,
    model.layers[0].attention.num_heads,
)
with torch.no_grad():
    x = model.positions(model.embedding(tokens))  # (1, T, d_model)
    normed = model.layers[0].norm1(x)  # what the first layer's attention reads
    T = normed.size(1)
    full, _ = attention(normed, mask=causal_mask(T))  # all T positions at once
    # The cache: keys and values of the first T - 1 positions,
    # (1, h, T - 1, d_k) each.
    K = split_heads(attention.W_K(normed[:, :-1]), heads)
    V = split_heads(attention.W_V(normed[:, :-1]), heads)
    new = normed[:, -1:]  # the newest token only: (1, 1, d_model)
    # (1, h, T, d_k)
    K = torch.cat([K, split_heads(attention.W_K(new), heads)], dim=2)
    V = torch.cat([V, split_heads(attention.W_V(new), heads)], dim=2)
    Q = split_heads(attention.W_Q(new), heads)  # one query: (1, h, 1, d_k)
    # no mask: the newest reads everything
    out, _ = attention.attend(Q, K, V, None)
    last = attention.W_O(combine_heads(out))  # (1, 1, d_model)
cache_difference = (last - full[:, -1:]).abs().max().item()
print(f"cached keys {tuple(K.shape)}, one new query {tuple(Q.shape)}")
print(
    "largest difference from the last row of full attention: "
    f"{cache_difference:.1e}"
)
# --8<-- [end:cache_by_hand]


# %%
# --8<-- [start:cache_growth]
cache = KVCache()
prompt = vocabulary.encode("The ").unsqueeze(0)  # (1, 4)
# the whole prompt in one call
logits = forward_with_cache(model, prompt, cache)
fed, shapes = [("The ", prompt.size(1))], [tuple(cache.keys[0].shape)]
print(
    f"prompt {fed[0][0]!r}: keys {shapes[0]} "
    f"in each of {len(cache.keys)} layers"
)
for _ in range(6):
    # (1, 1): the likeliest next character
    next_id = logits[:, -1:].argmax(dim=-1)
    logits = forward_with_cache(model, next_id, cache)  # one new position
    fed.append((vocabulary.decode(next_id[0]), 1))
    shapes.append(tuple(cache.keys[0].shape))
    print(
        f"fed {fed[-1][0]!r}: keys {shapes[-1]}, cache.length = {cache.length}"
    )
# --8<-- [end:cache_growth]


# %%
# --8<-- [start:kv_cache_growth]
fig = kv_cache_growth(fed, shapes)
# --8<-- [end:kv_cache_growth]


# %%
# --8<-- [start:same_tokens]
start = vocabulary.encode("The ")
same = {}
for name, temperature, top_k in (("greedy", 1.0, 1), ("sampled", 0.8, 10)):
    written = {}
    for use_cache in (False, True):
        # the same random numbers
        generator = torch.Generator().manual_seed(SEED)
        settings = {
            "temperature": temperature,
            "top_k": top_k,
            "generator": generator,
        }
        ids = generate(model, start, 200, **settings, use_cache=use_cache)
        written[use_cache] = ids
    same[name] = torch.equal(written[False], written[True])
    new = len(written[True]) - len(start)
    print(
        f"{name:>7}: {new} new tokens, the same with and without cache: "
        f"{same[name]}"
    )
print(repr(vocabulary.decode(written[True])[:120]))
# --8<-- [end:same_tokens]


# %%
# --8<-- [start:results]
# written by `python benchmarks/bench.py --only-generation` into
# tutorial_code/results-cpu.json
results = benchmark_results()
generation = results["generation"]
machine = generation["machine"]
print(
    f"Measured on {machine['cpu']} "
    f"({machine['torch_threads']} PyTorch threads), "
    f"torch {machine['torch']}, on {machine['date']}; "
    "greedy generation after a "
    f"{generation['prompt_tokens']}-token prompt.\n"
)
print("| new tokens | without a cache | with a KV cache | speed-up |")
print("|---|---|---|---|")
rows = {(r["new_tokens"], r["use_cache"]): r for r in generation["rows"]}
lengths = sorted({n for n, _ in rows})
speedup = {}
for n in lengths:
    plain, cached = (
        rows[n, False]["tokens_per_s"],
        rows[n, True]["tokens_per_s"],
    )
    speedup[n] = cached / plain
    print(
        f"| {n} | {plain:,.0f} tokens/s | {cached:,.0f} tokens/s | "
        f"{speedup[n]:.1f}× |"
    )
# --8<-- [end:results]


# %%
# --8<-- [start:generation_time]
seconds = {
    label: [(n, rows[n, use_cache]["seconds"]) for n in lengths]
    for label, use_cache in (
        ("without a cache", False),
        ("with a KV cache", True),
    )
}
fig = log_log_panels(
    [("seconds to generate", seconds)],
    xlabel="new tokens",
    colors={"without a cache": "#c62828", "with a KV cache": "#3f51b5"},
)
# --8<-- [end:generation_time]
