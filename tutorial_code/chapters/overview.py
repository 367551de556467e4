# %% [markdown]
# # Overview: the model this tutorial builds
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial overview` (options: `--help`).


# %%
# --8<-- [start:provenance]
import json
from pathlib import Path

import tutorial_code

# written by `python benchmarks/bench.py`, in the repository next to tutorial_code/
results_file = Path(tutorial_code.__file__).parent.parent / "benchmarks" / "results-cpu.json"
results = json.loads(results_file.read_text(encoding="utf-8"))
for what, machine, where in (
    ("attention speed and memory", results["machine"], "best practices"),
    ("generation with and without a KV cache", results["generation"]["machine"], "chapter 12"),
):
    print(
        f"- The tables of {what} ({where}) come from `benchmarks/results-cpu.json`, measured on "
        f"{machine['cpu']} ({machine['cores']} cores, {machine['torch_threads']} PyTorch threads), "
        f"torch {machine['torch']}, on {machine['date']}. Run the benchmark to measure your machine."
    )
# --8<-- [end:provenance]


# %%
# --8<-- [start:setup]
from tutorial_code.sum_task import predict_sum, trained_sum_model

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of every model this chapter trains
DEVICE = "cpu"  # where they train: "cuda" on an NVIDIA GPU; trained models come back to the CPU
# --8<-- [end:parameters]


# %%
# --8<-- [start:summary]
result = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)
numbers = [3, 1, 4, 1, 5, 9, 2, 6]
print(
    f"On the machine that built this page, {len(result.losses)} training steps took "
    f"{result.seconds:.1f} s. The loss fell from {result.losses[0]:.1f} at the first step to "
    f"{result.eval_loss:.4f} on held-out sequences, and for {numbers} (sum {sum(numbers)}) "
    f"the trained model answers {predict_sum(result.model, numbers):.2f}."
)
# --8<-- [end:summary]


# %%
# --8<-- [start:architecture]
import torch

from tutorial_code.diagrams_encoder import encoder_diagram
from tutorial_code.encoder import Encoder

torch.manual_seed(SEED)
encoder = Encoder(vocab_size=1000, d_model=64, num_heads=8, d_ff=256, num_layers=2).eval()
fig = encoder_diagram(encoder, torch.randint(1, 1000, (2, 8)))  # a batch of 2 x 8 token ids
# --8<-- [end:architecture]
