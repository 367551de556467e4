# %% [markdown]
# # Best practices
#
# The code of the chapter page, in page order. This file is a jupytext percent
# script: it runs as a notebook, with `python`, or as
# `transformer-tutorial best-practices` (options: `--help`).


# %%
# --8<-- [start:setup]
import statistics

from torch import nn
from tutorial_code.benchmark_results import benchmark_results
from tutorial_code.diagrams.plots import log_log_panels
from tutorial_code.digit_model import DigitModel
from tutorial_code.efficiency import attention_flops
from tutorial_code.sum_task import (
    held_out_mse_per_seed,
    train_sum_model,
    trained_sum_model,
)

# --8<-- [end:setup]


# %% tags=["parameters"]
# --8<-- [start:parameters]
SEED = 0  # seed of the weights, the dropout and the data
STEPS = 200  # optimizer steps of the two models that compare initializations
# where they train: "cuda" on an NVIDIA GPU; trained models come back to the CPU
DEVICE = "cpu"
# --8<-- [end:parameters]


# %%
# --8<-- [start:init]
def xavier_attention(model: DigitModel) -> DigitModel:
    """Xavier-uniform weights and zero biases for every attention projection, as
    in the paper's code."""
    for layer in model.layers:
        for projection in (
            layer.attention.W_Q,
            layer.attention.W_K,
            layer.attention.W_V,
            layer.attention.W_O,
        ):
            nn.init.xavier_uniform_(projection.weight)
            nn.init.zeros_(projection.bias)
    return model


# PyTorch's default initialization
default_init = trained_sum_model(seed=SEED, steps=STEPS, device=DEVICE)
xavier_init = train_sum_model(
    steps=STEPS, seed=SEED, model=xavier_attention(DigitModel()), device=DEVICE
)
for name, result in (
    ("PyTorch default", default_init),
    ("Xavier-uniform attention", xavier_init),
):
    print(
        f"{name:>24}: first loss {result.losses[0]:5.2f}, "
        f"held-out MSE after {STEPS} steps {result.eval_loss:.4f}"
    )
# --8<-- [end:init]


# %%
# --8<-- [start:schedule]
# one run is not enough: the spread between seeds is large
SEEDS = [SEED, SEED + 1, SEED + 2]
SCHEDULE_STEPS, WARMUP_STEPS = 200, 50
options = {
    "constant rate": {},
    "warm-up": {"warmup_steps": WARMUP_STEPS},
    "clipping": {"clip_norm": 1.0},
    "warm-up, then cosine to 0": {
        "warmup_steps": WARMUP_STEPS,
        "schedule": "cosine",
    },
}
print(
    f"| learning rate 0.01, {SCHEDULE_STEPS} steps "
    f"| held-out MSE: mean ± std of {len(SEEDS)} seeds | each seed |"
)
print("|---|---|---|")
each_seed, means, spreads = {}, {}, {}
for name, option in options.items():
    mse = held_out_mse_per_seed(
        SCHEDULE_STEPS, SEEDS, lr=1e-2, device=DEVICE, **option
    )
    each_seed[name], means[name], spreads[name] = (
        mse,
        statistics.mean(mse),
        statistics.stdev(mse),
    )
    print(
        f"| {name} | {means[name]:.4f} ± {spreads[name]:.4f} "
        f"| {', '.join(f'{v:.4f}' for v in mse)} |"
    )
# --8<-- [end:schedule]


# %%
# --8<-- [start:paper_schedule]
from tutorial_code.digit_model import learning_rate_factor


def paper_rate(step: int, d_model: int = 512, warmup: int = 4000) -> float:
    """The paper's rate at step 1, 2, ...:
    d_model^-0.5 min(step^-0.5, step warmup^-1.5)."""
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


peak = (512 * 4000) ** -0.5  # the rate at step 4000, where the warm-up ends
paper_steps = range(1, 100_001)
ours = [
    peak * learning_rate_factor(s - 1, len(paper_steps), 4000, "inverse_sqrt")
    for s in paper_steps
]
schedule_difference = max(
    abs(paper_rate(s) - rate) for s, rate in zip(paper_steps, ours, strict=True)
)
print(f"the paper's peak rate (d_model = 512, 4,000 warm-up steps): {peak:.2e}")
print(
    f"largest difference from peak x inverse_sqrt, steps 1-100,000: "
    f"{schedule_difference:.1e}"
)
# --8<-- [end:paper_schedule]


# %%
# --8<-- [start:dropout]
# DigitModel's default is 0.1: the "constant rate" row above
rates = (0.0, 0.1, 0.3, 0.5)
print(
    f"| dropout p, {SCHEDULE_STEPS} steps at 0.01 "
    "| held-out MSE: mean ± std | each seed |"
)
print("|---|---|---|")
dropout_mse = {}
for p in rates:
    mse = held_out_mse_per_seed(
        SCHEDULE_STEPS, SEEDS, lr=1e-2, dropout=p, device=DEVICE
    )
    dropout_mse[p] = mse
    each = ", ".join(f"{v:.4f}" for v in mse)
    print(
        f"| {p} | {statistics.mean(mse):.4f} ± {statistics.stdev(mse):.4f} "
        f"| {each} |"
    )
# --8<-- [end:dropout]


# %%
# --8<-- [start:results_file]
# written by `python benchmarks/bench.py` into tutorial_code/results-cpu.json
results = benchmark_results()
machine, settings = results["machine"], results["settings"]
print(
    f"Measured on {machine['cpu']} ({machine['cores']} cores, "
    f"{machine['torch_threads']} PyTorch threads), "
    f"torch {machine['torch']}, on {machine['date']}; "
    f"B = {settings['batch']}, d_model = {settings['d_model']}, "
    f"h = {settings['heads']}, float32. "
    "Matrix-multiply throughput of this machine: "
    f"{results['matmul_gflops']:.0f} GFLOP/s."
)
# --8<-- [end:results_file]


# %%
# --8<-- [start:attention_table]
names = {
    "naive": "hand-written, matmul + softmax",
    "sdpa": "hand-written on F.scaled_dot_product_attention",
    "sdpa_fused_qkv": "the same, one fused QKV projection",
    "torch_mha": "nn.MultiheadAttention",
    "compiled_sdpa": "torch.compile of the F.sdpa module",
}


def table(rows: list[dict]) -> None:
    """One Markdown table: a row per implementation, a column per length it was
    measured at."""
    lengths = sorted({r["seq_len"] for r in rows})
    print(
        "| implementation | " + " | ".join(f"T = {t}" for t in lengths) + " |"
    )
    print("|---|" + "---|" * len(lengths))
    for variant, label in names.items():
        found = {r["seq_len"]: r for r in rows if r["variant"] == variant}
        if set(found) != set(lengths):
            continue  # measured at other lengths only: no empty cells
        cells = []
        for t in lengths:
            row, ref = (
                found[t],
                next(
                    r
                    for r in rows
                    if r["variant"] == "torch_mha" and r["seq_len"] == t
                ),
            )
            cells.append(
                f"{row['ms']:.0f} ms ({row['ms'] / ref['ms']:.2f}x), "
                f"{row['peak_mb']:.0f} MB "
                f"({row['peak_mb'] / max(ref['peak_mb'], 1e-9):.2f}x)"
            )
        print(f"| {label} | " + " | ".join(cells) + " |")


for backward in (False, True):
    what = (
        "forward and backward, eval mode, autograd on"
        if backward
        else "forward only, eval mode, no gradients"
    )
    print(
        f"\n**{what.capitalize()}** (time in ms, peak memory in MB, "
        "ratio to nn.MultiheadAttention in brackets)\n"
    )
    table([r for r in results["attention"] if r["backward"] == backward])
compiled_lengths = sorted(
    r["seq_len"]
    for r in results["attention"]
    if r["variant"] == "compiled_sdpa"
)
print(
    "\n**torch.compile**, measured forward only, "
    f"at T = {' and '.join(map(str, compiled_lengths))}\n"
)
table(
    [
        r
        for r in results["attention"]
        if r["seq_len"] in compiled_lengths and not r["backward"]
    ]
)
# --8<-- [end:attention_table]


# %%
# --8<-- [start:bench_attention]
forward = [r for r in results["attention"] if not r["backward"]]
labels = {
    "naive": "hand-written naive",
    "sdpa": "hand-written on F.sdpa",
    "torch_mha": "nn.MultiheadAttention",
}
panels = []
for quantity, key in (
    ("forward time (ms)", "ms"),
    ("peak memory (MB)", "peak_mb"),
):
    points = {
        label: [(r["seq_len"], r[key]) for r in forward if r["variant"] == v]
        for v, label in labels.items()
    }
    panels.append((quantity, points))
fig = log_log_panels(
    panels,
    xlabel="sequence length T",
    colors={
        "hand-written naive": "#c62828",
        "hand-written on F.sdpa": "#3f51b5",
        "nn.MultiheadAttention": "#2e7d32",
    },
)
# --8<-- [end:bench_attention]


# %%
# --8<-- [start:targets]
at_1024 = {
    r["variant"]: r
    for r in results["attention"]
    if r["seq_len"] == 1024 and not r["backward"]
}
efficient, reference = at_1024["sdpa"], at_1024["torch_mha"]
achieved = (
    attention_flops(settings["batch"], 1024, settings["d_model"])
    / (efficient["ms"] / 1000)
    / 1e9
)
print(
    "At T = 1024, forward: the F.sdpa module takes "
    f"{efficient['ms'] / reference['ms']:.2f}x the time and "
    f"{efficient['peak_mb'] / reference['peak_mb']:.2f}x the peak memory of "
    "nn.MultiheadAttention, and runs at "
    f"{achieved:.0f} GFLOP/s, {achieved / results['matmul_gflops']:.0%} of "
    "the machine's matrix-multiply throughput. The naive version needs "
    f"{at_1024['naive']['peak_mb'] / efficient['peak_mb']:.1f}x "
    "the memory of the F.sdpa one."
)
# --8<-- [end:targets]


# %%
# --8<-- [start:heads_benchmark]
heads_run = results["heads"]
run_on = heads_run["machine"]  # a run of its own: its machine, not the file's
print(
    f"B = {heads_run['batch']}, d_model = {heads_run['d_model']}, "
    f"h = {heads_run['heads']}, forward; measured "
    f"on {run_on['cpu']} with {run_on['torch_threads']} PyTorch thread(s), "
    f"torch {run_on['torch']}, "
    f"on {run_on['date']}\n"
)
print("| T | heads in a loop | batched | loop / batched |")
print("|---|---|---|---|")
loop_ratios = []
for row in heads_run["rows"]:
    loop_ratios.append(row["loop_ms"] / row["batched_ms"])
    print(
        f"| {row['seq_len']} | {row['loop_ms']:.1f} ms "
        f"| {row['batched_ms']:.1f} ms | {loop_ratios[-1]:.2f}x |"
    )
# --8<-- [end:heads_benchmark]


# %%
# --8<-- [start:savings]
plain, checkpointed = results["checkpointing"]
print(
    f"Gradient checkpointing, {plain['layers']} encoder layers, "
    f"T = {plain['seq_len']}, forward and backward: "
    f"peak memory {plain['peak_mb']:.0f} MB -> "
    f"{checkpointed['peak_mb']:.0f} MB "
    f"({1 - checkpointed['peak_mb'] / plain['peak_mb']:.0%} saved), "
    f"time {plain['ms']:.0f} ms -> {checkpointed['ms']:.0f} ms "
    f"({checkpointed['ms'] / plain['ms'] - 1:+.0%})."
)
memory_ratios = []
for variant in ("naive", "sdpa"):
    fp32, bf16 = (r for r in results["autocast"] if r["variant"] == variant)
    memory_ratios.append(bf16["peak_mb"] / fp32["peak_mb"])
    print(
        f"bfloat16 autocast on the CPU, {names[variant]}, T = 1024 forward: "
        f"time {fp32['ms']:.0f} ms -> {bf16['ms']:.0f} ms, "
        f"peak memory {fp32['peak_mb']:.0f} MB -> {bf16['peak_mb']:.0f} MB."
    )
bucketing = results["bucketing"]
print(
    f"Length bucketing, {bucketing['sequences']:,} sentence-like lengths "
    f"in batches of {bucketing['batch_size']}: "
    f"padding falls from {bucketing['padding_random']:.0%} of all tokens "
    "(random batches) to "
    f"{bucketing['padding_bucketed']:.1%} (batches of similar lengths)."
)
# --8<-- [end:savings]


# %%
# --8<-- [start:float16_range]
import torch
from tutorial_code.mixed_precision import (
    flushed_to_zero,
    half_precision_dtype,
    train_mixed,
)
from tutorial_code.sum_task import make_batch

tiny = torch.tensor(1e-8)  # a small gradient entry
in_float16 = tiny.half().item()
print(f"1e-8 in float16: {in_float16}", end="; ")
print(f"in bfloat16: {tiny.bfloat16().item():.2e}")
scaled_back = ((tiny * 65536).half().float() / 65536).item()  # scale, unscale
print(f"1e-8 times 65536 in float16, divided back: {scaled_back:.2e}")
# chapter 7's trained model: its gradients on one batch, as float16 holds them
model = default_init.model.train()
numbers, targets = make_batch(generator=torch.Generator().manual_seed(SEED))
nn.functional.mse_loss(model(numbers)[0], targets).backward()
gradients = torch.cat([p.grad.flatten() for p in model.parameters()])
model.zero_grad(set_to_none=True)
model.eval()
flushed = {}
for scale in (1.0, 65536.0):
    flushed[scale] = flushed_to_zero(gradients, scale)
    print(
        f"scale {scale:>7.0f}: {flushed[scale]:.3%} of "
        f"{gradients.numel():,} gradient entries become 0 in float16"
    )
# --8<-- [end:float16_range]


# %%
# --8<-- [start:mixed_training]
MIXED_STEPS = 150
mixed_losses = {}  # the training loss at every step, per dtype
for dtype in (torch.float32, torch.bfloat16, torch.float16):
    torch.manual_seed(SEED)  # the same initial weights for each
    mixed_losses[str(dtype)] = train_mixed(
        DigitModel(), make_batch, MIXED_STEPS, 1e-3, SEED, dtype, DEVICE
    )
    shown = ", ".join(
        f"{mixed_losses[str(dtype)][s]:.2f}" for s in (0, 4, 49, 99, 149)
    )
    print(f"{str(dtype):>14}: loss at steps 1, 5, 50, 100, 150: {shown}")
device_type = torch.device(DEVICE).type
print(f"on {device_type}, half_precision_dtype gives", end=" ")
print(half_precision_dtype(device_type))
# --8<-- [end:mixed_training]


# %%
# --8<-- [start:int8]
from tutorial_code.language_model import (
    CharVocabulary,
    bits_per_character,
    python_reference_text,
    split,
    trained_language_model,
)
from tutorial_code.quantization import Int8Linear, with_int8_linears

# chapter 11's, 1000 steps
model = trained_language_model(steps=1000, seed=SEED).model
text = python_reference_text()
_, held_out_ids = split(CharVocabulary.of(text).encode(text))
int8_model = with_int8_linears(model)


def weight_bytes(model: nn.Module) -> int:  # of its linear layers' weights
    return sum(
        m.weight.nbytes
        if isinstance(m, nn.Linear)
        else m.integers.nbytes + m.scales.nbytes
        for m in model.modules()
        if isinstance(m, nn.Linear | Int8Linear)
    )


float_bytes, int8_bytes = weight_bytes(model), weight_bytes(int8_model)
int8_share = int8_bytes / float_bytes
print(f"linear weights: {float_bytes:,} bytes in float32,", end=" ")
print(f"{int8_bytes:,} in int8 with their scales ({int8_share:.1%})")
float_bpc = bits_per_character(model, held_out_ids)
int8_bpc = bits_per_character(int8_model, held_out_ids)
print(f"held-out bits per character: {float_bpc:.4f} in float32,", end=" ")
print(f"{int8_bpc:.4f} in int8")
# --8<-- [end:int8]
