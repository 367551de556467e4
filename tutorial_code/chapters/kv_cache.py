# %% [markdown]
# # 12. Generating fast, with a KV cache
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial kv-cache` (options: `--help`).


# %%
# --8<-- [start:setup]
import json
from pathlib import Path

import torch

import tutorial_code
from tutorial_code.language_model import CharVocabulary, generate, python_reference_text, trained_language_model
from tutorial_code.plots import log_log_panels

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the language model (chapter 11) and of the samples
STEPS = 350  # optimizer steps of the language model
DEVICE = "cpu"  # where it trains: "cuda" on an NVIDIA GPU; the trained model comes back to the CPU
# --8<-- [end:parameters]


# %%
# --8<-- [start:same_tokens]
model = trained_language_model(steps=STEPS, seed=SEED, device=DEVICE).model  # the model of chapter 11, trained once
vocabulary = CharVocabulary.of(python_reference_text())
prompt = vocabulary.encode("The ")
identical = []
for name, temperature, top_k in (("greedy", 1.0, 1), ("sampled", 0.8, 10)):
    written = {}
    for use_cache in (False, True):
        generator = torch.Generator().manual_seed(SEED)  # the same random numbers for both
        written[use_cache] = generate(model, prompt, 200, temperature, top_k, generator, use_cache=use_cache)
    identical.append(torch.equal(written[False], written[True]))
    print(
        f"{name:>7}: the same {len(written[True]) - len(prompt)} new tokens with and without the cache: {identical[-1]}"
    )
print(repr(vocabulary.decode(written[True])[:120]))
# --8<-- [end:same_tokens]


# %%
# --8<-- [start:results]
# written by `python benchmarks/bench.py --only-generation`, in the repository next to tutorial_code/
results_file = Path(tutorial_code.__file__).parent.parent / "benchmarks" / "results-cpu.json"
generation = json.loads(results_file.read_text(encoding="utf-8"))["generation"]
machine = generation["machine"]
print(
    f"Measured on {machine['cpu']} ({machine['torch_threads']} PyTorch threads), torch {machine['torch']}, "
    f"on {machine['date']}; greedy generation after a {generation['prompt_tokens']}-token prompt.\n"
)
print("| new tokens | without a cache | with a KV cache | speed-up |")
print("|---|---|---|---|")
rows = {(r["new_tokens"], r["use_cache"]): r for r in generation["rows"]}
lengths = sorted({n for n, _ in rows})
speedup = {}
for n in lengths:
    plain, cached = rows[n, False], rows[n, True]
    speedup[n] = cached["tokens_per_s"] / plain["tokens_per_s"]
    print(
        f"| {n} | {plain['tokens_per_s']:,.0f} tokens/s | {cached['tokens_per_s']:,.0f} tokens/s | {speedup[n]:.1f}x |"
    )
speedup_at_512 = speedup[512]
# --8<-- [end:results]


# %%
# --8<-- [start:generation_time]
seconds = {
    label: [(n, rows[n, use_cache]["seconds"]) for n in lengths]
    for label, use_cache in (("without a cache", False), ("with a KV cache", True))
}
fig = log_log_panels(
    [("seconds to generate", seconds)],
    xlabel="new tokens",
    colors={"without a cache": "#c62828", "with a KV cache": "#3f51b5"},
)
growth_without = rows[lengths[-1], False]["seconds"] / rows[lengths[-2], False]["seconds"]  # 512 -> 1024 tokens
growth_with = rows[lengths[-1], True]["seconds"] / rows[lengths[-2], True]["seconds"]
# --8<-- [end:generation_time]
