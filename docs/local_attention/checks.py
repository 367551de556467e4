"""What the page of the chapter `local_attention` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`). The cost sentences read counted scores, never the timings the chapter prints."""

from itertools import pairwise

from sitebuild.in_chapter.claims import Checks

checks = Checks()

ROUNDING = 1e-6  # float32 rounding of a sum of a few dozen terms


@checks.after(
    "band_by_hand",
    "local_attention: the first W - 1 queries have fewer keys before them",
)
def first_queries_have_fewer_keys(band, W):
    keys = [sum(row) for row in band]
    return keys == [min(t + 1, W) for t in range(len(band))] and W > 1


@checks.after(
    "covers_everything",
    "local_attention: the band changes nothing: the largest difference is exactly 0, for the causal band and for "
    "the centred one",
)
def covering_band_changes_nothing(covered):
    return covered["16"] == [0.0, 0.0] and covered["21"] == [
        0.0,
        0.0,
    ]  # w = T and w = T + 5


@checks.after(
    "covers_everything",
    "local_attention: A window of 4 changes the output of both",
)
def narrow_window_changes_both(covered):
    return all(difference > 0.1 for difference in covered["4"])


@checks.after("receptive_field", "local_attention: each layer adds w - 1 keys")
def each_layer_adds_window_minus_one(reach_keys, W):
    keys = [reach_keys[layers] for layers in sorted(reach_keys, key=int)]
    return (
        len(keys) >= 3
        and keys[0] == W
        and all(b - a == W - 1 for a, b in pairwise(keys))
    )


@checks.after(
    "mixed_reach",
    "local_attention: two dilated layers reach only every fourth key",
)
def dilated_layers_reach_a_grid(two_dilated, T, W):
    last = T - 1
    return (
        W == 4
        and len(two_dilated) == 2 * (W - 1) + 1
        and all((last - s) % 4 == 0 for s in two_dilated)
    )


@checks.after(
    "mixed_reach",
    "local_attention: reaches 16 keys in a row, where two band layers reach 7",
)
def band_then_dilated_reaches_a_run(mixed_keys, reach_keys, T):
    return mixed_keys == list(range(T - 16, T)) and reach_keys["2"] == 7


@checks.after(
    "blocked_by_hand",
    "local_attention: 72 scores instead of 144, 2w for each query",
)
def blocks_hold_two_windows_per_query(entries, T, W):
    return entries == 72 and T * T == 144 and entries == 2 * W * T


@checks.after(
    "blocked_equals_masked",
    "local_attention: the blocked version gives the masked version's output",
)
def blocked_equals_masked(blocked_difference):
    return 0 <= blocked_difference < ROUNDING


@checks.after(
    "cost_counts",
    "local_attention: The masked version computes all $T^2$ scores at every length",
)
def masked_computes_every_score(masked_scores):
    return len(masked_scores) >= 3 and all(
        count == int(T) ** 2 for T, count in masked_scores.items()
    )


@checks.after(
    "cost_counts", "local_attention: the blocked version computes $2wT$"
)
def blocked_computes_two_windows_per_query(block_scores, W):
    return len(block_scores) >= 3 and all(
        count == 2 * W * int(T) for T, count in block_scores.items()
    )


@checks.after(
    "cost_counts",
    "local_attention: the masked count grows four times when $T$ doubles, the blocked count two times",
)
def masked_quadruples_blocked_doubles(masked_scores, block_scores):
    lengths = sorted(masked_scores, key=int)
    doubled = all(int(b) == 2 * int(a) for a, b in pairwise(lengths))
    masked = all(
        masked_scores[b] == 4 * masked_scores[a] for a, b in pairwise(lengths)
    )
    blocked = all(
        block_scores[b] == 2 * block_scores[a] for a, b in pairwise(lengths)
    )
    return len(lengths) >= 3 and doubled and masked and blocked


@checks.after(
    "cost_counts",
    "local_attention: at $T$ = 2,048, 32 times fewer scores: 16 MiB against 0.5 MiB",
)
def thirty_two_times_fewer_at_2048(masked_scores, block_scores):
    masked, blocked = masked_scores["2048"], block_scores["2048"]
    return (
        masked == 32 * blocked
        and 4 * masked == 16 * 2**20
        and 4 * blocked == 2**19
    )


@checks.after(
    "sliding_cache",
    "local_attention: The cache never holds more than w = 4 positions",
)
def cache_never_holds_more_than_window(kept, W, T):
    return W == 4 and kept == [min(t + 1, W) for t in range(T)]


@checks.after(
    "sliding_cache",
    "local_attention: the same outputs as full attention under the band mask",
)
def cache_equals_full_attention_under_band(step_difference):
    return 0 <= step_difference < ROUNDING


@checks.after(
    "same_tokens",
    "local_attention: The same 61 characters with and without the cache",
)
def same_text_with_and_without_cache(same_tokens, written):
    return (
        same_tokens is True
        and written["True"] == written["False"]
        and len(written["True"]) == 61
    )


@checks.after(
    "same_tokens", "local_attention: the cache holds the last 6 of 60 positions"
)
def cache_holds_last_window(cached_shape, fed, W):
    return W == 6 and cached_shape[2] == W and fed == 60


@checks.after(
    "patterns_as_written",
    "local_attention: With their own weights, the three outputs differ",
)
def own_weights_differ(own_weights):
    return (
        own_weights["full"] == 0.0
        and own_weights["local"] > 0.1
        and own_weights["dilated"] > 0.1
    )


@checks.after(
    "patterns_as_written",
    "local_attention: the local and dilated branches give exactly the output of the full branch",
)
def as_written_branches_are_full_attention(as_written):
    return as_written == {"full": 0.0, "local": 0.0, "dilated": 0.0}


@checks.after(
    "patterns_fixed",
    "local_attention: As written, changing token 0 changes the last token's output in every branch",
)
def as_written_every_branch_reads_token_0(reads_token_0):
    return all(change > 1e-3 for change in reads_token_0["as written"].values())


@checks.after(
    "patterns_fixed",
    "local_attention: Fixed, the local and dilated branches do not move, and the full one still does",
)
def fixed_branches_do_not_read_token_0(reads_token_0):
    fixed = reads_token_0["fixed"]
    return (
        fixed["local"] == 0.0
        and fixed["dilated"] == 0.0
        and fixed["full"] > 1e-3
    )


checks.not_a_result(
    "no key of the window is more than $w - 1$ positions back",
    "the definition of the window, from which the block layout follows",
)
checks.not_a_result(
    "a key of block $i - 1$ more than $w - 1$ positions back is computed but not allowed",
    "the definition of the window, applied to the blocks",
)
