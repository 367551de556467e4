# %% [markdown]
# # 10. Cross-attention and the encoder-decoder
#
# The code of the chapter page, in page order. This file is a jupytext percent script: it runs
# as a notebook, with `python`, or as `transformer-tutorial encoder-decoder` (options: `--help`).


# %%
# --8<-- [start:setup]
import torch
from torch import nn

from tutorial_code.decoder import DecoderLayer
from tutorial_code.from_torch import transformer_from_torch
from tutorial_code.masks import causal_mask, padding_mask
from tutorial_code.multi_head import MultiHeadAttention
from tutorial_code.plots import heatmaps
from tutorial_code.reverse_task import greedy_decode, reversal_batch, shift_right, trained_reversal

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the data and the random inputs
STEPS = 300  # optimizer steps of the model this chapter trains
DEVICE = "cpu"  # where it trains: "cuda" on an NVIDIA GPU; the trained model comes back to the CPU
# --8<-- [end:parameters]


# %%
# --8<-- [start:cross_shapes]
torch.manual_seed(SEED)
cross_attention = MultiHeadAttention(d_model=16, num_heads=4)
decoder_side = torch.randn(2, 3, 16)  # (B, T=3, d_model): 3 target positions so far
memory = torch.randn(2, 7, 16)  # (B, S=7, d_model): the encoder's output for a 7-token source
output, weights = cross_attention(
    decoder_side, memory, memory
)  # queries from the decoder, keys and values from the memory
print("queries from the decoder", tuple(decoder_side.shape), "(B, T, d_model)")
print("keys, values from memory ", tuple(memory.shape), "(B, S, d_model)")
print("cross-attention weights  ", tuple(weights.shape), "(B, h, T, S)")
print("output                   ", tuple(output.shape), "(B, T, d_model): one vector per target position")
# --8<-- [end:cross_shapes]


# %%
# --8<-- [start:masks_together]
source_keys = padding_mask(torch.tensor([7, 4]), max_len=7)  # (B, 1, 1, S): the second source has 4 tokens
target_mask = causal_mask(3)  # (T, T): no target position sees a later one
layer = DecoderLayer(d_model=16, num_heads=4, d_ff=32, dropout=0.0).eval()
_, self_weights, cross_weights = layer(decoder_side, memory, target_mask=target_mask, memory_mask=source_keys)
print("self-attention weights, sequence 1, head 0 (T x T, causal):")
print(self_weights[1, 0].detach())
print("cross-attention weights, sequence 1, head 0 (T x S, padding after 4 source tokens):")
print(cross_weights[1, 0].detach())
weight_on_source_padding = cross_weights[1, :, :, 4:].abs().max().item()
weight_on_future = self_weights[1].triu(diagonal=1).abs().max().item()
# --8<-- [end:masks_together]


# %%
# --8<-- [start:teacher_forcing]
source, target = reversal_batch(1, 8, torch.Generator().manual_seed(SEED))
print("source          ", source[0].tolist())
print("target          ", target[0].tolist())
print("decoder input   ", shift_right(target)[0].tolist(), "(10 = the start token)")
# --8<-- [end:teacher_forcing]


# %%
# --8<-- [start:train]
result = trained_reversal(steps=STEPS, seed=SEED, device=DEVICE)  # trained once: the figure below reuses it
print(f"training loss: step 0 {result.losses[0]:.3f}, last step {result.losses[-1]:.4f} ({result.seconds:.1f} s)")
print(f"held-out sequences that greedy decoding reverses exactly: {result.accuracy:.1%}")
held_out, _ = reversal_batch(3, 8, torch.Generator().manual_seed(99))
for source_digits, written in zip(held_out, greedy_decode(result.model, held_out, 8), strict=True):
    print(f"{source_digits.tolist()} -> {written.tolist()}")
accuracy = result.accuracy
# --8<-- [end:train]


# %%
# --8<-- [start:cross_attention_map]
source, _ = reversal_batch(1, 8, torch.Generator().manual_seed(7))
written = greedy_decode(result.model, source, 8)
with torch.no_grad():
    _, cross = result.model(source, shift_right(written))  # the decoder's input when it wrote `written`
weights = cross[-1][0]  # last decoder layer, sequence 0: (h, T, S)
fig = heatmaps(
    [weights.mean(dim=0)],
    ["cross-attention, mean of the heads"],
    labels=[str(d) for d in source[0].tolist()],
    row_labels=[f"{t}: wrote {d}" for t, d in enumerate(written[0].tolist())],
    xlabel="source digit (key)",
    ylabel="output position (query)",
)
looks_at = weights.mean(dim=0).argmax(dim=-1).tolist()  # the source position each output position weights most
# --8<-- [end:cross_attention_map]


# %%
# --8<-- [start:check_torch]
torch.manual_seed(SEED)
theirs = nn.Transformer(32, 4, 2, 2, 64, dropout=0.0, batch_first=True).train()  # train(): no fast path
ours = transformer_from_torch(theirs)
source, target = torch.randn(3, 7, 32), torch.randn(3, 5, 32)
keys = padding_mask(torch.tensor([7, 4, 1]), max_len=7)  # (B, 1, 1, S), True = may attend
ours_out = ours(source, target, source_mask=keys, target_mask=causal_mask(5))
theirs_out = theirs(
    source,
    target,
    tgt_mask=~causal_mask(5),
    src_key_padding_mask=~keys[:, 0, 0],
    memory_key_padding_mask=~keys[:, 0, 0],
)
largest_difference = (ours_out - theirs_out).abs().max().item()
print(f"largest difference from nn.Transformer, both masks: {largest_difference:.1e}")
# --8<-- [end:check_torch]
