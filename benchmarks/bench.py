"""Speed and memory of attention implementations, measured: `python benchmarks/bench.py`.

Compares, at B = 8, d_model = 512, h = 8 (by default) and sequence lengths 128 to 2048:
the hand-written naive attention ([`MultiHeadAttention`][tutorial_code.multi_head.MultiHeadAttention]),
the hand-written module on PyTorch's fused kernel
([`EfficientMultiHeadAttention`][tutorial_code.multi_head.EfficientMultiHeadAttention]) with three
projections and with one fused QKV projection, `nn.MultiheadAttention`, and `torch.compile` of the
fused-kernel module; forward, and forward with backward; time and peak memory. Also gradient
checkpointing, bfloat16 autocast, and length bucketing.

Every measurement runs in a fresh process, so that its peak memory (the growth of the
process's resident set) belongs to it alone. Results go to a JSON file with the machine,
the torch version and the date; the site's best-practices page reads that file and never
reruns the benchmark.

Shape letters: B = batch size, T = sequence length, d_model, h = heads.
"""

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch
from torch import nn

from tutorial_code.efficiency import (
    FusedQKVAttention,
    matmul_gflops,
    padding_fraction,
    realistic_lengths,
)
from tutorial_code.encoder import EncoderLayer
from tutorial_code.language_model import CharTransformer, generate
from tutorial_code.multi_head import EfficientMultiHeadAttention, MultiHeadAttention

# package data: the chapters read it installed or cloned (tutorial_code.benchmark_results)
DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "tutorial_code" / "results-cpu.json"
VARIANTS = ("naive", "sdpa", "sdpa_fused_qkv", "torch_mha", "compiled_sdpa")


def build(variant: str, d_model: int, num_heads: int) -> nn.Module:
    """The attention module of one variant, as a callable `module(x)`."""
    if variant == "naive":
        return MultiHeadAttention(d_model, num_heads)
    if variant == "sdpa":
        return EfficientMultiHeadAttention(d_model, num_heads)
    if variant == "sdpa_fused_qkv":
        return FusedQKVAttention(d_model, num_heads)
    if variant == "torch_mha":
        attention = nn.MultiheadAttention(d_model, num_heads, batch_first=True)
        return _SelfAttentionAdapter(attention)
    if variant == "compiled_sdpa":
        return torch.compile(EfficientMultiHeadAttention(d_model, num_heads))
    raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")


class _SelfAttentionAdapter(nn.Module):
    def __init__(self, attention: nn.MultiheadAttention) -> None:
        super().__init__()
        self.attention = attention

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, None]:
        return self.attention(x, x, x, need_weights=False)[0], None


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def measure_one(spec: dict) -> dict:
    """Run one measurement in this process: median time and peak memory growth.

    Args:
        spec: `kind` ("attention", "checkpointing" or "autocast") and its settings.

    Returns:
        `spec` with `ms` (median over the repeats) and `peak_mb` added.
    """
    torch.manual_seed(0)
    kind, B, T, d_model, h = spec["kind"], spec["batch"], spec["seq_len"], spec["d_model"], spec["heads"]
    x = torch.randn(B, T, d_model, requires_grad=spec.get("backward", False))
    if kind == "attention":
        module = build(spec["variant"], d_model, h).eval()

        def step():
            output = module(x)[0]
            if spec["backward"]:
                output.sum().backward()

    elif kind == "checkpointing":
        layers = nn.ModuleList(EncoderLayer(d_model, h, 4 * d_model, dropout=0.0) for _ in range(spec["layers"]))

        def step():
            y = x
            for layer in layers:
                if spec["checkpoint"]:
                    y = torch.utils.checkpoint.checkpoint(lambda t, layer=layer: layer(t)[0], y, use_reentrant=False)
                else:
                    y = layer(y)[0]
            y.sum().backward()

    elif kind == "autocast":
        module = build(spec["variant"], d_model, h).eval()

        def step():
            with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=spec["bf16"]):
                module(x)

    else:
        raise ValueError(f"unknown kind {kind!r}")
    context = torch.no_grad() if kind == "attention" and not spec.get("backward") else torch.enable_grad()
    with context:
        step()  # warm-up (and, for torch.compile, the compilation)
        baseline = _rss_mb()
        times = []
        for _ in range(spec.get("repeats", 3)):
            start = time.perf_counter()
            step()
            times.append((time.perf_counter() - start) * 1000)
    return spec | {"ms": statistics.median(times), "peak_mb": max(0.0, _peak_rss_mb() - baseline)}


GENERATION_LENGTHS = (128, 512, 1024)
PROMPT_TOKENS = 16


def measure_generation(new_tokens: int, use_cache: bool, repeats: int = 3) -> dict:
    """Tokens per second of greedy generation with the chapter 11 model's shape (untrained: speed only).

    The model's context holds the prompt and every new token, so the cache never has to start again.
    """
    torch.manual_seed(0)
    model = CharTransformer(vocab_size=101, context=PROMPT_TOKENS + max(GENERATION_LENGTHS)).eval()
    prompt = torch.randint(0, 101, (PROMPT_TOKENS,))
    generate(model, prompt, 16, top_k=1, use_cache=use_cache)  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        generate(model, prompt, new_tokens, top_k=1, use_cache=use_cache)
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    return {"new_tokens": new_tokens, "use_cache": use_cache, "seconds": seconds, "tokens_per_s": new_tokens / seconds}


def run_generation() -> dict:
    """KV cache against none, at every generation length: the rows of the results file's `generation`."""
    rows = []
    for new_tokens in GENERATION_LENGTHS:
        for use_cache in (False, True):
            rows.append(measure_generation(new_tokens, use_cache))
            print(f"generate {new_tokens:>5} tokens, cache {use_cache!s:>5}: {rows[-1]['tokens_per_s']:8.0f} tokens/s")
    return {"machine": machine(), "prompt_tokens": PROMPT_TOKENS, "rows": rows}


HEADS_LENGTHS = (128, 512, 1024)
YARDSTICK = Path(__file__).resolve().parent / "yardstick.py"


def run_heads(batch: int = 8, d_model: int = 512, heads: int = 8) -> dict:
    """Attention one head at a time in a Python loop against all heads in one batched call, forward only.

    Timed with torch.utils.benchmark (median of blocked runs). Where `benchmarks/yardstick.py` exists, its
    seconds are measured in the same session, so the times can be read as ratios to this machine's speed.
    """
    from torch.utils import benchmark

    rows = []
    for seq_len in HEADS_LENGTHS:
        torch.manual_seed(0)
        Q, K, V = torch.randn(3, batch, seq_len, d_model)
        batched = "combine_heads(scaled_dot_product_attention(*(split_heads(t, h) for t in (Q, K, V)))[0])"
        statements = {"loop": "attend_head_by_head(Q, K, V, h)", "batched": batched}
        row = {"seq_len": seq_len}
        for name, statement in statements.items():
            timer = benchmark.Timer(
                statement,
                setup="from tutorial_code.multi_head import attend_head_by_head, combine_heads, split_heads\n"
                "from tutorial_code.attention import scaled_dot_product_attention",
                globals={"Q": Q, "K": K, "V": V, "h": heads},
            )
            row[f"{name}_ms"] = timer.blocked_autorange(min_run_time=1.0).median * 1e3
        rows.append(row)
        print(f"heads T={seq_len:<5} loop {row['loop_ms']:8.1f} ms, batched {row['batched_ms']:8.1f} ms", flush=True)
    yardstick = None
    if YARDSTICK.exists():
        import runpy

        yardstick = runpy.run_path(str(YARDSTICK))["yardstick"]()
    return {
        "machine": machine(),
        "batch": batch,
        "d_model": d_model,
        "heads": heads,
        "rows": rows,
        "yardstick_seconds": yardstick,
    }


def run_isolated(spec: dict, timeout: float = 600) -> dict:
    """Run `measure_one` in a fresh Python process."""
    result = subprocess.run(
        [sys.executable, __file__, "--one", json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise RuntimeError(f"benchmark {spec} failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def machine() -> dict:
    """What the results were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
    }


def run_all(lengths: list[int], batch: int, d_model: int, heads: int, compile_lengths: list[int]) -> dict:
    """Every measurement of the benchmark; about 5 minutes on a 2-core CPU with the defaults."""
    base = {"batch": batch, "d_model": d_model, "heads": heads}
    rows = []
    for backward in (False, True):
        for seq_len in lengths:
            for variant in VARIANTS:
                if variant == "compiled_sdpa" and (backward or seq_len not in compile_lengths):
                    continue
                spec = base | {"kind": "attention", "variant": variant, "seq_len": seq_len, "backward": backward}
                rows.append(run_isolated(spec))
                print(
                    f"{'fwd+bwd' if backward else 'forward':>7} T={seq_len:<5} {variant:<15} "
                    f"{rows[-1]['ms']:9.1f} ms {rows[-1]['peak_mb']:9.1f} MB",
                    flush=True,
                )
    checkpointing = [
        run_isolated(base | {"kind": "checkpointing", "layers": 6, "seq_len": 512, "checkpoint": flag, "repeats": 2})
        for flag in (False, True)
    ]
    autocast = [
        run_isolated(base | {"kind": "autocast", "variant": variant, "seq_len": 1024, "bf16": flag})
        for variant in ("naive", "sdpa")
        for flag in (False, True)
    ]
    lengths_data = realistic_lengths()
    generation = run_generation()
    return {
        "machine": machine(),
        "settings": base,
        "matmul_gflops": matmul_gflops(),
        "attention": rows,
        "checkpointing": checkpointing,
        "autocast": autocast,
        "bucketing": {
            "sequences": len(lengths_data),
            "batch_size": 32,
            "padding_random": padding_fraction(lengths_data, 32, bucketed=False),
            "padding_bucketed": padding_fraction(lengths_data, 32, bucketed=True),
        },
        "generation": generation,
        "heads": run_heads(batch, d_model, heads),
    }


def main(argv: list[str] | None = None) -> None:
    """Command line: run the benchmark and write the results file."""
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench.py",
        description="Measure time and peak memory of attention implementations and write a JSON results file.",
    )
    parser.add_argument("--lengths", type=int, nargs="+", default=[128, 256, 512, 1024, 2048], help="sequence lengths")
    parser.add_argument("--batch", type=int, default=8, help="batch size B (default 8)")
    parser.add_argument("--d-model", type=int, default=512, help="d_model (default 512)")
    parser.add_argument("--heads", type=int, default=8, help="number of heads (default 8)")
    parser.add_argument("--compile-lengths", type=int, nargs="*", default=[512, 1024], help="lengths for torch.compile")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help=f"results file (default {DEFAULT_OUTPUT})")
    parser.add_argument(
        "--only-generation",
        action="store_true",
        help="measure only generation with and without a KV cache, and update that part of the results file",
    )
    parser.add_argument(
        "--only-heads",
        action="store_true",
        help="measure only attention with the heads in a loop against batched, and update that part of the file",
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one isolated measurement
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(json.loads(args.one))))
        return
    if args.d_model % args.heads:
        parser.error(f"--d-model {args.d_model} must be divisible by --heads {args.heads}")
    if min(args.lengths) < 1 or args.batch < 1:
        parser.error("--lengths and --batch must be positive")
    if args.only_generation:
        results = json.loads(args.output.read_text(encoding="utf-8")) | {"generation": run_generation()}
    elif args.only_heads:
        results = json.loads(args.output.read_text(encoding="utf-8")) | {"heads": run_heads()}
    else:
        results = run_all(args.lengths, args.batch, args.d_model, args.heads, args.compile_lengths)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
