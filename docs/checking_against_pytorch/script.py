# %% [markdown]
# # 9. Checking against PyTorch
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial checking-against-pytorch` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from torch import nn
from tutorial_code.diagrams.encoder import weight_copy_diagram
from tutorial_code.encoder import EncoderLayer
from tutorial_code.from_torch import encoder_layer_from_torch
from tutorial_code.masks import padding_mask, to_torch_multihead_mask
from tutorial_code.multi_head import MultiHeadAttention

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the random weights and inputs
# --8<-- [end:parameters]


# %%
# --8<-- [start:copy_weights]
torch.manual_seed(SEED)
theirs = nn.MultiheadAttention(
    embed_dim=64, num_heads=8, batch_first=True
).eval()
ours = MultiHeadAttention(d_model=64, num_heads=8).eval()
print(
    "in_proj_weight", tuple(theirs.in_proj_weight.shape), "(3 d_model, d_model)"
)
with torch.no_grad():
    W_Q, W_K, W_V = theirs.in_proj_weight.chunk(3)  # 3 x (d_model, d_model)
    b_Q, b_K, b_V = theirs.in_proj_bias.chunk(3)  # 3 x (d_model,)
    ours.W_Q.weight.copy_(W_Q)
    ours.W_K.weight.copy_(W_K)
    ours.W_V.weight.copy_(W_V)
    ours.W_Q.bias.copy_(b_Q)
    ours.W_K.bias.copy_(b_K)
    ours.W_V.bias.copy_(b_V)
    ours.W_O.weight.copy_(theirs.out_proj.weight)  # out_proj is W_O
    ours.W_O.bias.copy_(theirs.out_proj.bias)
stacked = torch.cat([ours.W_Q.weight, ours.W_K.weight, ours.W_V.weight])
copied = torch.equal(stacked, theirs.in_proj_weight)
copied = copied and torch.equal(ours.W_O.weight, theirs.out_proj.weight)
print(
    "W_Q, W_K, W_V stacked equal in_proj_weight; W_O equals out_proj.weight:",
    copied,
)
# --8<-- [end:copy_weights]


# %%
# --8<-- [start:weight_copy]
fig = weight_copy_diagram(theirs, ours)
# --8<-- [end:weight_copy]


# %%
# --8<-- [start:multi_head]
x = torch.randn(4, 32, 64)  # (B, T, d_model)
lengths = torch.tensor([32, 20, 7, 1])  # real tokens per sequence
mask = padding_mask(lengths, max_len=32)  # (B, 1, 1, T), True = attend
# (B, T), True = blocked
key_padding_mask = to_torch_multihead_mask(mask[:, 0, 0])
their_output, their_weights = theirs(
    x,
    x,
    x,
    key_padding_mask=key_padding_mask,
    average_attn_weights=False,  # one map per head, as ours returns
)
our_output, our_weights = ours(x, mask=mask)
output_difference = (our_output - their_output).abs().max().item()
weight_difference = (our_weights - their_weights).abs().max().item()
print(f"output differs by  {output_difference:.1e}")
print(f"weights differ by  {weight_difference:.1e}")
# --8<-- [end:multi_head]


# %%
# --8<-- [start:encoder_layer]
layer_differences = []
for norm_first in (False, True):
    torch.manual_seed(SEED)
    layer = nn.TransformerEncoderLayer(
        64,
        8,
        dim_feedforward=128,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
    ).eval()
    our_layer = encoder_layer_from_torch(layer)
    our_result, _ = our_layer(x, mask=mask)
    their_result = layer(x, src_key_padding_mask=key_padding_mask)
    layer_differences.append((our_result - their_result).abs().max().item())
    name = "pre-norm" if norm_first else "post-norm"
    print(f"{name} layer output differs by {layer_differences[-1]:.1e}")
# --8<-- [end:encoder_layer]


# %%
# --8<-- [start:float64]
theirs64, ours64, x64 = theirs.double(), ours.double(), x.double()
their_output64, _ = theirs64(x64, x64, x64, key_padding_mask=key_padding_mask)
our_output64, _ = ours64(x64, mask=mask)
float64_difference = (our_output64 - their_output64).abs().max().item()
print(f"in float64 the output differs by {float64_difference:.1e}")
# --8<-- [end:float64]


# %%
# --8<-- [start:parameter_count]
our_layer = EncoderLayer(d_model=512, num_heads=8, d_ff=2048)
their_layer = nn.TransformerEncoderLayer(
    d_model=512, nhead=8, dim_feedforward=2048
)
our_count = sum(p.numel() for p in our_layer.parameters())
their_count = sum(p.numel() for p in their_layer.parameters())
print(f"parameters of one layer: ours {our_count:,}, PyTorch's {their_count:,}")
# --8<-- [end:parameter_count]
