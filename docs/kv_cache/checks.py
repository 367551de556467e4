"""What the page of the chapter `kv_cache` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`). Its timings come from a recorded benchmark (`tutorial_code/results-cpu.json`): no check reads them,
since they are not this build's values, and no check reads a live clock."""

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
