# %% [markdown]
# # Overview: the model this tutorial builds
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial overview` (options: `--help`).


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
