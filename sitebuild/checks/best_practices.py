"""What the page of the chapter `best_practices` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after(
    "schedule", "best_practices: the spread between seeds is as large as the differences between the first four rows"
)
def spread_between_seeds_large_differences_between(constant_spreads, constant_means):
    return max(constant_spreads) >= max(constant_means) - min(constant_means)


@checks.after("schedule", "best_practices: a rate that decays after the warm-up gives the lowest mean error")
def rate_decays_after_warm_up_gives(decaying_means, constant_means):
    return max(decaying_means) < min(constant_means)


@checks.after("bench_attention", "best_practices: from T = 512 on, the naive implementation is the slowest")
def from_t_512_naive_implementation_slowest(slowest_from_512):
    return all(slowest_from_512)


@checks.after("bench_attention", "best_practices: on this CPU its memory still grows with $T^2$")
def cpu_memory_still_grows_with_t(mha_memory):
    return mha_memory[-1] / mha_memory[-2] > 2.5


@checks.after("savings", "best_practices: in the measurement above the peak memory falls by 40 % or more")
def in_measurement_above_peak_memory_falls(memory_ratios):
    return max(memory_ratios) <= 0.6
