"""What the page of the chapter `kv_cache` says it measured, checked after the section that measures it
(`sitebuild.claims`). The timings it checks come from the committed benchmark results, never from a live clock."""

from itertools import pairwise

from sitebuild.claims import Checks

checks = Checks()


@checks.after("cache_by_hand", "kv_cache: the same output as the last row of full attention, to float32 rounding")
def cached_attention_equals_full_attention(cache_difference):
    return cache_difference < 5e-6


@checks.after("cache_growth", "kv_cache: grows by exactly one position per generated token")
def cache_grows_one_position_per_token(cache_lengths):
    return len(cache_lengths) > 1 and all(b - a == 1 for a, b in pairwise(cache_lengths))


@checks.after("same_tokens", "kv_cache: token for token, greedy and sampled")
def token_for_token_greedy_sampled(identical):
    return len(identical) == 2 and all(identical)


@checks.after("results", "kv_cache: 4.6 times as fast at 512 new tokens")
def four_point_six_times_as_fast_at_512(speedup_at_512):
    return round(speedup_at_512, 1) == 4.6


@checks.after("results", "kv_cache: the gap widens as more tokens are written")
def gap_widens_with_more_tokens(speedups):
    return all(b > a for a, b in pairwise(speedups))


@checks.after(
    "generation_time",
    "kv_cache: doubling the tokens about quadruples the time without a cache, and about doubles it with one",
)
def doubling_tokens_quadruples_without_doubles_with(growth_without, growth_with):
    return 3.5 <= growth_without <= 4.5 and 1.7 <= growth_with <= 2.5
