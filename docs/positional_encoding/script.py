# %% [markdown]
# # 5. Positional encoding
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial positional-encoding` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.positional import shift_rotation, sinusoidal_table

torch.set_printoptions(precision=3, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
# --8<-- [end:parameters]


# %%
# --8<-- [start:order_blind]
torch.manual_seed(SEED)
attention = MultiHeadAttention(d_model=16, num_heads=4).eval()
x = torch.randn(1, 5, 16)  # five token vectors, no positions added
reverse = torch.tensor([4, 3, 2, 1, 0])
output, _ = attention(x)
output_of_reversed, _ = attention(x[:, reverse])
# Reversing the input only reverses the output: each token's result is the same.
same_up_to_order = torch.allclose(
    output_of_reversed, output[:, reverse], atol=1e-6
)
first_feature = output[0, :, 0].tolist()  # one number per token
first_feature_reversed = output_of_reversed[0, :, 0].tolist()
print("feature 0 of the outputs, tokens in order:", end=" ")
print(" ".join(f"{value:+.3f}" for value in first_feature))
print("the same, for the tokens reversed:        ", end=" ")
print(" ".join(f"{value:+.3f}" for value in first_feature_reversed))
# --8<-- [end:order_blind]


# %%
# --8<-- [start:table]
table = sinusoidal_table(max_len=50, d_model=16)
print("positions 0-2, features 0-5:")
print(table[:3, :6])
similarity = table @ table.T  # dot products between position vectors
print("dot product of position 10 with positions 8..12:", similarity[10, 8:13])
# --8<-- [end:table]


# %%
# --8<-- [start:position_circles]
from tutorial_code.diagrams.blocks import pairs_on_circle

fig = pairs_on_circle(table, pairs=(0, 1), positions=7, shift=2, starts=(1, 4))
# --8<-- [end:position_circles]


# %%
# --8<-- [start:shift]
errors = {}
for k in (2, -2):
    # positions 10..39, turned by R_k
    moved = table[10:40] @ shift_rotation(k, 16).T
    errors[k] = (moved - table[10 + k : 40 + k]).abs().max().item()
    print(f"R_{k:+d} @ PE[pos] against PE[pos {k:+d}], pos = 10..39:", end=" ")
    print(f"largest difference {errors[k]:.1e}")
rotation_gap = (
    (shift_rotation(2, 16) - shift_rotation(-2, 16)).abs().max().item()
)
print(f"largest entry of R_+2 - R_-2: {rotation_gap:.2f}")
# --8<-- [end:shift]


# %%
# --8<-- [start:sinusoidal_table]
from tutorial_code.diagrams.plots import table_image

fig = table_image(
    sinusoidal_table(max_len=64, d_model=64),
    xlabel="feature (even: sine, odd: cosine; frequency falls to the right)",
    ylabel="position",
)
# --8<-- [end:sinusoidal_table]
