# %% [markdown]
# # 5. Dynamic weights
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial dynamic-weights` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from tutorial_code.sum_task import predict_sum, trained_sum_model

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 500  # optimizer steps of every model this chapter trains
# where they train ("cuda": an NVIDIA GPU); models come back to the CPU
DEVICE = "cpu"
# --8<-- [end:parameters]


# %%
# --8<-- [start:two_inputs]
# trained once
result = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)
model = result.model.eval()
nines = [9.0] * 8
ramp = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
with torch.no_grad():
    _, weights_nines = model(torch.tensor([nines]))
    _, weights_ramp = model(torch.tensor([ramp]))
head0_nines = weights_nines[0][0, 0]  # layer 0, sequence 0, head 0: (T, T)
head0_ramp = weights_ramp[0][0, 0]
print("layer 0, head 0, input 9 9 9 9 9 9 9 9:")
print(head0_nines)
print("layer 0, head 0, input 0 1 2 3 4 5 6 7:")
print(head0_ramp)
uniform_distance = (head0_nines - 1 / 8).abs().max().item()
largest_change = (head0_nines - head0_ramp).abs().max().item()
print(
    f"largest distance from an even 1/8, input of nines: {uniform_distance:.3f}"
)
print(
    f"largest change of one weight between the two inputs: {largest_change:.2f}"
)
predicted_nines, predicted_ramp = (
    predict_sum(model, nines),
    predict_sum(model, ramp),
)
print(
    f"predictions: {predicted_nines:.1f} (true 72), "
    f"{predicted_ramp:.1f} (true 28)"
)
# --8<-- [end:two_inputs]


# %%
# --8<-- [start:dynamic_weights]
from tutorial_code.diagrams.plots import heatmaps

fig = heatmaps(
    [head0_nines, head0_ramp],
    ["input 9 9 9 9 9 9 9 9", "input 0 1 2 3 4 5 6 7"],
    [str(i) for i in range(8)],
    xlabel="key position",
    ylabel="query position",
)
# --8<-- [end:dynamic_weights]


# %%
# --8<-- [start:every_head]
numbers = [5.0, 0.0, 7.0, 2.0, 9.0, 4.0, 6.0, 3.0]
with torch.no_grad():
    _, weights = model(torch.tensor([numbers]))
first_layer = weights[0][0]  # layer 0, sequence 0: (h, T, T)
# (h,): mean largest weight
sharpness = first_layer.max(dim=-1).values.mean(dim=-1)
# (h,): the key with most weight
favourite = first_layer.mean(dim=1).argmax(dim=-1)
top_digits = [int(numbers[key]) for key in favourite]
for head, digit in enumerate(top_digits):
    largest = sharpness[head]
    print(
        f"head {head}: most weight on a {digit}; largest weight {largest:.2f}"
    )
print(
    f"an even spread over the {len(numbers)} keys gives {1 / len(numbers):.3f}"
)
# --8<-- [end:every_head]


# %%
# --8<-- [start:every_head_map]
digits = [str(int(v)) for v in numbers]
fig = heatmaps(
    list(first_layer),
    [f"head {head}" for head in range(len(first_layer))],
    digits,
    xlabel="key (digit)",
    ylabel="query (digit)",
)
# --8<-- [end:every_head_map]
