# %% [markdown]
# # Troubleshooting
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial troubleshooting` (options: `--help`).


# %%
# --8<-- [start:table]
from tutorial_code.troubleshooting import PROBLEMS, markdown_table, measure

rows = measure(PROBLEMS)  # each problem's broken and fixed variant, run
print(markdown_table(rows))
# what each broken variant showed
symptoms = {row.name: row.symptom for row in rows}
after_fix = {row.name: row.after for row in rows}  # and what its fix gives
# whether each broken variant showed its symptom and its fix removed it
reproduced = {
    row.name: row.broken_shows_it and row.fix_removes_it for row in rows
}
# --8<-- [end:table]


# %%
# --8<-- [start:setup]
import torch
from tutorial_code.debugging import (
    attention_entropy,
    gradient_norms,
    print_shapes,
)
from tutorial_code.digit_model import DigitModel
from tutorial_code.sum_task import make_batch, trained_sum_model

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of the model whose attention is measured
# where they train: "cuda" on an NVIDIA GPU; trained models come back to the CPU
DEVICE = "cpu"
# --8<-- [end:parameters]


# %%
# --8<-- [start:shapes]
model = DigitModel(num_layers=1)
with print_shapes(model):
    model(torch.zeros(2, 8))
# --8<-- [end:shapes]


# %%
# --8<-- [start:entropy]
torch.manual_seed(SEED)
untrained = DigitModel().eval()  # the weights that training starts from
trained = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE).model
numbers = torch.tensor([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]])
with torch.no_grad():
    for name, model in (("untrained", untrained), ("trained", trained)):
        weights = model(numbers)[1]
        # per layer, per head
        entropy = [attention_entropy(w).mean(dim=(0, 2)) for w in weights]
        print(
            f"{name:>9}: entropy per head, layer 0 {entropy[0]}, "
            f"layer 1 {entropy[1]}"
        )
# --8<-- [end:entropy]


# %%
# --8<-- [start:gradients]
torch.manual_seed(SEED)
model = DigitModel()
numbers, targets = make_batch(64, 8, torch.Generator().manual_seed(0))
prediction, _ = model(numbers)
torch.nn.functional.mse_loss(prediction, targets).backward()
norms = gradient_norms(model)
for name in (
    "input_projection.weight",
    "layers.0.attention.W_Q.weight",
    "layers.1.feed_forward.linear2.weight",
    "head.weight",
):
    print(f"{name:<40} {norms[name]:.2e}")
print(
    "parameters without a gradient:",
    [name for name, norm in norms.items() if norm != norm] or "none",
)
# --8<-- [end:gradients]
