"""What the page of the chapter `kv_cache` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("same_tokens", "kv_cache: token for token, greedy and sampled")
def token_for_token_greedy_sampled(identical):
    return all(identical)


@checks.after("results", "kv_cache: at least three times as fast at 512 new tokens")
def least_three_times_fast_512_new(speedup_at_512):
    return speedup_at_512 >= 3


@checks.after("generation_time", "kv_cache: doubling the tokens about quadruples the time without a cache")
def doubling_tokens_about_quadruples_time_without(growth_without, growth_with):
    return growth_without > 3 and growth_with < 2.6
