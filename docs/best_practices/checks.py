"""What the page of the chapter `best_practices` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`).

The schedule and dropout tables are recorded runs, and the speed and memory tables a recorded benchmark
(`tutorial_code/results-cpu.json`): neither is this build's, so the page's sentences about them describe that one
run, and their checks (`checks.recorded`) read that record alone.
"""

import statistics

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "paper_schedule",
    "best_practices: the paper's formula is this site's inverse_sqrt schedule times that peak rate, at every step "
    "to float rounding",
)
def paper_formula_is_inverse_sqrt_times_peak(schedule_difference, peak):
    return schedule_difference < 1e-12 * 1e3 * peak and peak > 0


@checks.after(
    "int8",
    "best_practices: The linear layers' weights take about a quarter of their float32 bytes",
)
def int8_weights_take_a_quarter(int8_share):
    return 0.25 <= int8_share < 0.3


@checks.after(
    "int8",
    "best_practices: the held-out bits per character change only in the fourth decimal",
)
def int8_changes_the_fourth_decimal(float_bpc, int8_bpc):
    return abs(int8_bpc - float_bpc) < 0.001


@checks.after(
    "float16_range",
    "best_practices: In float16, a small share of chapter 7's gradient entries would become 0, and scaled by "
    "65536 almost none: less than a tenth as many",
)
def the_scale_keeps_small_gradients(flushed):
    unscaled, scaled = flushed["1.0"], flushed["65536.0"]
    return 0 < unscaled < 0.05 and scaled < unscaled / 10


@checks.after(
    "float16_range", "best_practices: a number below about 6e-8 becomes 0"
)
def float16_flushes_1e_8(in_float16, scaled_back):
    return in_float16 == 0 and abs(scaled_back - 1e-8) < 1e-10


@checks.after(
    "mixed_training",
    "best_practices: All three losses fall by more than a factor of 30 in 150 steps",
)
def all_three_train(mixed_losses):
    return all(losses[0] > 30 * losses[-1] for losses in mixed_losses.values())


@checks.after(
    "mixed_training",
    "best_practices: from step 50 on, the 16-bit losses averaged over any ten consecutive steps stay within a "
    "quarter of float32's",
)
def sixteen_bits_follow_float32(mixed_losses):
    reference = mixed_losses["torch.float32"]

    def window(
        losses, end
    ):  # the mean of the ten losses that end at step `end` (from 0)
        return statistics.mean(losses[end - 9 : end + 1])

    return len(reference) >= 60 and all(
        abs(window(mixed_losses[name], s) / window(reference, s) - 1) < 0.25
        for name in ("torch.bfloat16", "torch.float16")
        for s in range(49, len(reference))
    )


@checks.after(
    "mixed_training",
    "best_practices: In float16 the loss stays near its start for the first steps, while float32's falls",
)
def float16_first_finds_its_scale(mixed_losses):
    fp32, fp16 = mixed_losses["torch.float32"], mixed_losses["torch.float16"]
    # by step 5 float32's loss has fallen by 39 to 65 % (seeds 0-202), while float16's is within a tenth of its start
    return fp16[4] > 0.9 * fp16[0] and fp32[4] < 0.7 * fp32[0]


@checks.recorded(
    "schedule",
    "best_practices: In this recorded run no row ended lowest on every seed, and the seeds of one row spread wider "
    "than the largest gap between the rows' means",
)
def schedules_not_ranked(each_seed):
    rows = list(each_seed.values())
    if len(rows) != 4 or {len(row) for row in rows} != {
        3
    }:  # four schedules, three seeds each
        return False
    lowest = {
        min(range(len(rows)), key=lambda r: rows[r][seed]) for seed in range(3)
    }
    means = [statistics.mean(row) for row in rows]
    widest = max(max(row) - min(row) for row in rows)
    return len(lowest) > 1 and widest > max(means) - min(means)


@checks.recorded(
    "dropout",
    "best_practices: In this recorded run the mean error is lowest without dropout and highest at p = 0.5",
)
def dropout_mean_lowest_without(dropout_mse):
    means = {
        float(p): statistics.mean(errors) for p, errors in dropout_mse.items()
    }
    return (
        len(means) == 4
        and min(means, key=means.get) == 0.0
        and max(means, key=means.get) == 0.5
    )


@checks.recorded(
    "bench_attention",
    "best_practices: Even there, in this recorded benchmark its memory grew faster than the fused module's",
)
def torch_mha_memory_grows_faster(forward):
    def growth(
        variant,
    ):  # from the shortest length measured to the longest; 0 for fewer than two
        rows = sorted(
            (r["seq_len"], r["peak_mb"])
            for r in forward
            if r["variant"] == variant
        )
        return rows[-1][1] / rows[0][1] if len(rows) >= 2 else 0

    return growth("torch_mha") > growth("sdpa") > 1


@checks.recorded(
    "heads_benchmark",
    "best_practices: batching the heads did not make attention faster: the loop took about the time of the batched "
    "call or less",
)
def loop_of_heads_no_slower(loop_ratios):
    return len(loop_ratios) >= 2 and max(loop_ratios) < 1.1


checks.not_a_result(
    "Read each seed before the means, and read them as one recorded run",
    "advice on reading the table: it says what can happen on another processor, not what was measured",
)
checks.not_a_result(
    "there, with warm-up, post-norm still ended above pre-norm on every seed",
    "restates the sentence of the training page, whose recorded check reads that run (training: With warm-up, ...)",
)
checks.not_a_result(
    "On a GPU with bf16 tensor cores it is usually faster too",
    "general hardware advice that ends on 'measure it'; this page measures no GPU",
)
