"""What the page of the chapter `todays_models` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`). The training times it compares are recorded ones (`benchmarks/recorded-runs.json`), never a
live clock."""

from sitebuild.in_chapter.claims import Checks

checks = Checks()
ROUNDING = 1e-5  # float32 rounding on numbers of order 1


@checks.after(
    "alibi",
    "todays_models: The steepest head puts most of query 5's weight on its last two keys",
)
def steepest_head_looks_at_the_last_two_keys(alibi_weights):
    return sum(alibi_weights[0][0][5][-2:]) > 0.5


@checks.after(
    "alibi", "todays_models: the gentlest spreads it almost evenly over all six"
)
def gentlest_head_spreads_evenly(alibi_weights):
    row = alibi_weights[0][7][5]
    return len(row) == 6 and max(row) - min(row) < 0.01


@checks.after(
    "alibi_check",
    "todays_models: The weights equal BLOOM's to float32 rounding",
)
def alibi_equals_bloom(alibi_difference):
    return 0 <= alibi_difference < ROUNDING


@checks.after(
    "rms_norm_numbers", "todays_models: Both outputs have root mean square 1"
)
def both_outputs_have_rms_one(rms):
    return set(rms) == {"LayerNorm", "RMSNorm"} and all(
        abs(value - 1) < 1e-3 for value in rms.values()
    )


@checks.after(
    "rms_norm_numbers",
    "todays_models: LayerNorm's output has mean 0; RMSNorm's keeps a positive mean",
)
def layer_norm_centres_rms_norm_does_not(means):
    return abs(means["LayerNorm"]) < 1e-6 and means["RMSNorm"] > 0.1


@checks.after(
    "rms_norm_numbers",
    "todays_models: Adding 5 to every feature therefore leaves LayerNorm's output as it was and moves RMSNorm's",
)
def a_shift_moves_rms_norm_only(shift_change):
    return (
        shift_change["LayerNorm"] < ROUNDING and shift_change["RMSNorm"] > 0.1
    )


@checks.after(
    "rms_norm_numbers",
    "todays_models: multiplying the vector by 10 changes neither output",
)
def scaling_changes_neither(scale_change):
    return set(scale_change) == {"LayerNorm", "RMSNorm"} and all(
        0 <= v < ROUNDING for v in scale_change.values()
    )


@checks.after(
    "rms_norm_numbers",
    "todays_models: The module computes the line above, to float rounding",
)
def rms_norm_module_is_the_line(line_difference):
    return 0 <= line_difference < ROUNDING


@checks.after(
    "rms_norm_numbers",
    "todays_models: The hand-written RMSNorm gives nn.RMSNorm's output exactly",
)
def rms_norm_equals_torch(rms_difference):
    return rms_difference == 0


@checks.after(
    "rope_steps",
    "todays_models: Row 0 is the query itself: at position 0 nothing turns",
)
def row_0_is_the_query(rotated, q):
    return len(rotated) == 6 and rotated[0] == q


@checks.after(
    "rope_steps",
    "todays_models: the last pair, at a thousandth of a radian, barely moves",
)
def the_last_pair_barely_moves(rotated, theta):
    last = [row[-2:] for row in rotated]  # the last pair at each position
    moved = max(abs(row[j] - last[0][j]) for row in last for j in (0, 1))
    return abs(theta[-1] - 1e-3) < 1e-9 and 0 < moved < 0.01


@checks.after(
    "rope_steps",
    "todays_models: The first pair turns by a whole radian per row",
)
def the_first_pair_turns_a_radian(theta):
    return theta[0] == 1.0


@checks.after(
    "rotary_by_hand",
    "todays_models: apply_rotary gives the steps above to float rounding",
)
def apply_rotary_is_the_steps(steps_difference):
    return 0 <= steps_difference < ROUNDING


@checks.after(
    "rotary_by_hand",
    "todays_models: The rotation is chapter 5's shift_rotation(m, head_dim) up to float",
)
def rotary_is_chapter_6_rotation(rotary_difference):
    return 0 <= rotary_difference < ROUNDING


@checks.after(
    "rotary_by_hand", "todays_models: every position keeps the query's norm"
)
def rotation_keeps_the_norm(norms_by_position, q):
    norm = sum(value * value for value in q) ** 0.5
    return len(norms_by_position) == 6 and all(
        abs(n - norm) < ROUNDING for n in norms_by_position
    )


@checks.after(
    "offset_scores",
    "todays_models: Scores with the same offset are equal up to float rounding",
)
def scores_depend_on_the_offset(spread):
    return 0 <= spread < ROUNDING


@checks.after(
    "offset_scores",
    "todays_models: moving both by five positions changes nothing",
)
def shifting_both_changes_nothing(scores):
    return (
        abs(scores[3][1] - scores[8][6]) < ROUNDING and abs(scores[3][1]) > 0.1
    )


@checks.after(
    "offset_scores", "todays_models: At offset 0 the score is the plain"
)
def offset_zero_is_the_plain_dot_product(scores, q, k):
    plain = sum(a * b for a, b in zip(q, k, strict=True))
    return all(abs(scores[m][m] - plain) < ROUNDING for m in range(len(scores)))


@checks.after(
    "offset_scores",
    "todays_models: the other key, at the same two positions, gives another score",
)
def content_matters(scores, other_scores):
    # the other key's score is itself one per offset (3, 1 and 8, 6 alike), and not the first key's
    one_per_offset = abs(other_scores[3][1] - other_scores[8][6]) < ROUNDING
    return one_per_offset and abs(other_scores[3][1] - scores[3][1]) > 0.1


@checks.after(
    "values_not_rotated",
    "todays_models: The outputs at the six positions are the same up to float",
)
def same_value_same_output(output_spread):
    return 0 <= output_spread < ROUNDING


@checks.after(
    "values_not_rotated",
    "todays_models: the same vector would have become six different values",
)
def rotated_values_would_differ(turned_spread):
    return turned_spread > 0.1


@checks.after(
    "pairings",
    "todays_models: Copied as they are, the outputs differ, except at position 0",
)
def copied_weights_differ_after_position_0(copied_difference, first_position):
    return copied_difference > 0.01 and first_position == 0


@checks.after(
    "pairings", "todays_models: the two attentions agree to float rounding"
)
def reordered_weights_agree(moved_difference):
    return 0 <= moved_difference < ROUNDING


@checks.after(
    "swiglu_count",
    "todays_models: SwiGLU computes the line above, to float rounding",
)
def swiglu_module_is_the_line(swiglu_difference):
    return 0 <= swiglu_difference < ROUNDING


@checks.after(
    "swiglu_count", "todays_models: parameter counts differ by less than 1 %"
)
def swiglu_and_relu_counts_match(relu_count, swiglu_count):
    return abs(swiglu_count / relu_count - 1) < 0.01


@checks.after(
    "gqa_same", "todays_models: Both give the lines' result to float rounding"
)
def grouped_attention_is_the_lines(grouped_difference, module_difference):
    return (
        0 <= grouped_difference < ROUNDING and 0 <= module_difference < ROUNDING
    )


@checks.after(
    "kv_bytes",
    "todays_models: With 4 key/value heads the cache holds exactly as many bytes as chapter 12's",
)
def full_cache_matches_chapter_12(cache_bytes, chapter_12_bytes):
    return cache_bytes["4"] == chapter_12_bytes > 0


@checks.after("kv_bytes", "todays_models: 2 heads halve it, 1 head quarters it")
def fewer_heads_smaller_cache(cache_bytes):
    return (
        cache_bytes["4"] > 0
        and 2 * cache_bytes["2"] == cache_bytes["4"] == 4 * cache_bytes["1"]
    )


@checks.after(
    "llama_2_70b",
    "todays_models: the caches of about a dozen sequences would take as many bytes",
)
def a_dozen_full_caches_match_the_weights(fills):
    return 10 < fills["64"] < 15


@checks.after(
    "llama_2_70b",
    "todays_models: its 8 key/value heads make the cache 8 times smaller",
)
def eight_heads_eight_times_smaller(sequence_bytes, kv_heads, heads):
    return (
        kv_heads == 8
        and sequence_bytes.get(str(heads)) == 8 * sequence_bytes["8"] > 0
    )


@checks.after(
    "llama_size",
    "todays_models: count comes within a fraction of a percent of chapter 11's",
)
def equal_parameter_count(gap):
    return abs(gap) < 0.01


@checks.after(
    "llama_size",
    "todays_models: gives the same 20 tokens as running the whole sequence",
)
def cached_generation_is_the_same(same_tokens):
    return same_tokens is True


@checks.after(
    "llama_equality", "todays_models: The logits agree to float32 rounding."
)
def llama_logits_equal(llama_difference):
    return 0 <= llama_difference < 1e-4


@checks.after(
    "gpt2_equality",
    "todays_models: The GPT-2 logits agree to float32 rounding too",
)
def gpt2_logits_equal(gpt2_difference):
    return 0 <= gpt2_difference < 1e-4


@checks.after(
    "refused", "todays_models: is refused with a message that names the setting"
)
def scaling_is_refused(message):
    return "RoPE scaling" in message


@checks.after(
    "saved_checkpoint",
    "todays_models: gives exactly the logits of the one converted",
)
def checkpoint_round_trip(folder_difference):
    return folder_difference == 0


@checks.after(
    "t5_buckets",
    "todays_models: In an encoder, distances 0 to 7 get a bucket each",
)
def short_distances_get_a_bucket_each(distances, before):
    short = [
        bucket
        for distance, bucket in zip(distances, before, strict=True)
        if distance <= 7
    ]
    return short == [
        distance for distance in distances if distance <= 7
    ] and len(set(short)) == len(short)


@checks.after("t5_buckets", "todays_models: 8 to 11 share the next")
def eight_to_eleven_share(distances, before):
    bucket = dict(zip(distances, before, strict=True))
    return bucket[8] == bucket[11] == 8 and bucket[12] != bucket[11]


@checks.after("t5_buckets", "todays_models: 127, 128 and 200 share the last")
def far_distances_share_the_last(distances, before):
    bucket = dict(zip(distances, before, strict=True))
    return (
        bucket[127] == bucket[128] == bucket[200] == max(before)
        and bucket[64] < bucket[127]
    )


@checks.after(
    "t5_buckets",
    "todays_models: keys after the query have buckets of their own",
)
def later_keys_have_their_own_buckets(distances, before, after):
    later = [
        bucket
        for distance, bucket in zip(distances, after, strict=True)
        if distance > 0
    ]
    return max(before) < min(later)  # two ranges that do not meet


@checks.after(
    "t5_check",
    "todays_models: The bias equals that of T5Attention in transformers exactly",
)
def t5_bias_equals_transformers(t5_difference):
    return t5_difference == 0


# The recorded run of the page (benchmarks/recorded-runs.json): each sentence about it is checked on that record.


@checks.recorded(
    "training_comparison",
    "todays_models: In this recorded run, in every seed, the Llama-style model ended with fewer held-out bits per "
    "character than chapter 11's model",
)
def llama_gains_on_every_seed(gains):
    return len(gains) == 3 and all(gain > 0 for gain in gains)


@checks.recorded(
    "training_comparison",
    "todays_models: In this recorded run, the Llama-style model's median training time was longer than chapter 11's",
)
def llama_trains_longer(median_seconds):
    chapter_11, llama = median_seconds
    return llama > chapter_11 > 0


checks.not_a_result(
    "are measured in bits per character on the held-out tenth, once for each seed in SEEDS",
    "how the comparison is set up, not its result",
)
checks.not_a_result(
    "Each seed gives both models the same windows",
    "how the comparison is set up, not its result",
)
