# %% [markdown]
# # Attention, by hand
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial overview` (options: `--help`).


# %%
# --8<-- [start:setup]
from tutorial_code.sum_task import predict_sum, trained_sum_model

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of every model this chapter trains
# where they train: "cuda" on an NVIDIA GPU; trained models come back to the CPU
DEVICE = "cpu"
# --8<-- [end:parameters]


# %%
# --8<-- [start:architecture]
import torch
from tutorial_code.diagrams.encoder import encoder_diagram
from tutorial_code.encoder import Encoder

torch.manual_seed(SEED)
encoder = Encoder(
    vocab_size=1000, d_model=64, num_heads=8, d_ff=256, num_layers=2
).eval()
# a batch of 2 x 8 token ids
fig = encoder_diagram(encoder, torch.randint(1, 1000, (2, 8)))
# --8<-- [end:architecture]


# %%
# --8<-- [start:summary]
result = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)
numbers = [3, 1, 4, 1, 5, 9, 2, 6]
losses = result.losses
trained_for = f"{len(losses)} training step" + ("s" if len(losses) != 1 else "")
print(
    f"On the machine that built this page, {trained_for} took "
    f"{result.seconds:.1f} s. The loss, the mean squared error of the "
    f"predicted sum / 10, was {losses[0]:.1f} on the first training "
    f"batch and {losses[-1]:.4f} on the last; on held-out sequences it is "
    f"{result.eval_loss:.4f}, a root-mean-square error of "
    f"{10 * result.eval_loss**0.5:.1f} in the sum. "
    f"For {numbers} (sum {sum(numbers)}) "
    f"the trained model answers {predict_sum(result.model, numbers):.2f}."
)
# --8<-- [end:summary]


# %%
# --8<-- [start:provenance]
import json
from pathlib import Path

import tutorial_code
from tutorial_code.benchmark_results import benchmark_results

# written by `python benchmarks/bench.py` into tutorial_code/results-cpu.json
results = benchmark_results()
runs = {  # which tables each run measured, and the machine it ran on
    (
        "attention benchmark: the tables of attention speed and memory "
        "(best practices)"
    ): results["machine"],
    (
        "heads benchmark: the table of heads in a loop or batched "
        "(best practices)"
    ): results["heads"]["machine"],
    (
        "generation benchmark: the tables of generation with and without "
        "a KV cache (chapter 12)"
    ): results["generation"]["machine"],
}
print("From `tutorial_code/results-cpu.json`:\n")
for run, machine in runs.items():
    print(
        f"- The {run}, measured on {machine['cpu']} ({machine['cores']} cores, "
        f"{machine['torch_threads']} PyTorch threads), "
        f"torch {machine['torch']}, on {machine['date']}."
    )
# written by the build when a recorded run's code changes
# (sitebuild/in_chapter/recorded_runs.py); only a clone has the file, and only
# the site's build reads it: elsewhere every run is computed
records_file = (
    Path(tutorial_code.__file__).parent.parent
    / "benchmarks"
    / "recorded-runs.json"
)
records = (
    json.loads(records_file.read_text(encoding="utf-8"))
    if records_file.exists()
    else {}
)
by_function = {}  # function: (number of runs, the machines they ran on)
for call, entry in records.items():
    count, machines = by_function.get(call.split("(")[0], (0, set()))
    machine = entry["machine"]
    ran_on = (
        f"{machine['cpu']} ({machine['torch_threads']} PyTorch threads), "
        f"torch {machine['torch']}, on {machine['date']}"
    )
    by_function[call.split("(")[0]] = (count + 1, machines | {ran_on})
if by_function:
    print(
        "\nFrom `benchmarks/recorded-runs.json`, "
        "each table marked *Recorded run* where it is shown:\n"
    )
else:  # an installed package: every comparison was computed by this run
    print("\nNo recorded run here: this run computed every table itself.")
for function, (count, machines) in sorted(by_function.items()):
    print(
        f"- `{function}`, {count} runs, "
        f"recorded on {'; '.join(sorted(machines))}."
    )
# --8<-- [end:provenance]
