# %% [markdown]
# # 9. Checking against PyTorch
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial checking-against-pytorch` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from torch import nn

from tutorial_code.encoder import EncoderLayer
from tutorial_code.from_torch import encoder_layer_from_torch, multi_head_attention_from_torch
from tutorial_code.masks import padding_mask, to_torch_multihead_mask

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the random weights and inputs
# --8<-- [end:parameters]


# %%
# --8<-- [start:multi_head]
torch.manual_seed(SEED)
theirs = nn.MultiheadAttention(embed_dim=64, num_heads=8, batch_first=True).eval()
ours = multi_head_attention_from_torch(theirs)
x = torch.randn(4, 32, 64)
mask = padding_mask(torch.tensor([32, 20, 7, 1]), max_len=32)  # (B, 1, 1, T), True = attend
key_padding_mask = to_torch_multihead_mask(mask[:, 0, 0])  # (B, T), True = blocked
their_output, their_weights = theirs(x, x, x, key_padding_mask=key_padding_mask, average_attn_weights=False)
our_output, our_weights = ours(x, mask=mask)
print(f"output differs by  {(our_output - their_output).abs().max():.1e}")
print(f"weights differ by  {(our_weights - their_weights).abs().max():.1e}")
# --8<-- [end:multi_head]


# %%
# --8<-- [start:encoder_layer]
for norm_first in (False, True):
    torch.manual_seed(SEED)
    layer = nn.TransformerEncoderLayer(64, 8, dim_feedforward=128, dropout=0.0, batch_first=True, norm_first=norm_first)
    our_layer = encoder_layer_from_torch(layer.eval())
    difference = (our_layer(x, mask=mask)[0] - layer(x, src_key_padding_mask=key_padding_mask)).abs().max()
    print(f"{'pre-norm' if norm_first else 'post-norm'} layer output differs by {difference:.1e}")
# --8<-- [end:encoder_layer]


# %%
# --8<-- [start:float64]
theirs64, ours64, x64 = theirs.double(), ours.double(), x.double()
difference = (ours64(x64, mask=mask)[0] - theirs64(x64, x64, x64, key_padding_mask=key_padding_mask)[0]).abs().max()
print(f"in float64 the output differs by {difference:.1e}")
# --8<-- [end:float64]


# %%
# --8<-- [start:parameter_count]
ours = EncoderLayer(d_model=512, num_heads=8, d_ff=2048)
theirs = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048)
print(
    f"parameters of one paper-sized layer: ours {sum(p.numel() for p in ours.parameters()):,}, "
    f"PyTorch's {sum(p.numel() for p in theirs.parameters()):,}"
)
# --8<-- [end:parameter_count]
