"""What the page of the chapter `best_practices` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

import math

from sitebuild.claims import Checks

checks = Checks()


@checks.after("schedule", "best_practices: Which of the first three rows ends lowest changes with the seed")
def lowest_of_first_three_rows_changes_with_seed(each_seed):
    # the first three rows keep a constant rate after any warm-up; their winner, seed by seed
    constant = list(each_seed)[:3]
    seeds = range(len(each_seed[constant[0]]))
    return len({min(constant, key=lambda name: each_seed[name][seed]) for seed in seeds}) > 1


@checks.after("schedule", "best_practices: a rate that decays after the warm-up gives the lowest mean error")
def rate_decays_after_warm_up_gives(means):
    names = list(means)  # the last row decays after the warm-up
    return means[names[-1]] < min(means[name] for name in names[:-1])


@checks.after("bench_attention", "best_practices: from T = 512 on, the naive implementation is the slowest")
def naive_slowest_from_512(forward):
    lengths = sorted({row["seq_len"] for row in forward if row["seq_len"] >= 512})
    slowest = [max((row for row in forward if row["seq_len"] == t), key=lambda row: row["ms"]) for t in lengths]
    return len(lengths) >= 2 and all(row["variant"] == "naive" for row in slowest)


def memory_exponent(rows: list[dict], variant: str) -> float:
    """p in memory ~ T^p, from the shortest to the longest sequence measured: 2 for T^2, 1 for T."""
    points = sorted((row["seq_len"], row["peak_mb"]) for row in rows if row["variant"] == variant)
    if len(points) < 2:
        return math.nan  # no growth to measure: every comparison with NaN is false
    (first_len, first_mb), (last_len, last_mb) = points[0], points[-1]
    return math.log(last_mb / first_mb) / math.log(last_len / first_len)


@checks.after("bench_attention", "best_practices: on this CPU its memory still grows with $T^2$")
def torch_memory_grows_with_t_squared(forward):
    return memory_exponent(forward, "torch_mha") > 1.6  # measured over a 16-fold range of T: nearer 2 than 1


@checks.after(
    "bench_attention", "best_practices: and more for the softmax's input and output: its memory grows with $T^2$"
)
def naive_memory_grows_with_t_squared(forward):
    return memory_exponent(forward, "naive") > 1.6


@checks.after("bench_attention", "best_practices: keeps only running sums, so its memory grows with $T$")
def fused_memory_grows_with_t(forward):
    return 0.8 < memory_exponent(forward, "sdpa") < 1.2


@checks.after("savings", "best_practices: in the measurement above the peak memory falls by 40 % or more")
def in_measurement_above_peak_memory_falls(memory_ratios):
    return max(memory_ratios) <= 0.6


@checks.after(
    "paper_schedule",
    "best_practices: the paper's formula is this site's inverse_sqrt schedule times that peak rate, at every step "
    "to float rounding",
)
def paper_formula_is_inverse_sqrt_times_peak(schedule_difference, peak):
    return schedule_difference < 1e-12 * 1e3 * peak and peak > 0


@checks.after(
    "dropout",
    "best_practices: the mean error grows with p, every seed ends lowest without dropout, and p = 0.3 and 0.5 end "
    "worse than 0 and 0.1 on every seed",
)
def dropout_hurts_on_fresh_data(dropout_mse):
    none, low, high, higher = dropout_mse.values()  # p = 0, 0.1, 0.3, 0.5
    means = [sum(runs) / len(runs) for runs in (none, low, high, higher)]
    rising = all(a < b for a, b in zip(means, means[1:], strict=False))
    seeds = range(len(none))
    separated = all(max(none[s], low[s]) < min(high[s], higher[s]) for s in seeds)
    zero_lowest = all(none[s] < min(low[s], high[s], higher[s]) for s in seeds)
    return len(seeds) >= 3 and rising and separated and zero_lowest


@checks.after(
    "heads_benchmark",
    "best_practices: On this CPU, at these sizes, batching the heads does not make attention faster: the loop takes "
    "at most about the time of the batched call",
)
def loop_no_slower_than_batched(loop_ratios):
    return len(loop_ratios) >= 3 and max(loop_ratios) <= 1.1
