"""What the page of the chapter `kv_cache` says it measured, checked after the section that measures it
(`sitebuild.claims`). The timings it checks come from the committed benchmark results, never from a live clock."""

import math
from itertools import pairwise

from sitebuild.claims import Checks

checks = Checks()


@checks.after("cache_by_hand", "kv_cache: the same output as the last row of full attention, to float32 rounding")
def cached_attention_equals_full_attention(cache_difference):
    return cache_difference < 5e-6


@checks.after("cache_growth", "kv_cache: grows by exactly one position per generated token")
def cache_grows_one_position_per_token(shapes):
    lengths = [shape[2] for shape in shapes]  # one layer's keys, (B, h, t, d_k): t at each step
    return len(lengths) > 1 and all(b - a == 1 for a, b in pairwise(lengths))


@checks.after("same_tokens", "kv_cache: token for token, greedy and sampled")
def token_for_token_greedy_sampled(same):
    return set(same) == {"greedy", "sampled"} and all(value is True for value in same.values())


@checks.after("results", "kv_cache: 4.6 times as fast at 512 new tokens")
def four_point_six_times_as_fast_at_512(speedup):
    return round(speedup["512"], 1) == 4.6


@checks.after("results", "kv_cache: the gap widens as more tokens are written")
def gap_widens_with_more_tokens(speedup):
    by_length = [speedup[n] for n in sorted(speedup, key=int)]
    return len(by_length) > 1 and all(b > a for a, b in pairwise(by_length))


def per_doubling(points):
    """The time's growth factor per doubling of the tokens, between each two measured lengths."""
    return [(s2 / s1) ** (1 / math.log2(n2 / n1)) for (n1, s1), (n2, s2) in pairwise(points)]


@checks.after(
    "generation_time",
    "kv_cache: the time without a cache grows faster than the number of tokens, approaching four times per "
    "doubling at the longest lengths",
)
def without_a_cache_approaches_four_times_per_doubling(seconds):
    growth = per_doubling(seconds["without a cache"])
    return all(g > 2.2 for g in growth) and all(b > a for a, b in pairwise(growth)) and 3.5 <= growth[-1] <= 4.5


@checks.after("generation_time", "kv_cache: with a cache, the time about doubles when the tokens double")
def with_a_cache_about_doubles(seconds):
    return all(1.7 <= g <= 2.5 for g in per_doubling(seconds["with a KV cache"]))
