"""What the page of the chapter `language_model` says it measured, checked after the section that measures it
(`sitebuild.claims`)."""

from sitebuild.claims import Checks

checks = Checks()


@checks.after("model_by_hand", "language_model: The loop computes exactly what model(inputs) computes")
def loop_equals_model(same_as_model):
    return same_as_model is True


@checks.after("train", "language_model: beats the bigram model by 0.8 bits per character")
def beats_bigram_by_0_8_bits(held_out_bpc, bigram):
    return round(bigram - held_out_bpc, 1) == 0.8


@checks.after(
    "next_character",
    "language_model: temperature 0.5 gives the likeliest character almost twice its probability, "
    "temperature 2 about half of it",
)
def temperature_sharpens_and_flattens(top_probability):
    at_1, at_half, at_2, _ = top_probability  # temperatures 1, 0.5 and 2, then top-5
    return 1.6 <= at_half / at_1 < 2.0 and 0.4 <= at_2 / at_1 <= 0.6


@checks.after("next_character", "language_model: Top-5 leaves exactly five characters possible")
def top_5_leaves_five(possible_top_5):
    return possible_top_5 == 5


@checks.after(
    "samples",
    "language_model: about three quarters of its words are words of the training text, against about 30 % at "
    "temperature 1",
)
def careful_sampling_writes_known_words(careful_share, plain_share):
    return 0.7 <= careful_share <= 0.8 and 0.25 <= plain_share <= 0.35


@checks.after(
    "sentence_heads",
    "language_model: Every first-layer head puts more than three times the even share on the previous character",
)
def first_layer_heads_read_previous_character(previous, uniform, num_heads):
    return all(share > 3 * uniform for share in previous[:num_heads])


@checks.after(
    "sentence_heads",
    "language_model: one head of the second layer gives the first character of the current word about three "
    "times the weight of even attention",
)
def a_second_layer_head_finds_the_word_start(word_start, uniform, num_heads):
    best = max(range(len(word_start)), key=word_start.__getitem__)
    return best // num_heads == 1 and 2.5 <= word_start[best] / uniform <= 3.5
