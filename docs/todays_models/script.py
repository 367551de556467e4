# %% [markdown]
# # 14. From 2017 to today's models
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial todays-models` (options: `--help`).


# %%
# --8<-- [start:setup]
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_code.feed_forward import FeedForward
from tutorial_code.from_transformers import (
    gpt2_from_transformers,
    llama_from_transformers,
)
from tutorial_code.grouped_query import GroupedQueryAttention, grouped_attention
from tutorial_code.language_model import (
    CharTransformer,
    CharVocabulary,
    forward_with_cache,
    python_reference_text,
)
from tutorial_code.language_model import KVCache as Chapter12Cache
from tutorial_code.layer_norm import LayerNorm
from tutorial_code.llama import (
    LlamaModel,
    compare_with_chapter_11,
    greedy_generate,
)
from tutorial_code.masks import causal_mask
from tutorial_code.multi_head import combine_heads, split_heads
from tutorial_code.positional import shift_rotation
from tutorial_code.rms_norm import RMSNorm
from tutorial_code.rotary import apply_rotary, interleaved_to_half
from tutorial_code.swiglu import SwiGLU, swiglu_hidden_size

torch.set_printoptions(precision=3, sci_mode=False)


def count(model: nn.Module) -> int:  # parameters of a model
    return sum(p.numel() for p in model.parameters())


# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the random weights and vectors
STEPS = 350  # optimizer steps of each language model (chapter 11's recipe)
SEEDS = [SEED, SEED + 1, SEED + 2]  # one training of each model per seed
# --8<-- [end:parameters]


# %%
# --8<-- [start:two_layers]
columns = {  # one layer, bottom to top: (box, one of the four swapped pieces)
    "chapter 11's layer (2017)": [
        ("token vectors + position table", True),
        ("LayerNorm", True),
        ("multi-head attention: h key/value heads", True),
        ("+ residual", False),
        ("LayerNorm", True),
        ("feed-forward network: ReLU", True),
        ("+ residual", False),
    ],
    "Llama-style layer": [
        ("token vectors, no position table", True),
        ("RMSNorm", True),
        ("grouped-query attention: RoPE on Q, K; h_kv key/value heads", True),
        ("+ residual", False),
        ("RMSNorm", True),
        ("feed-forward network: SwiGLU", True),
        ("+ residual", False),
    ],
}
fig, ax = plt.subplots(figsize=(8.4, 4.2))
for x, (title, boxes) in zip((0, 1), columns.items(), strict=True):
    ax.text(x, len(boxes) - 0.2, title, ha="center", fontsize=11, weight="bold")
    for y, (label, swapped) in enumerate(boxes):
        colour = "#ffcc80" if swapped else "#eeeeee"  # orange: swapped
        box = {"facecolor": colour, "edgecolor": "#888888", "boxstyle": "round"}
        ax.text(
            x, y, label.replace(": ", "\n"), ha="center", va="center", bbox=box
        )
        if y:  # an arrow from the box below
            ax.annotate(
                "", (x, y - 0.3), (x, y - 0.7), arrowprops={"arrowstyle": "->"}
            )
    # the residual paths around each block
    for start, end in ((0.5, 3), (3.5, 6)):
        ax.plot([x, x - 0.47, x - 0.47], [start, start, end], color="#888888")
        ax.annotate(
            "",
            (x - 0.14, end),
            (x - 0.47, end),
            arrowprops={"arrowstyle": "->"},
        )
ax.set_xlim(-0.65, 1.55)
ax.set_ylim(-0.6, 7.2)
ax.axis("off")
fig.patch.set_facecolor("white")
fig.tight_layout()
# --8<-- [end:two_layers]


# %%
# --8<-- [start:rms_norm_line]
x = torch.tensor([[1.0, 2.0, 3.0, 6.0]])  # one token vector, d_model = 4
gamma = torch.ones(4)  # the learned scale, untrained
by_hand = gamma * x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
print("x / RMS(x):", by_hand[0])
# --8<-- [end:rms_norm_line]


# %%
# --8<-- [start:rms_norm_numbers]
norms = {"LayerNorm": LayerNorm(4), "RMSNorm": RMSNorm(4)}  # untrained: scale 1
means, rms, shift_change, scale_change = {}, {}, {}, {}
with torch.no_grad():
    for name, norm in norms.items():
        y = norm(x)
        means[name], rms[name] = y.mean().item(), y.pow(2).mean().sqrt().item()
        print(f"{name:>9}: {y[0]}  mean {means[name]:.3f}  RMS {rms[name]:.3f}")
        # each feature + 5
        shift_change[name] = (norm(x + 5.0) - y).abs().max().item()
        # each x 10
        scale_change[name] = (norm(10.0 * x) - y).abs().max().item()
for name in norms:
    shift, scale = shift_change[name], scale_change[name]
    print(
        f"{name:>9}: x + 5 moves the output by {shift:.3f}, "
        f"10 * x by {scale:.3f}"
    )
torch_norm = nn.RMSNorm(4, eps=1e-6)  # PyTorch's own, with the same eps
with torch.no_grad():
    line_difference = (norms["RMSNorm"](x) - by_hand).abs().max().item()
    rms_difference = (norms["RMSNorm"](x) - torch_norm(x)).abs().max().item()
print(f"RMSNorm against the line above: {line_difference:.1e}")
print(f"RMSNorm against nn.RMSNorm: {rms_difference}")
# --8<-- [end:rms_norm_numbers]


# %%
# --8<-- [start:rope_steps]
head_dim, T = 8, 6
torch.manual_seed(SEED)
q = torch.randn(head_dim)  # one query, before its position is applied
x = q.expand(T, head_dim)  # the same query at positions m = 0..5: (T, head_dim)
i = torch.arange(head_dim // 2)  # pair numbers
theta = 10000.0 ** (-2 * i / head_dim)  # (head_dim/2,): 1, 0.1, 0.01, 0.001
angles = torch.arange(T)[:, None] * theta  # (T, head_dim/2): m * theta_i
cos, sin = angles.cos(), angles.sin()
# pair i = features (2i, 2i + 1): (T, head_dim/2) each
a, b = (x[:, 0::2], x[:, 1::2])
# each pair turned
turned = torch.stack([a * cos - b * sin, b * cos + a * sin], dim=-1)
# (T, head_dim): features back in order 0, 1, 2, ...
rotated = turned.flatten(-2)
print("q at positions 0 to 5, rotated:")
print(rotated)
# --8<-- [end:rope_steps]


# %%
# --8<-- [start:rotary_by_hand]
by_function = apply_rotary(x, pairing="interleaved")  # row m turned by m
steps_difference = (by_function - rotated).abs().max().item()
print(
    f"apply_rotary against the steps above: difference {steps_difference:.1e}"
)
by_matrix = torch.stack([q @ shift_rotation(m, head_dim) for m in range(T)])
rotary_difference = (by_function - by_matrix).abs().max().item()
print(
    f"apply_rotary against chapter 5's R_m: difference {rotary_difference:.1e}"
)
norms_by_position = by_function.norm(dim=-1)  # (T,)
print(f"norm of q: {q.norm():.3f}; at each position:", norms_by_position)
# --8<-- [end:rotary_by_hand]


# %%
# --8<-- [start:rope_rotation]
circle = torch.zeros(16, head_dim)
circle[:, 0::2] = 1.0  # every pair starts at (1, 0)
points = apply_rotary(circle, pairing="interleaved")  # (16 positions, head_dim)
fig, axes = plt.subplots(1, 3, figsize=(8.4, 3.0))
for ax, pair in zip(axes, (0, 1, 2), strict=True):
    # the pair at 16 positions
    a, b = (points[:, 2 * pair], points[:, 2 * pair + 1])
    # radius 1
    ax.add_patch(plt.Circle((0, 0), 1.0, fill=False, color="#cccccc"))
    ax.scatter(a, b, c=range(16), cmap="viridis", zorder=2)
    # slow pairs: 1 and 2 sit on 0
    for m in (0, 1, 2, 15) if pair == 0 else (0, 15):
        x_m, y_m = a[m].item(), b[m].item()
        # 0 below its point, 15 above: they are close
        below = m == 0 and pair > 0
        outward = (0.0, -1.0) if below else (x_m, y_m)  # away from the centre
        # points, about centred
        offset = (12 * outward[0] - 3, 12 * outward[1] - 4)
        ax.annotate(
            str(m), (x_m, y_m), textcoords="offset points", xytext=offset
        )
    theta = 10000.0 ** (-2 * pair / head_dim)
    ax.set_title(f"pair {pair}: {theta:g} rad per position", fontsize=10)
    ax.set_aspect("equal")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
fig.patch.set_facecolor("white")
fig.tight_layout()
# --8<-- [end:rope_rotation]


# %%
# --8<-- [start:offset_scores]
T = 12
# two keys of other content
k, other_k = (torch.randn(head_dim), torch.randn(head_dim))
Q = apply_rotary(q.expand(T, head_dim))  # q at each position m = 0..T-1
K = apply_rotary(k.expand(T, head_dim))  # k at each position n
scores = Q @ K.T  # (T, T): row m, column n = q at m . k at n
offsets = torch.arange(T)[:, None] - torch.arange(T)[None, :]  # m - n
# one diagonal each
same_offset = [scores[offsets == d] for d in range(1 - T, T)]
spread = max(
    (diagonal.max() - diagonal.min()).item() for diagonal in same_offset
)
print(f"scores with the same offset m - n differ by at most {spread:.1e}")
print(
    f"q at 3, k at 1: {scores[3, 1]:.4f};  q at 8, k at 6: {scores[8, 6]:.4f}"
)
other_scores = Q @ apply_rotary(other_k.expand(T, head_dim)).T  # same positions
print(f"the other key at the same positions, 3 and 1: {other_scores[3, 1]:.4f}")
print(
    f"offset 0 (no turn left): {scores[5, 5]:.4f}, unrotated q . k: {q @ k:.4f}"
)
# --8<-- [end:offset_scores]


# %%
# --8<-- [start:rope_scores]
fig, (left, right) = plt.subplots(1, 2, figsize=(8.4, 3.2))
image = left.imshow(scores, cmap="coolwarm")
left.set_xticks(range(0, T, 2))  # positions are whole numbers
left.set_yticks(range(0, T, 2))
left.set_xlabel("key position n")
left.set_ylabel("query position m")
fig.colorbar(image, ax=left, label="score")
by_offset = [scores[offsets == d][0].item() for d in range(1 - T, T)]
other_by_offset = [
    other_scores[offsets == d][0].item() for d in range(1 - T, T)
]
right.plot(range(1 - T, T), by_offset, marker="o", label="q . k")
right.plot(range(1 - T, T), other_by_offset, marker="s", label="q . other key")
right.set_xlabel("offset m - n")
right.set_ylabel("score")
right.legend(fontsize=9.5)
right.grid(alpha=0.3)
fig.patch.set_facecolor("white")
fig.tight_layout()
# --8<-- [end:rope_scores]


# %%
# --8<-- [start:values_not_rotated]
torch.manual_seed(SEED)
attention = GroupedQueryAttention(
    d_model=16, num_heads=4
).eval()  # RoPE, base 10000
same = torch.randn(1, 1, 16).expand(1, 6, 16)  # one token vector at 6 positions
with torch.no_grad():
    out = attention(same)  # (1, 6, 16)
    # (1, h, 6, d_k): what is averaged
    V = split_heads(attention.W_V(same), 4)
output_spread = (out - out[:, :1]).abs().max().item()
turned_values = apply_rotary(V)  # what the values would be, rotated
turned_spread = (turned_values - turned_values[:, :, :1]).abs().max().item()
print(f"outputs at the 6 positions differ by at most {output_spread:.1e}")
print(f"rotated, the same value would differ by up to {turned_spread:.2f}")
# --8<-- [end:values_not_rotated]


# %%
# --8<-- [start:pairings]
features = torch.arange(8.0)  # feature numbers of one head, head_dim = 8
print("interleaved pairs:", features.view(4, 2).long().tolist())
print("rotate_half pairs:", features.view(2, 4).T.long().tolist())
torch.manual_seed(SEED)
trained = GroupedQueryAttention(
    d_model=32, num_heads=4, rope_pairing="interleaved"
)
weights = trained.state_dict()  # weights learned with neighbours as pairs
copied = GroupedQueryAttention(d_model=32, num_heads=4, rope_pairing="half")
copied.load_state_dict(weights)  # loads without a word
moved = GroupedQueryAttention(d_model=32, num_heads=4, rope_pairing="half")
permuted = dict(weights)
for name in ("W_Q.weight", "W_K.weight"):  # values are not rotated: W_V stays
    permuted[name] = interleaved_to_half(weights[name], head_dim=8)
moved.load_state_dict(permuted)
x = torch.randn(2, 10, 32)
with torch.no_grad():
    expected = trained(x)
    copied_difference = (copied(x) - expected).abs().max().item()
    moved_difference = (moved(x) - expected).abs().max().item()
    first_position = (copied(x) - expected)[:, 0].abs().max().item()
print(f"copied as they are:        largest difference {copied_difference:.3f}")
print(f"  of which at position 0:  {first_position:.1e}")
print(f"with interleaved_to_half:  largest difference {moved_difference:.1e}")
# --8<-- [end:pairings]


# %%
# --8<-- [start:alibi]
from tutorial_code.alibi import alibi_bias, alibi_slopes

print("slopes of 8 heads:", alibi_slopes(8))
alibi = alibi_bias(num_heads=8, seq_len=6)  # (h, T, T), added to the scores
print("head 0, query 5, keys 0..5:", alibi[0, 5])
print("head 7, query 5, keys 0..5:", alibi[7, 5])
# six copies of one token: equal scores, so the bias alone sets the weights
same = torch.ones(1, 8, 6, 16)  # (B, h, T, d_k)
_, alibi_weights = scaled_dot_product_attention(same, same, same, mask=alibi)
print("weights of head 0, query 5:", alibi_weights[0, 0, 5])
print("weights of head 7, query 5:", alibi_weights[0, 7, 5])
# --8<-- [end:alibi]


# %%
# --8<-- [start:alibi_figure]
from tutorial_code.diagrams.plots import heatmaps

shown_heads = (0, 3, 7)
fig = heatmaps(
    [alibi_weights[0, head] for head in shown_heads],
    [f"head {h}, slope {alibi_slopes(8)[h]:.4f}" for h in shown_heads],
    [str(t) for t in range(6)],
    xlabel="key",
    ylabel="query",
)
# --8<-- [end:alibi_figure]


# %%
# --8<-- [start:alibi_check]
from transformers.models.bloom.modeling_bloom import build_alibi_tensor

torch.manual_seed(SEED)
q, k, v = torch.randn(3, 2, 8, 12, 16)  # (B, h, T, d_k)
_, with_alibi = scaled_dot_product_attention(q, k, v, mask=alibi_bias(8, 12))
# BLOOM adds slope * s to the score of key s, this site -slope * (t - s):
# they differ by slope * t, the same for every key of query t
real = torch.ones(1, 12, dtype=torch.long)  # BLOOM's attention_mask: no padding
bloom = build_alibi_tensor(real, 8, torch.float32).view(8, 1, 12)  # (h, 1, T)
bloom_scores = q @ k.transpose(-2, -1) / 4 + bloom  # / sqrt(d_k)
blocked = ~causal_mask(12)
bloom_weights = torch.softmax(bloom_scores.masked_fill(blocked, -torch.inf), -1)
alibi_difference = (with_alibi - bloom_weights).abs().max().item()
print(f"largest difference from BLOOM's weights: {alibi_difference:.1e}")
# --8<-- [end:alibi_check]


# %%
# --8<-- [start:t5_buckets]
from tutorial_code.relative_position import (
    RelativePositionBias,
    relative_position_bucket,
)

distances = torch.tensor([0, 1, 2, 7, 8, 11, 12, 16, 32, 64, 127, 128, 200])
before = relative_position_bucket(-distances)  # keys before the query
after = relative_position_bucket(distances)  # keys after it
print("distance       ", distances.tolist())
print("bucket, before ", before.tolist())
print("bucket, after  ", after.tolist())
torch.manual_seed(SEED)
t5_bias = RelativePositionBias(num_heads=8)  # a learned number per bucket
with torch.no_grad():
    print("head 0, query 2, keys 0..5:", t5_bias(6, 6)[0, 2])
# --8<-- [end:t5_buckets]


# %%
# --8<-- [start:t5_check]
from transformers import T5Config
from transformers.models.t5.modeling_t5 import T5Attention

config = T5Config(d_model=64, d_kv=8, num_heads=8)  # an encoder's settings
t5_attention = T5Attention(config, has_relative_attention_bias=True)
with torch.no_grad():
    t5_attention.relative_attention_bias.weight.copy_(t5_bias.embedding.weight)
    theirs = t5_attention.compute_bias(200, 200)[0]  # (h, T_q, T_k)
    t5_difference = (t5_bias(200, 200) - theirs).abs().max().item()
print(f"largest difference from T5Attention.compute_bias: {t5_difference}")
# --8<-- [end:t5_check]


# %%
# --8<-- [start:swiglu_line]
d_model, hidden = 64, 172
gate = nn.Linear(d_model, hidden, bias=False)  # three matrices, no biases
up = nn.Linear(d_model, hidden, bias=False)
down = nn.Linear(hidden, d_model, bias=False)
token = torch.randn(3, d_model)  # three token vectors
out = down(F.silu(gate(token)) * up(token))  # SiLU(z) = z * sigmoid(z)
print("gate(x), up(x):", tuple(gate(token).shape), " output:", tuple(out.shape))
# --8<-- [end:swiglu_line]


# %%
# --8<-- [start:swiglu_count]
swiglu = SwiGLU(d_model, hidden)
# the three matrices above
swiglu.load_state_dict(
    {
        "gate.weight": gate.weight,
        "up.weight": up.weight,
        "down.weight": down.weight,
    }
)
with torch.no_grad():
    swiglu_difference = (swiglu(token) - out).abs().max().item()
print(f"SwiGLU against the line above: difference {swiglu_difference}")
d_ff = 256  # chapter 11's feed-forward width: 4 * d_model
relu = FeedForward(d_model, d_ff)
print(
    f"swiglu_hidden_size({d_model}, {d_ff}) = "
    f"{swiglu_hidden_size(d_model, d_ff)}"
)
relu_count, swiglu_count = count(relu), count(swiglu)
print(f"FeedForward({d_model}, {d_ff}): {relu_count:,} parameters")
print(f"SwiGLU({d_model}, {hidden}):     {swiglu_count:,} parameters")
# --8<-- [end:swiglu_count]


# %%
# --8<-- [start:gqa_heads]
fig, axes = plt.subplots(1, 3, figsize=(8.4, 2.6))
for ax, kv_heads in zip(axes, (4, 2, 1), strict=True):
    group = 4 // kv_heads  # query heads per key/value head
    for i in range(4):  # query head i reads key/value head i // group
        ax.plot(
            [i, (i // group) * group + (group - 1) / 2], [1, 0], color="#888888"
        )
        ax.text(
            i,
            1,
            f"Q{i}",
            ha="center",
            va="center",
            bbox={"facecolor": "#c5cae9"},
        )
    for j in range(kv_heads):
        centre = j * group + (group - 1) / 2
        ax.text(
            centre,
            0,
            f"K{j} V{j}",
            ha="center",
            va="center",
            bbox={"facecolor": "#ffe0b2"},
        )
    names = {4: "multi-head", 2: "grouped-query", 1: "multi-query"}
    heads = f"{kv_heads} key/value head" + ("s" if kv_heads > 1 else "")
    ax.set_title(f"{names[kv_heads]}: {heads}", fontsize=10)
    ax.set_xlim(-0.7, 3.7)
    ax.set_ylim(-0.4, 1.4)
    ax.axis("off")
fig.patch.set_facecolor("white")
fig.tight_layout()
# --8<-- [end:gqa_heads]


# %%
# --8<-- [start:gqa_steps]
torch.manual_seed(SEED)
B, T, d_model, h, h_kv = 2, 5, 32, 4, 2  # 4 query heads, 2 key/value heads
d_k = d_model // h  # 8
x = torch.randn(B, T, d_model)
W_Q = nn.Linear(d_model, h * d_k, bias=False)  # 32 rows: 4 heads of 8
W_K = nn.Linear(d_model, h_kv * d_k, bias=False)  # 16 rows: 2 heads of 8
W_V = nn.Linear(d_model, h_kv * d_k, bias=False)
W_O = nn.Linear(h * d_k, d_model, bias=False)

# (B, h, T, d_k), turned by position
Q = apply_rotary(split_heads(W_Q(x), h))
K = apply_rotary(split_heads(W_K(x), h_kv))  # (B, h_kv, T, d_k), turned
V = split_heads(W_V(x), h_kv)  # (B, h_kv, T, d_k), not turned
group = h // h_kv  # query heads per key/value head: 2
K_all = K.repeat_interleave(group, dim=1)  # (B, h, T, d_k): heads 0, 0, 1, 1
V_all = V.repeat_interleave(group, dim=1)
# chapter 2
heads, _ = scaled_dot_product_attention(Q, K_all, V_all, causal_mask(T))
output = W_O(combine_heads(heads))  # (B, T, d_model)
print("K:", tuple(K.shape), " repeated for the groups:", tuple(K_all.shape))
print("output:", tuple(output.shape))
# --8<-- [end:gqa_steps]


# %%
# --8<-- [start:gqa_same]
function_heads, _ = grouped_attention(Q, K, V, causal_mask(T))  # repeats inside
grouped_difference = (function_heads - heads).abs().max().item()
print(
    "grouped_attention against the lines above: "
    f"difference {grouped_difference:.1e}"
)
module = GroupedQueryAttention(d_model=32, num_heads=4, num_kv_heads=2)
# the matrices above
projections = {"W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": W_O}
module.load_state_dict(
    {f"{n}.weight": p.weight for n, p in projections.items()}
)
with torch.no_grad():
    module_difference = (module(x) - output).abs().max().item()
print(
    "GroupedQueryAttention, the same weights: "
    f"difference {module_difference:.1e}"
)
# --8<-- [end:gqa_same]


# %%
# --8<-- [start:llama_size]
text = python_reference_text()  # chapter 11's text
vocabulary = CharVocabulary.of(text)
vocab_size = len(vocabulary.chars)
sizes = {"d_model": 64, "num_layers": 2, "num_heads": 4}  # chapter 11's
torch.manual_seed(SEED)
target = count(CharTransformer(vocab_size))  # chapter 11's model
# d_ff as SwiGLU's above
base = count(LlamaModel(vocab_size, **sizes, num_kv_heads=4, d_ff=172))
# one more hidden feature: gate, up and down, in 2 layers
per_feature = 3 * 64 * 2
d_ff = 172 + round((target - base) / per_feature)
llama = LlamaModel(vocab_size, **sizes, num_kv_heads=4, d_ff=d_ff).eval()
gap = count(llama) / target - 1
print(f"CharTransformer (chapter 11): {target:,} parameters")
print(
    f"LlamaModel, d_ff={d_ff}:       {count(llama):,} parameters ({gap:+.2%})"
)
start = vocabulary.encode("The ").unsqueeze(0)  # (1, 4)
cached = greedy_generate(llama, start, new_tokens=20)
uncached = greedy_generate(llama, start, new_tokens=20, use_cache=False)
same_tokens = torch.equal(cached, uncached)
print(f"20 greedy tokens, with and without the cache, the same: {same_tokens}")
# --8<-- [end:llama_size]


# %%
# --8<-- [start:kv_bytes]
prompt = vocabulary.encode(text[:64]).unsqueeze(0)  # (B, T) = (1, 64)
torch.manual_seed(SEED)
chapter_12_cache = Chapter12Cache()  # chapter 12's cache, on chapter 11's model
forward_with_cache(CharTransformer(vocab_size).eval(), prompt, chapter_12_cache)
tensors = chapter_12_cache.keys + chapter_12_cache.values
chapter_12_bytes = sum(t.nbytes for t in tensors)
shape = tuple(tensors[0].shape)  # (B, h, T, d_k)
print(f"{'chapter 12, 4 heads:':20} keys {shape}, {chapter_12_bytes:,} bytes")
cache_bytes = {}
# h, h/2 and 1 key/value heads; 4 query heads each time
for kv_heads in (4, 2, 1):
    model = LlamaModel(
        vocab_size, **sizes, num_kv_heads=kv_heads, d_ff=d_ff
    ).eval()
    cache = model.new_cache()  # one KVCache per layer
    with torch.no_grad():
        model(prompt, cache=cache)
    cache_bytes[kv_heads] = sum(layer.nbytes for layer in cache)
    shape = tuple(cache[0].keys.shape)  # (B, h_kv, T, d_k)
    label = f"{kv_heads} key/value head" + ("s:" if kv_heads > 1 else ":")
    print(f"{label:20} keys {shape}, {cache_bytes[kv_heads]:,} bytes")
# --8<-- [end:kv_bytes]


# %%
# --8<-- [start:llama_2_70b]
# Llama 2 70B's published configuration (config.json):
# bfloat16, 2 bytes a number
vocab, width, layers, heads, kv_heads, ffn = 32000, 8192, 80, 64, 8, 28672
head_dim, context, number_bytes = width // heads, 4096, 2  # head_dim 128
# shapes only: no memory is allocated, nothing computed
with torch.device("meta"):
    # fmt: skip
    llama_70b = LlamaModel(
        vocab,
        d_model=width,
        num_layers=layers,
        num_heads=heads,
        num_kv_heads=kv_heads,
        d_ff=ffn,
    )
weight_bytes = number_bytes * count(llama_70b)
print(
    f"Llama 2 70B: {count(llama_70b):,} parameters, {weight_bytes / 1e9:.1f} GB"
)
sequence_bytes, fills = {}, {}  # the cache of one sequence of 4,096 tokens
for h_kv in (heads, kv_heads):  # as multi-head attention, then as published
    numbers = 2 * layers * h_kv * head_dim * context  # keys and values
    sequence_bytes[h_kv] = number_bytes * numbers
    # caches as large as the weights
    fills[h_kv] = weight_bytes / sequence_bytes[h_kv]
    size = (
        f"{h_kv:2} key/value heads: "
        f"{sequence_bytes[h_kv] / 1e9:5.2f} GB a sequence"
    )
    print(
        f"{size}; as many bytes as the weights at {fills[h_kv]:5.1f} sequences"
    )
# --8<-- [end:llama_2_70b]


# %%
# --8<-- [start:training_comparison]
# recorded: see the text
runs = compare_with_chapter_11(STEPS, SEEDS, d_ff=d_ff)
for i, seed in enumerate(SEEDS):
    print(
        f"seed {seed}: chapter 11 {runs['chapter_11_bpc'][i]:.3f} bpc "
        f"({runs['chapter_11_seconds'][i]:.1f} s), Llama-style "
        f"{runs['llama_bpc'][i]:.3f} bpc ({runs['llama_seconds'][i]:.1f} s)"
    )
chapter_11_bpc, llama_bpc = runs["chapter_11_bpc"], runs["llama_bpc"]
chapter_11_seconds, llama_seconds = (
    runs["chapter_11_seconds"],
    runs["llama_seconds"],
)
gains = [a - b for a, b in zip(chapter_11_bpc, llama_bpc, strict=True)]
mean_gain = sum(gains) / len(gains)
print(
    "mean held-out gain of the Llama-style model: "
    f"{mean_gain:.3f} bits per char"
)
median_seconds = [
    sorted(s)[len(s) // 2] for s in (chapter_11_seconds, llama_seconds)
]
print(
    "median seconds: chapter 11 {:.1f}, Llama-style {:.1f}".format(
        *median_seconds
    )
)
# --8<-- [end:training_comparison]


# %%
# --8<-- [start:llama_equality]
from transformers import LlamaConfig, LlamaForCausalLM


def unit_scale(model: nn.Module) -> nn.Module:  # logits of order 1, not near 0
    torch.manual_seed(SEED)
    with torch.no_grad():
        # scales near 1, matrices of std 1/sqrt(fan-in)
        for p in model.parameters():
            p.normal_(1.0, 0.2) if p.dim() == 1 else p.normal_(
                0.0, p.size(-1) ** -0.5
            )
    return model.eval()


# fmt: skip
config = LlamaConfig(
    vocab_size=vocab_size,
    hidden_size=64,
    intermediate_size=172,
    num_hidden_layers=2,
    num_attention_heads=8,
    num_key_value_heads=2,  # 4 query heads per key/value head
    bos_token_id=0,
    eos_token_id=1,
)
theirs = unit_scale(LlamaForCausalLM(config))
ours = llama_from_transformers(theirs)
ids = vocabulary.encode(text[:24]).view(2, 12)  # (B, T)
attention_mask = torch.ones(2, 12, dtype=torch.long)
attention_mask[1, 7:] = 0  # the second sequence: 7 tokens, then padding
real = attention_mask.bool()
with torch.no_grad():
    expected = theirs(
        ids, attention_mask=attention_mask
    ).logits  # (B, T, vocab_size)
    llama_difference = (ours(ids, real) - expected)[real].abs().max().item()
largest = expected.abs().max().item()
print(
    f"LlamaForCausalLM, 8 query / 2 key-value heads, logits up to {largest:.1f}"
)
print(f"largest difference at the real positions: {llama_difference:.1e}")
# --8<-- [end:llama_equality]


# %%
# --8<-- [start:gpt2_equality]
from transformers import GPT2Config, GPT2LMHeadModel

# fmt: skip
gpt2_config = GPT2Config(
    vocab_size=vocab_size,
    n_embd=64,
    n_layer=2,
    n_head=4,
    n_positions=64,
    bos_token_id=0,
    eos_token_id=1,  # ids inside this small vocabulary
)
theirs_gpt2 = unit_scale(GPT2LMHeadModel(gpt2_config))
ours_gpt2 = gpt2_from_transformers(theirs_gpt2)
with torch.no_grad():
    expected = theirs_gpt2(ids, attention_mask=attention_mask).logits
    gpt2_difference = (ours_gpt2(ids, real) - expected)[real].abs().max().item()
largest = expected.abs().max().item()
print(f"GPT2LMHeadModel, tied embeddings, logits up to {largest:.1f}")
print(f"largest difference at the real positions: {gpt2_difference:.1e}")
# --8<-- [end:gpt2_equality]


# %%
# --8<-- [start:refused]
# fmt: skip
scaled = LlamaConfig(
    vocab_size=vocab_size,
    hidden_size=64,
    intermediate_size=172,
    num_hidden_layers=2,
    num_attention_heads=8,
    num_key_value_heads=2,
    bos_token_id=0,
    eos_token_id=1,
    rope_parameters={
        "rope_type": "linear",
        "factor": 2.0,
        "rope_theta": 10000.0,
    },
)
try:
    llama_from_transformers(LlamaForCausalLM(scaled))
    message = "converted"
except ValueError as error:
    message = str(error)
print(f"ValueError: {message}")
# --8<-- [end:refused]


# %%
# --8<-- [start:saved_checkpoint]
from transformers.utils import logging

logging.disable_progress_bar()  # no progress bars in the printed output
with tempfile.TemporaryDirectory() as folder:
    theirs.save_pretrained(folder)  # config.json and model.safetensors
    loaded = LlamaForCausalLM.from_pretrained(
        folder, local_files_only=True
    ).eval()
    print("saved files:", sorted(path.name for path in Path(folder).iterdir()))
from_folder = llama_from_transformers(loaded)
with torch.no_grad():
    folder_difference = (from_folder(ids) - ours(ids)).abs().max().item()
print(
    "loaded back, converted, against the one converted before: "
    f"{folder_difference}"
)
# --8<-- [end:saved_checkpoint]
