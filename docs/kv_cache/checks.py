"""What the page of the chapter `kv_cache` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`). Its timings come from a recorded benchmark (`tutorial_code/results-cpu.json`): its
sentences about them are checked on that record alone (`checks.recorded`), and no check reads a live clock."""

import math
from itertools import pairwise

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "cache_by_hand",
    "kv_cache: the same output as the last row of full attention, to float32 rounding",
)
def cached_attention_equals_full_attention(cache_difference):
    return cache_difference < 5e-6


@checks.after(
    "cache_growth",
    "kv_cache: grows by exactly one position per generated token",
)
def cache_grows_one_position_per_token(shapes):
    lengths = [
        shape[2] for shape in shapes
    ]  # one layer's keys, (B, h, t, d_k): t at each step
    return len(lengths) > 1 and all(b - a == 1 for a, b in pairwise(lengths))


@checks.after("same_tokens", "kv_cache: token for token, greedy and sampled")
def token_for_token_greedy_sampled(same):
    return set(same) == {"greedy", "sampled"} and all(
        value is True for value in same.values()
    )


def slopes(points):
    """The slopes of a line on log-log axes, segment by segment."""
    return [
        math.log(t2 / t1) / math.log(n2 / n1)
        for (n1, t1), (n2, t2) in pairwise(points)
    ]


@checks.recorded(
    "generation_time",
    "kv_cache: In that recorded run, the line without a cache is the steeper one and bends upward",
)
def uncached_line_steeper_and_bending(seconds):
    plain, cached = (
        slopes(seconds["without a cache"]),
        slopes(seconds["with a KV cache"]),
    )
    return len(plain) >= 2 and min(plain) > max(cached) and plain[-1] > plain[0]


@checks.recorded(
    "generation_time",
    "kv_cache: the line with a cache stays close to a slope of 1",
)
def cached_line_close_to_slope_one(seconds):
    return all(
        0.7 < slope < 1.3 for slope in slopes(seconds["with a KV cache"])
    )
