"""What the page of the chapter `language_model` says it measured, checked after the section that measures it
(`sitebuild.in_chapter.claims`)."""

import statistics

from sitebuild.in_chapter.claims import Checks

checks = Checks()


@checks.after(
    "model_by_hand",
    "language_model: The loop computes exactly what model(inputs) computes",
)
def loop_equals_model(same_as_model):
    return same_as_model is True


@checks.after(
    "train",
    "language_model: beats the bigram model by about one and a half bits per character",
)
def beats_bigram_by_one_and_a_half_bits(held_out_bpc, bigram):
    return 1.3 <= bigram - held_out_bpc <= 1.7


@checks.after("train", "language_model: says about how long that would take")
def estimate_is_five_times_the_run(STEPS, more):
    return more == 5 * STEPS


@checks.after(
    "next_character",
    "language_model: Temperature 0.5 gives the likeliest character almost twice its probability, "
    "temperature 2 about half of it",
)
def temperature_sharpens_and_flattens(distributions):
    # the likeliest character's probability at temperatures 1, 0.5 and 2 (keys: "(temperature, top_k)")
    at_1, at_half, at_2 = (
        max(distributions[f"({t}, None)"]) for t in (1.0, 0.5, 2.0)
    )
    return 1.6 <= at_half / at_1 < 2.0 and 0.4 <= at_2 / at_1 <= 0.6


@checks.after(
    "next_character",
    "language_model: Top-5 leaves exactly five characters possible",
)
def top_5_leaves_five(distributions):
    top_5 = distributions["(1.0, 5)"]  # temperature 1, top-5
    return sum(p > 0 for p in top_5) == 5 and abs(sum(top_5) - 1) < 1e-5


@checks.after(
    "samples",
    "language_model: more than half of its words are words of the training text",
)
def most_words_are_known_at_temperature_1(shares):
    return shares["1.0"] > 0.5


@checks.after(
    "samples",
    "language_model: more of its words are words of the training text than at temperature 1",
)
def careful_sampling_writes_known_words(shares):
    # one sample each: "more" is at least ten points more, not a measured ranking
    return shares["0.5"] >= shares["1.0"] + 0.1


@checks.after(
    "top_p_sample",
    "language_model: more than seven words in ten that top-p 0.9 writes are words of the training text",
)
def top_p_writes_known_words(word_shares):
    top_p = word_shares["and top-p 0.9"]
    return sum(top_p) / len(top_p) > 0.7


@checks.after(
    "top_p_sample",
    "language_model: and more than with plain sampling at the same temperature, by more than twice the "
    "standard deviation between the seeds of either setting",
)
def top_p_beats_plain_sampling(word_shares):
    plain, top_p = word_shares["temperature 1"], word_shares["and top-p 0.9"]
    gap = sum(top_p) / len(top_p) - sum(plain) / len(plain)
    return gap > 2 * max(statistics.stdev(plain), statistics.stdev(top_p))


@checks.after(
    "sentence_heads",
    "language_model: Every first-layer head puts more than twice the even share on the previous character",
)
def first_layer_heads_read_previous_character(previous, even, num_heads):
    two_layers = (
        len(previous) == 2 * num_heads
    )  # the first num_heads values are the first layer's
    return two_layers and all(
        share > 2 * even for share in previous[:num_heads]
    )


@checks.after(
    "sentence_heads",
    "language_model: The first-layer heads give it less weight than the previous character",
)
def first_layer_heads_prefer_previous_to_word_start(
    previous, word_start, num_heads
):
    two_layers = len(word_start) == len(previous) == 2 * num_heads
    return two_layers and all(
        word_start[i] < previous[i] for i in range(num_heads)
    )


@checks.after(
    "sentence_heads",
    "language_model: But at least one head gives it more than one and a half times the even share",
)
def a_head_finds_the_word_start(word_start, even_inside):
    # seed 0: 4.7 times; seed 100: 1.9 times (scripts/check_claims_robust.py)
    return max(word_start) > 1.5 * even_inside


@checks.after(
    "weight_tying",
    "language_model: Tied, the model has one vocab_size × d_model matrix fewer",
)
def tying_saves_one_matrix(parameters, tied_parameters, vocab_size):
    return parameters - tied_parameters == vocab_size * 64


@checks.after(
    "weight_tying",
    "language_model: the untrained tied model starts with logits more than ten times as spread and a loss more "
    "than ten times higher",
)
def tied_model_starts_far_off(first_bits, spreads):
    return (
        first_bits["tied"] > 10 * first_bits["untied"]
        and spreads["tied"] > 10 * spreads["untied"]
    )


@checks.after(
    "top_p_step",
    "language_model: their probabilities add up to at least 0.9, and without the last one kept they would not",
)
def nucleus_is_the_smallest_set(probabilities, kept):
    inside = sorted(
        (p for p, k in zip(probabilities, kept, strict=True) if k), reverse=True
    )
    outside = [p for p, k in zip(probabilities, kept, strict=True) if not k]
    likeliest = not outside or min(inside) >= max(outside)
    return likeliest and sum(inside) >= 0.9 and sum(inside) - inside[-1] < 0.9


@checks.after(
    "top_p_sizes",
    "language_model: top-p 0.9 keeps a single character at some steps and more than thirty at others",
)
def nucleus_size_varies(sizes):
    return min(sizes) == 1 and max(sizes) > 30


@checks.after(
    "weight_tying_small_start",
    "language_model: With the embedding at 0.02, the untrained tied model starts no worse than the untied one: its "
    "logits are less spread and its loss is no higher",
)
def small_start_starts_like_the_untied_model(
    small_spread, small_bits, spreads, first_bits
):
    return (
        small_spread < spreads["untied"] and small_bits <= first_bits["untied"]
    )


# The recorded runs of the page (benchmarks/recorded-runs.json): each sentence about one is checked on that record.
UNTIED, TIED = (
    "False",
    "True",
)  # bpc's keys, tie_weights, as the chapter's values read


@checks.recorded(
    "weight_tying_seeds",
    "language_model: In this recorded run, with this initialisation and 350 steps, the tied model ended worse than "
    "the untied one on every seed",
)
def tied_ends_worse(bpc):
    pairs = list(zip(bpc[UNTIED], bpc[TIED], strict=True))
    return len(pairs) == 3 and all(tied > untied for untied, tied in pairs)


@checks.recorded(
    "weight_tying_small_start",
    "language_model: Yet in this recorded run, after 350 steps it ended worse on every seed, worse even than the tied "
    "model started at 1",
)
def small_start_ends_worse_than_both(bpc, small_start_bpc):
    return all(
        small > tied > untied
        for untied, tied, small in zip(
            bpc[UNTIED], bpc[TIED], small_start_bpc, strict=True
        )
    )
