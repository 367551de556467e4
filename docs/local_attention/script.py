# %% [markdown]
# # 13. Local attention
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial local-attention` (options: `--help`).


# %%
# --8<-- [start:setup]
import math
import time
from itertools import pairwise

import torch
from torch import nn
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.diagrams.attention import mask_maps
from tutorial_code.local_attention import (
    SlidingWindowCache,
    band_mask,
    blocked_local_attention,
    blocked_scores,
    dilated_mask,
    reachable,
    sliding_window_step,
)
from tutorial_code.masks import causal_mask
from tutorial_code.multi_head import (
    MultiHeadAttention,
    combine_heads,
    split_heads,
)

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the random queries, keys, values and weights
# --8<-- [end:parameters]


# %%
# --8<-- [start:band_by_hand]
T, W = 8, 3  # 8 positions, a window of 3 keys
band = torch.zeros(T, T, dtype=torch.bool)
for t in range(T):  # query t: itself and the W - 1 keys before it
    band[t, max(0, t - W + 1) : t + 1] = True
print(band.int())
print("keys per query:", band.sum(dim=-1).tolist())
# --8<-- [end:band_by_hand]


# %%
# --8<-- [start:local_mask_maps]
maps = {
    "causal band, w = 3": band_mask(12, 3),
    "centred band, w = 3": band_mask(12, 3, causal=False),
    "causal, w = 3, dilation 2": dilated_mask(12, 3, 2),
    "centred, w = 2, dilation 3": dilated_mask(12, 2, 3, causal=False),
}
fig = mask_maps(list(maps.values()), list(maps))
# --8<-- [end:local_mask_maps]


# %%
# --8<-- [start:covers_everything]
torch.manual_seed(SEED)
T = 16
q, k, v = torch.randn(3, 2, 4, T, 8).unbind(0)  # (B=2, h=4, T, d_k=8) each
causal, _ = scaled_dot_product_attention(q, k, v, causal_mask(T))
unmasked, _ = scaled_dot_product_attention(q, k, v)
covered = {}  # window: (largest difference causal, largest difference centred)
for W in (T, T + 5, 4):
    local, _ = scaled_dot_product_attention(q, k, v, band_mask(T, W))
    centred, _ = scaled_dot_product_attention(q, k, v, band_mask(T, W, False))
    pairs = (local, causal), (centred, unmasked)
    covered[W] = [(a - b).abs().max().item() for a, b in pairs]
    print(
        f"w = {W:>2}: largest difference, causal band from causal attention "
        f"{covered[W][0]:.2g}, centred band from no mask {covered[W][1]:.2g}"
    )
# --8<-- [end:covers_everything]


# %%
# --8<-- [start:receptive_field]
T, W = 32, 4
one_layer = band_mask(T, W)
reach_keys = {}
for layers in range(1, 6):
    # (T, T): what query t can read after L layers
    reach = reachable(one_layer, layers)
    reach_keys[layers] = int(reach[T - 1].sum())  # keys the last query reaches
print(
    "keys the last query reaches after 1 to 5 layers:",
    list(reach_keys.values()),
)
added = [b - a for a, b in pairwise(reach_keys.values())]
print("added by each layer:", added, f"(w - 1 = {W - 1})")
# --8<-- [end:receptive_field]


# %%
# --8<-- [start:mixed_reach]
dilated = dilated_mask(T, W, W)  # the last query sees keys 31, 27, 23, 19
two_dilated = reachable(dilated, 2)[T - 1].nonzero().flatten().tolist()
print("two dilated layers reach keys", two_dilated)
# A band layer below a dilated one: the same matrix product, of two different
# masks.
mixed = (dilated.float() @ one_layer.float() > 0)[T - 1]  # the last query's row
mixed_keys = mixed.nonzero().flatten().tolist()
print(
    "a band layer, then a dilated one: "
    f"keys {mixed_keys[0]} to {mixed_keys[-1]}, "
    f"{len(mixed_keys)} keys (two band layers: {reach_keys[2]})"
)
# --8<-- [end:mixed_reach]


# %%
# --8<-- [start:receptive_field_maps]
small, wide = band_mask(12, 3), dilated_mask(12, 3, 3)
maps = {
    "band, w = 3, 1 layer": reachable(small, 1),
    "band, 3 layers": reachable(small, 3),
    "dilated (w = 3, ×3), 2 layers": reachable(wide, 2),
    "band, then dilated": wide.float() @ small.float() > 0,
}
fig = mask_maps(list(maps.values()), list(maps))
# --8<-- [end:receptive_field_maps]


# %%
# --8<-- [start:blocked_by_hand]
torch.manual_seed(SEED)
T, W, d_k = 12, 3, 8
q, k, v = torch.randn(3, T, d_k).unbind(0)  # (T, d_k) each: one head
n = T // W  # 4 blocks of W positions
q_blocks = q.view(n, W, d_k)  # block i holds the queries iW, ..., iW + W - 1
# empty block first
k_padded = torch.cat([torch.zeros(W, d_k), k]).view(n + 1, W, d_k)
# (n, 2W, d_k): blocks i-1, i
k_near = torch.cat([k_padded[:-1], k_padded[1:]], dim=1)
scores = q_blocks @ k_near.transpose(-2, -1) / math.sqrt(d_k)  # (n, W, 2W)
entries = scores.numel()
print("scores:", tuple(scores.shape), "=", entries, "entries instead of", T * T)
# --8<-- [end:blocked_by_hand]


# %%
# --8<-- [start:blocked_entries]
block = torch.arange(12) // 3  # the block of each position
# (T, T): query's block minus key's block
apart = block[:, None] - block[None, :]
computed = (apart == 0) | (apart == 1)  # its own block and the one before
fig = mask_maps(
    [band_mask(12, 3), computed], ["the band, w = 3", "the blocks' scores"]
)
# --8<-- [end:blocked_entries]


# %%
# --8<-- [start:blocked_equals_masked]
blocked_difference = 0.0
for shape, T, W in [
    ((1,), 64, 8),
    ((2, 4), 100, 7),
    ((3, 2), 37, 40),
    ((2, 1), 9, 1),
]:
    for is_causal in (True, False):
        q, k, v = torch.randn(3, *shape, T, 16).unbind(0)  # (..., T, d_k) each
        masked, _ = scaled_dot_product_attention(
            q, k, v, band_mask(T, W, is_causal)
        )
        blocked = blocked_local_attention(q, k, v, W, is_causal)
        difference = (blocked - masked).abs().max().item()
        blocked_difference = max(blocked_difference, difference)
print(f"largest difference, blocked against masked: {blocked_difference:.1e}")
# --8<-- [end:blocked_equals_masked]


# %%
# --8<-- [start:cost_counts]
LENGTHS, W = (256, 512, 1024, 2048), 32
masked_scores, block_scores = {}, {}
for T in LENGTHS:
    q, k, v = torch.randn(3, 1, T, 16).unbind(0)  # (h=1, T, d_k=16) each
    _, weights = scaled_dot_product_attention(q, k, v, band_mask(T, W))
    masked_scores[T] = weights.numel()  # one score per query and key: (T, T)
    block_scores[T] = blocked_scores(q, k, W)[0].numel()  # (T / W, W, 2W)
print(
    f"| T | scores, masked | blocked (w = {W}) | fewer by "
    "| MiB, masked | blocked |"
)
print("|---|---|---|---|---|---|")
for T in LENGTHS:
    masked, blocked = masked_scores[T], block_scores[T]
    mib = 4 * masked / 2**20, 4 * blocked / 2**20  # float32: 4 bytes a score
    ratio = masked / blocked
    memory = f"{mib[0]:.2f} | {mib[1]:.2f}"
    print(f"| {T:,} | {masked:,} | {blocked:,} | {ratio:.0f}× | {memory} |")
# --8<-- [end:cost_counts]


# %%
# --8<-- [start:cost_timing]
# the fastest of a few runs, least disturbed
def best_ms(function, *args, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        times.append(1000 * (time.perf_counter() - start))
    return min(times)


print("     T  masked ms  blocked ms  masked / blocked")  # w = 32, one head
for length in LENGTHS:
    q, k, v = torch.randn(3, 1, length, 16).unbind(0)  # (h=1, T, d_k=16) each
    mask = band_mask(length, W)
    masked_ms = best_ms(scaled_dot_product_attention, q, k, v, mask)
    blocked_ms = best_ms(blocked_local_attention, q, k, v, W)
    ratio_ms = masked_ms / blocked_ms
    print(
        f"{length:>6} {masked_ms:>10.1f} {blocked_ms:>11.1f} {ratio_ms:>17.1f}"
    )
# --8<-- [end:cost_timing]


# %%
# --8<-- [start:sliding_cache]
torch.manual_seed(SEED)
T, W = 12, 4
q, k, v = torch.randn(3, 1, 2, T, 8).unbind(0)  # (B=1, h=2, T, d_k=8) each
full, _ = scaled_dot_product_attention(q, k, v, band_mask(T, W))
cache, kept, step_difference = SlidingWindowCache(W), [], 0.0
for t in range(T):  # one new position per step, as when generating
    now = slice(t, t + 1)
    out = sliding_window_step(
        q[..., now, :], k[..., now, :], v[..., now, :], cache
    )
    kept.append(cache.keys.size(-2))  # positions the cache holds
    difference = (out - full[..., now, :]).abs().max().item()
    step_difference = max(step_difference, difference)
print("positions in the cache after each step:", kept)
print(
    "largest difference from full attention under the band: "
    f"{step_difference:.1e}"
)
# --8<-- [end:sliding_cache]


# %%
# --8<-- [start:two_samplers]
torch.manual_seed(SEED)
letters, d_model, heads, W = "abcdefghijklmnop", 32, 4, 6
embedding = nn.Embedding(len(letters), d_model)
attention = MultiHeadAttention(d_model, heads)
to_logits = nn.Linear(d_model, len(letters))
W_Q, W_K, W_V = attention.W_Q, attention.W_K, attention.W_V


# one id drawn from the softmax of the logits
def sample(logits, generator):
    probabilities = torch.softmax(logits, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator)[0]


# the whole text so far, under the band mask
def next_without_cache(ids, generator):
    x = embedding(ids)[None]  # (1, t, d_model)
    out, _ = attention(x, mask=band_mask(len(ids), W))
    return sample(to_logits(out[0, -1]), generator)


# the newest token only
def next_with_cache(new_id, cache, generator):
    x = embedding(new_id.view(1, 1))  # (1, 1, d_model)
    # (1, h, 1, d_k) each
    Q, K, V = (split_heads(f(x), heads) for f in (W_Q, W_K, W_V))
    out = attention.W_O(combine_heads(sliding_window_step(Q, K, V, cache)))
    return sample(to_logits(out[0, -1]), generator)


# --8<-- [end:two_samplers]


# %%
# --8<-- [start:same_tokens]
written = {}
with torch.no_grad():
    for use_cache in (False, True):
        generator = torch.Generator().manual_seed(SEED)
        cache = SlidingWindowCache(W)
        ids = [torch.tensor(0)]  # "a"
        for _ in range(60):
            if use_cache:
                ids.append(next_with_cache(ids[-1], cache, generator))
            else:
                ids.append(next_without_cache(torch.stack(ids), generator))
        written[use_cache] = "".join(letters[i] for i in ids)
        label = "with the cache" if use_cache else "without a cache"
        print(f"{label:>15}: {written[use_cache]}")
same_tokens = written[False] == written[True]
cached_shape, fed = tuple(cache.keys.shape), cache.length
print(
    f"the same tokens: {same_tokens}; keys cached: "
    f"{cached_shape} of {fed} positions"
)
# --8<-- [end:same_tokens]


# %%
# --8<-- [start:patterns_as_written]
class MixedPatternsAsWritten(nn.Module):
    """One attention per pattern name; a linear layer mixes their outputs."""

    def __init__(
        self, d_model, num_heads, patterns=("full", "local", "dilated")
    ):
        super().__init__()
        self.patterns = patterns
        branches = [MultiHeadAttention(d_model, num_heads) for _ in patterns]
        self.branches = nn.ModuleList(branches)
        self.mixer = nn.Linear(len(patterns) * d_model, d_model)

    def branch_outputs(self, x):
        # no branch reads a pattern
        return [branch(x)[0] for branch in self.branches]

    def forward(self, x):
        return self.mixer(torch.cat(self.branch_outputs(x), dim=-1))


# each branch's output against the first
def largest_differences(outputs, names):
    pairs = zip(names, outputs, strict=True)
    return {name: (out - outputs[0]).abs().max().item() for name, out in pairs}


torch.manual_seed(SEED)
T = 24
layer, x = (
    MixedPatternsAsWritten(d_model=32, num_heads=4),
    torch.randn(2, T, 32),
)
with torch.no_grad():
    own = layer.branch_outputs(x)  # each branch has its own random weights
    for branch in layer.branches[1:]:
        # now the same weights
        branch.load_state_dict(layer.branches[0].state_dict())
    alike = layer.branch_outputs(x)
own_weights = largest_differences(own, layer.patterns)
as_written = largest_differences(alike, layer.patterns)
for name in layer.patterns[1:]:
    print(
        f"{name:>7} against full: "
        f"{own_weights[name]:.2f} with its own weights, "
        f"{as_written[name]} with the same weights"
    )
# --8<-- [end:patterns_as_written]


# %%
# --8<-- [start:patterns_fixed]
class MixedPatterns(MixedPatternsAsWritten):
    """The same layer, each branch masked as its pattern says."""

    def __init__(self, d_model, num_heads, window, dilation):
        super().__init__(d_model, num_heads)
        self.window, self.dilation = window, dilation

    def branch_outputs(self, x):
        T, w, r = x.size(1), self.window, self.dilation
        masks = {
            "full": None,
            "local": band_mask(T, w, causal=False, device=x.device),
            "dilated": dilated_mask(T, w, r, causal=False, device=x.device),
        }
        pairs = zip(self.patterns, self.branches, strict=True)
        return [branch(x, mask=masks[name])[0] for name, branch in pairs]


fixed = MixedPatterns(d_model=32, num_heads=4, window=4, dilation=4)
fixed.load_state_dict(layer.state_dict())  # the same weights as above
far = x.clone()
far[:, 0] += 1.0  # change token 0, far from the last token (position 23)
reads_token_0 = {}
with torch.no_grad():
    for name, model in (("as written", layer), ("fixed", fixed)):
        before, after = model.branch_outputs(x), model.branch_outputs(far)
        pairs = zip(before, after, strict=True)
        change = [(b[:, -1] - a[:, -1]).abs().max().item() for a, b in pairs]
        reads_token_0[name] = dict(zip(fixed.patterns, change, strict=True))
        shown = ", ".join(
            f"{p} {c:.2g}" for p, c in reads_token_0[name].items()
        )
        print(f"{name:>10}: change of the last token's output: {shown}")
# --8<-- [end:patterns_fixed]
